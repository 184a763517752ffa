import twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient';
import type { TwilioSettings } from './settings';

/**
 * The library's own request client with the REST origin swapped (TWILIO_API_BASE_URL): the
 * `twilio` package builds every URI on api.twilio.com and lets a client bring its own
 * `httpClient`, which is how tests reach a local fake without patching the library.
 */
class OriginRequestClient extends twilio.RequestClient {
  constructor(
    private readonly origin: string,
    timeoutMs: number,
  ) {
    super({ timeout: timeoutMs, keepAlive: true });
  }

  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    const uri = new URL(opts.uri);
    const target = new URL(this.origin);
    uri.protocol = target.protocol;
    uri.host = target.host;
    return super.request<TData>({ ...opts, uri: uri.href });
  }
}

/** A REST client for the account; Twilio's own origin unless the settings name another. */
export function createTwilioRestClient(settings: Pick<TwilioSettings, 'accountSid' | 'authToken' | 'apiBaseUrl' | 'timeoutMs'>): twilio.Twilio {
  const viaOrigin = settings.apiBaseUrl.replace(/\/$/, '') !== 'https://api.twilio.com';
  return twilio(settings.accountSid, settings.authToken, {
    timeout: settings.timeoutMs,
    ...(viaOrigin ? { httpClient: new OriginRequestClient(settings.apiBaseUrl, settings.timeoutMs) } : {}),
  });
}
