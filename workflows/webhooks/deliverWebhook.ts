import { ActivityFailure, TimeoutFailure, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';
import { FailureType, permanentFailure } from '../../src/temporal/failures';
import { MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_MS, type AttemptResult, type DeliverWebhookInput, type DeliverWebhookResult } from '../../src/webhooks/contracts';
import { WEBHOOK_ATTEMPT, WEBHOOK_ATTEMPT_DEADLINE_MS, WEBHOOK_RECORD } from './activityOptions';

// One local activity per attempt, not retried by the SDK (see WEBHOOK_ATTEMPT). Local rather
// than a regular activity: an attempt is short and bounded, and skipping the server's
// activity task round trip cut the Temporal server's CPU per delivery by about a fifth (see
// docs/decisions/performance.md, "Webhook benchmark"). A worker that dies mid-attempt loses its workflow
// task; the next worker replays and runs the same attempt again.
const { attemptWebhookDelivery } = proxyLocalActivities<WebhookActivities>(WEBHOOK_ATTEMPT);

// Records an attempt that failed without recording itself (deadline passed, MongoDB down).
const { recordLostWebhookAttempt } = proxyActivities<WebhookActivities>(WEBHOOK_RECORD);

function lostAttemptReason(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure) {
    return `the attempt did not finish within ${WEBHOOK_ATTEMPT_DEADLINE_MS / 1000} s`;
  }
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return `the attempt failed before an answer was recorded: ${cause instanceof Error ? cause.message : String(cause)}`;
}

/**
 * Delivers one event to one endpoint, at least once: POST, and on anything but a 2xx in
 * time, wait the schedule's next delay and try again; after the last attempt the delivery
 * is failed (and so is this workflow, with type WebhookDeliveryFailed). A deleted or
 * disabled endpoint ends it as cancelled.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
  for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
    const retryDelayMs = RETRY_DELAYS_MS[attempt - 1] ?? null;
    let result: AttemptResult;
    try {
      result = await attemptWebhookDelivery({ ...input, attempt, retryDelayMs });
    } catch (err) {
      result = await recordLostWebhookAttempt({ ...input, attempt, retryDelayMs, error: lostAttemptReason(err) });
    }
    if (result.status === 'succeeded' || result.status === 'cancelled') return { status: result.status, attempts: attempt };
    if (result.status === 'failed' || retryDelayMs === null) break;
    await sleep(retryDelayMs);
  }
  throw permanentFailure(FailureType.WebhookDeliveryFailed, `Webhook delivery ${input.deliveryId} failed after ${MAX_DELIVERY_ATTEMPTS} attempts.`);
}
