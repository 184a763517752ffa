import type { Db } from 'mongodb';
import type { Config } from '../../config';
import type { EventPublisher } from '../../events';
import { CloudWhatsAppProvider, type CloudSettings } from './cloud';
import type { WhatsAppProvider } from '../../messaging';
import { SimulatedWhatsAppProvider } from './simulator';

type WhatsAppConfig = Pick<
  Config,
  | 'WHATSAPP_PROVIDER'
  | 'WHATSAPP_CLOUD_BASE_URL'
  | 'WHATSAPP_CLOUD_ACCESS_TOKEN'
  | 'WHATSAPP_CLOUD_PHONE_NUMBER_ID'
  | 'WHATSAPP_CLOUD_PHONE_NUMBER_IDS'
  | 'WHATSAPP_CLOUD_TIMEOUT_MS'
>;

/** `+919…=123,+91…=456` → `{ '919…': '123', … }`. */
export function parsePhoneNumberIds(value: string | undefined): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const pair of (value ?? '').split(',').filter(Boolean)) {
    const [phone, id] = pair.split('=');
    if (phone && id) ids[phone.replace(/\D/g, '')] = id;
  }
  return ids;
}

export function cloudSettingsFrom(config: WhatsAppConfig): CloudSettings {
  if (!config.WHATSAPP_CLOUD_ACCESS_TOKEN || !config.WHATSAPP_CLOUD_PHONE_NUMBER_ID) {
    throw new Error('WHATSAPP_PROVIDER=cloud needs WHATSAPP_CLOUD_ACCESS_TOKEN and WHATSAPP_CLOUD_PHONE_NUMBER_ID');
  }
  return {
    baseUrl: config.WHATSAPP_CLOUD_BASE_URL,
    accessToken: config.WHATSAPP_CLOUD_ACCESS_TOKEN,
    phoneNumberId: config.WHATSAPP_CLOUD_PHONE_NUMBER_ID,
    phoneNumberIds: parsePhoneNumberIds(config.WHATSAPP_CLOUD_PHONE_NUMBER_IDS),
    timeoutMs: config.WHATSAPP_CLOUD_TIMEOUT_MS,
  };
}

/** The deployment's WhatsApp provider (WHATSAPP_PROVIDER): one per process. */
export function createWhatsAppProvider(
  config: WhatsAppConfig,
  deps: { db: Db; events: EventPublisher; onStatusError?: (err: unknown, messageId: string) => void },
): WhatsAppProvider {
  return config.WHATSAPP_PROVIDER === 'cloud'
    ? new CloudWhatsAppProvider(cloudSettingsFrom(config))
    : new SimulatedWhatsAppProvider(deps.db, deps.events, deps.onStatusError);
}

export type { WhatsAppProvider } from '../../messaging';
