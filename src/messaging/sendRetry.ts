import type { SendAttempt, SendRequest, WhatsAppProvider } from './whatsAppSender';

/**
 * Provider rate-limit and server errors are retried a few times before the caller hears a
 * refusal (api-core §4 POST /messages rule 7). Three attempts with short pauses keep the
 * whole send well inside the 30-second Idempotency-Key lease, since the caller waits.
 */
export interface RetryPolicy {
  attempts: number;
  /** Pause before attempt 2, 3, …; the last value repeats. */
  pausesMs: number[];
}

export const SEND_RETRY_POLICY: RetryPolicy = { attempts: 3, pausesMs: [250, 750] };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function sendWithRetries(
  provider: WhatsAppProvider,
  request: SendRequest,
  policy: RetryPolicy = SEND_RETRY_POLICY,
): Promise<SendAttempt & { attempts: number }> {
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const result = await provider.send(request);
    if (result.ok || !result.retryable || attempt >= policy.attempts) return { ...result, attempts: attempt };
    await sleep(policy.pausesMs[Math.min(attempt - 1, policy.pausesMs.length - 1)] ?? 0);
  }
}
