import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { ATTEMPT_TIMEOUT_MS } from '../../src/webhooks/contracts';
import { UNTIL_MONGODB_ANSWERS } from '../retryPolicies';

/** The webhook delivery workflows' activity timeouts and retries. */

/**
 * One webhook delivery attempt, a local activity: the delivery workflow owns the retry
 * schedule (durable timers, visible in its history), so the SDK must not retry the POST on
 * its own. The deadline leaves room past the HTTP timeout for reading and recording.
 */
export const WEBHOOK_ATTEMPT_DEADLINE_MS = ATTEMPT_TIMEOUT_MS + 5_000;

export const WEBHOOK_ATTEMPT: LocalActivityOptions = {
  startToCloseTimeout: WEBHOOK_ATTEMPT_DEADLINE_MS,
  retry: { maximumAttempts: 1 },
};

export const WEBHOOK_RECORD: ActivityOptions = { startToCloseTimeout: '10 seconds', retry: UNTIL_MONGODB_ANSWERS };

/**
 * One drain of an endpoint's deliveries, a local activity: at most 2 × DRAIN_BATCH POSTs,
 * DRAIN_PARALLELISM at once, so against receivers that never answer it lasts about four
 * attempt timeouts. Retried like the MongoDB-only steps: a re-run is safe (it does not send
 * an attempt already recorded) and the deliveries in it must not be lost.
 */
export const WEBHOOK_DRAIN: LocalActivityOptions = { startToCloseTimeout: 4 * ATTEMPT_TIMEOUT_MS + 20_000, retry: UNTIL_MONGODB_ANSWERS };

/** A local activity (a quick read): it saves the fan-out a round trip through the server per event. */
export const WEBHOOK_TARGETS: LocalActivityOptions = { startToCloseTimeout: '10 seconds', retry: UNTIL_MONGODB_ANSWERS };
