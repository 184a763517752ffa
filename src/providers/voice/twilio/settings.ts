import type { Config } from '../../../config';

export type TwilioConfig = Pick<
  Config,
  'VOICE_PROVIDER' | 'TWILIO_ACCOUNT_SID' | 'TWILIO_AUTH_TOKEN' | 'TWILIO_PUBLIC_URL' | 'TWILIO_MEDIA_STREAM_URL' | 'TWILIO_API_BASE_URL' | 'TWILIO_TIMEOUT_MS'
>;

/** What the Twilio adapter needs, read once from the configuration (README, docs/voice.md). */
export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  /** This deployment's public origin as Twilio reaches it; webhook URLs and signatures are built on it. */
  publicUrl: string;
  /** The media process's public WebSocket URL (`<Connect><Stream url>`). */
  mediaStreamUrl: string;
  /** The REST API's origin (Twilio's own, or a local fake in tests). */
  apiBaseUrl: string;
  timeoutMs: number;
}

/** The settings when VOICE_PROVIDER is twilio; null otherwise (the webhooks then answer 404 not_configured). */
export function twilioSettingsFrom(config: TwilioConfig): TwilioSettings | null {
  if (config.VOICE_PROVIDER !== 'twilio') return null;
  const { TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_PUBLIC_URL, TWILIO_MEDIA_STREAM_URL } = config;
  // loadConfig refuses twilio without these; a hand-built config must not half-work.
  if (!TWILIO_ACCOUNT_SID || !TWILIO_AUTH_TOKEN || !TWILIO_PUBLIC_URL || !TWILIO_MEDIA_STREAM_URL) {
    throw new Error('VOICE_PROVIDER=twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_PUBLIC_URL and TWILIO_MEDIA_STREAM_URL');
  }
  return {
    accountSid: TWILIO_ACCOUNT_SID,
    authToken: TWILIO_AUTH_TOKEN,
    publicUrl: TWILIO_PUBLIC_URL,
    mediaStreamUrl: TWILIO_MEDIA_STREAM_URL,
    apiBaseUrl: config.TWILIO_API_BASE_URL,
    timeoutMs: config.TWILIO_TIMEOUT_MS,
  };
}

/**
 * What in the Twilio settings loads but cannot work on a live line, one sentence each naming
 * the variable: said at start by the processes that use them (API, media). A `ws://` stream
 * URL is accepted for local fakes, but Twilio opens only `wss://` streams: every answered
 * call would go silent and drop.
 */
export function twilioSettingsWarnings(config: Pick<TwilioConfig, 'VOICE_PROVIDER' | 'TWILIO_MEDIA_STREAM_URL'>): string[] {
  if (config.VOICE_PROVIDER !== 'twilio') return [];
  const warnings: string[] = [];
  if (config.TWILIO_MEDIA_STREAM_URL && !config.TWILIO_MEDIA_STREAM_URL.startsWith('wss://')) {
    warnings.push(`TWILIO_MEDIA_STREAM_URL is ${config.TWILIO_MEDIA_STREAM_URL}: Twilio opens only wss:// stream URLs, so answered calls will not reach the agent`);
  }
  return warnings;
}
