import type { Config } from '../../../config';

export type PlivoConfig = Pick<
  Config,
  'VOICE_PROVIDER' | 'PLIVO_AUTH_ID' | 'PLIVO_AUTH_TOKEN' | 'PLIVO_PUBLIC_URL' | 'PLIVO_MEDIA_STREAM_URL' | 'PLIVO_API_BASE_URL' | 'PLIVO_TIMEOUT_MS'
>;

/** What the Plivo adapter needs, read once from the configuration (README, docs/voice.md). */
export interface PlivoSettings {
  authId: string;
  authToken: string;
  /** This deployment's public origin as Plivo reaches it; webhook URLs and signatures are built on it. */
  publicUrl: string;
  /** The media process's public WebSocket URL (the `<Stream>` element's text, with the call's id and secret). */
  mediaStreamUrl: string;
  /** The Voice API's origin (Plivo's own, or a local fake in tests). */
  apiBaseUrl: string;
  timeoutMs: number;
}

/** The settings when VOICE_PROVIDER is plivo; null otherwise (the webhooks then answer 404 not_configured). */
export function plivoSettingsFrom(config: PlivoConfig): PlivoSettings | null {
  if (config.VOICE_PROVIDER !== 'plivo') return null;
  const { PLIVO_AUTH_ID, PLIVO_AUTH_TOKEN, PLIVO_PUBLIC_URL, PLIVO_MEDIA_STREAM_URL } = config;
  // loadConfig refuses plivo without these; a hand-built config must not half-work.
  if (!PLIVO_AUTH_ID || !PLIVO_AUTH_TOKEN || !PLIVO_PUBLIC_URL || !PLIVO_MEDIA_STREAM_URL) {
    throw new Error('VOICE_PROVIDER=plivo needs PLIVO_AUTH_ID, PLIVO_AUTH_TOKEN, PLIVO_PUBLIC_URL and PLIVO_MEDIA_STREAM_URL');
  }
  return {
    authId: PLIVO_AUTH_ID,
    authToken: PLIVO_AUTH_TOKEN,
    publicUrl: PLIVO_PUBLIC_URL,
    mediaStreamUrl: PLIVO_MEDIA_STREAM_URL,
    apiBaseUrl: config.PLIVO_API_BASE_URL,
    timeoutMs: config.PLIVO_TIMEOUT_MS,
  };
}

/** As twilioSettingsWarnings: a `ws://` stream URL loads (local fakes) but Plivo's streams need `wss://`. */
export function plivoSettingsWarnings(config: Pick<PlivoConfig, 'VOICE_PROVIDER' | 'PLIVO_MEDIA_STREAM_URL'>): string[] {
  if (config.VOICE_PROVIDER !== 'plivo' || !config.PLIVO_MEDIA_STREAM_URL || config.PLIVO_MEDIA_STREAM_URL.startsWith('wss://')) return [];
  return [`PLIVO_MEDIA_STREAM_URL is ${config.PLIVO_MEDIA_STREAM_URL}: Plivo streams audio only to wss:// URLs, so answered calls will not reach the agent`];
}
