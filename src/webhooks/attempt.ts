import { ATTEMPT_TIMEOUT_MS } from './contracts';
import type { AttemptRecord } from './deliveries';
import { signingSecrets, type WebhookEndpointDoc } from './endpoints';
import { sendWebhook } from './send';
import { signedHeaders } from './signature';

/**
 * One attempt: the event's stored bytes, signed at the moment of sending with the endpoint's
 * current secret (and the previous one during a rotation's grace), POSTed to its current
 * URL. A 2xx within ATTEMPT_TIMEOUT_MS is success; anything else is a failed attempt. Never
 * throws; the caller records what it returns.
 */
export async function sendAttempt(options: {
  endpoint: WebhookEndpointDoc;
  eventId: string;
  payload: string;
  attempt: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
  now: () => Date;
}): Promise<{ record: AttemptRecord; ok: boolean }> {
  const { endpoint } = options;
  // The signature's timestamp is the moment of sending, so a receiver's tolerance check sees
  // a fresh one on every attempt; the body is the same stored bytes every time.
  const attemptedAt = options.now();
  const body = Buffer.from(options.payload, 'utf8');
  const headers = signedHeaders(signingSecrets(endpoint, attemptedAt), options.eventId, Math.floor(attemptedAt.getTime() / 1000), body);
  const sent = await sendWebhook({ url: endpoint.url, body, headers, timeoutMs: ATTEMPT_TIMEOUT_MS, allowPrivate: options.allowPrivate, signal: options.signal });
  const ok = sent.statusCode !== null && sent.statusCode >= 200 && sent.statusCode < 300;
  return {
    ok,
    record: {
      attempt: options.attempt,
      attempted_at: attemptedAt,
      url: endpoint.url,
      status_code: sent.statusCode,
      duration_ms: sent.durationMs,
      error: ok ? null : (sent.error ?? `answered ${sent.statusCode}`),
      response_body: sent.responseBody,
    },
  };
}
