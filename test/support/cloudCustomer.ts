import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from 'mongodb';
import { collections } from '../../src/db/collections';
import { CloudWhatsAppProvider } from '../../src/providers/whatsapp/cloud';
import { signedMessagesWebhook } from './fakeGraph';

/**
 * The chat agent on the WhatsApp Cloud API, as its tests deploy it and a customer writes in:
 * the API's and worker's Cloud API settings against a FakeGraph, and the signed webhook of a
 * customer's text to the workspace's sender.
 */

const ACCESS_TOKEN = 'graph-token';
const PHONE_NUMBER_ID = '1001';

/** The API's Cloud API settings: sends go to the fake Graph API at `graphUrl`, webhooks are signed with `appSecret`. */
export function cloudApiEnv(graphUrl: string, appSecret: string): Record<string, string> {
  return {
    WHATSAPP_PROVIDER: 'cloud',
    WHATSAPP_CLOUD_BASE_URL: graphUrl,
    WHATSAPP_CLOUD_ACCESS_TOKEN: ACCESS_TOKEN,
    WHATSAPP_CLOUD_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_CLOUD_APP_SECRET: appSecret,
    WHATSAPP_CLOUD_VERIFY_TOKEN: 'verify',
  };
}

/** The worker's Cloud API sender against the same fake. */
export function cloudWhatsApp(graphUrl: string, timeoutMs = 10_000): CloudWhatsAppProvider {
  return new CloudWhatsAppProvider({ baseUrl: graphUrl, accessToken: ACCESS_TOKEN, phoneNumberId: PHONE_NUMBER_ID, phoneNumberIds: {}, timeoutMs });
}

/** A webhook's exact bytes and their signature: delivered twice, it is the provider's redelivery. */
export interface SignedWebhook {
  raw: string;
  signature: string;
}

/** Customers writing to one sender through the Cloud API's webhook. */
export interface CloudCustomers {
  /** One text from `from` (digits), as the Cloud API posts it; `at` is its time (whole seconds on the wire). */
  text(from: string, messageId: string, text: string, at?: number): SignedWebhook;
  /** Posts it to an API (a server in this process or a base URL) and gives the status. */
  deliver(webhook: SignedWebhook, to: Server | string): Promise<number>;
  /** `text` then `deliver`, expecting 200. */
  writes(to: Server | string, from: string, messageId: string, text: string, at?: number): Promise<void>;
}

const baseUrlOf = (to: Server | string) => (typeof to === 'string' ? to : `http://127.0.0.1:${(to.address() as AddressInfo).port}`);

/** Customers of the sender `senderId` (the workspace's, deployed with its chat agent), webhooks signed with `appSecret`. */
export async function cloudCustomers(db: Db, senderId: string, appSecret: string): Promise<CloudCustomers> {
  const senderDigits = (await collections(db).senders.findOne({ _id: senderId }))!.phone.slice(1);
  const customers: CloudCustomers = {
    text(from, messageId, text, at = Date.now()) {
      return signedMessagesWebhook(
        {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: senderDigits, phone_number_id: PHONE_NUMBER_ID },
          contacts: [{ profile: { name: 'Kiran' }, wa_id: from }],
          messages: [{ from, id: messageId, timestamp: String(Math.floor(at / 1000)), type: 'text', text: { body: text } }],
        },
        appSecret,
      );
    },
    async deliver(webhook, to) {
      const res = await fetch(`${baseUrlOf(to)}/webhooks/whatsapp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Hub-Signature-256': webhook.signature },
        body: webhook.raw,
      });
      await res.arrayBuffer();
      return res.status;
    },
    async writes(to, from, messageId, text, at) {
      expect(await customers.deliver(customers.text(from, messageId, text, at), to)).toBe(200);
    },
  };
  return customers;
}
