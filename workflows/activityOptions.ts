import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/workflow';
import { READER_HEARTBEAT_INTERVAL_MS } from '../src/calls/contracts';
import { ATTEMPT_TIMEOUT_MS } from '../src/webhooks/contracts';
import { PERMANENT_FAILURES } from '../src/temporal/failures';

/**
 * Every activity's timeouts and retries, in one place: each proxyActivities and
 * proxyLocalActivities call takes one of these. Every policy is bounded, and stops at once
 * on the permanent failure types (src/temporal/failures.ts). Changing a value here changes
 * only future schedules: running workflows keep the options their history recorded.
 */

/** Read-model writes and provider calls of a call: about 9 minutes of attempts, then the workflow fails. */
export const CALL_STEP: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20, nonRetryableErrorTypes: [...PERMANENT_FAILURES] },
};

/**
 * The same steps as local activities (issue 13): run by the worker that holds the workflow
 * task, each recorded as one marker instead of an activity task plus a workflow task to
 * resume (about 5 history events and a round trip less per step). Same deadline and retries.
 */
export const CALL_STEP_LOCAL: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: CALL_STEP.retry,
};

/**
 * The reader: temporary errors are retried with backoff; after five attempts the result is
 * `failed`. It heartbeats, so a dead worker is noticed within the heartbeat timeout (not the
 * two-minute deadline) and a cancellation reaches the reader's request.
 */
export const CALL_READER: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: READER_HEARTBEAT_INTERVAL_MS * 4,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [...PERMANENT_FAILURES],
  },
};

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

/**
 * MongoDB-only steps whose loss would lose work (recording a lost webhook attempt, listing an
 * event's endpoints): retried at a one-minute cap for about a day, as long as the webhook
 * schedule itself. Past that the workflow fails and shows as failed in the Temporal UI,
 * where an operator can reset it once MongoDB is back.
 */
const UNTIL_MONGODB_ANSWERS: RetryPolicy = {
  initialInterval: '1 second',
  maximumInterval: '1 minute',
  maximumAttempts: 1_500,
  nonRetryableErrorTypes: [...PERMANENT_FAILURES],
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

/** A simulated WhatsApp status report: a test double's write, ten attempts. */
export const SIMULATED_STATUS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 10, initialInterval: '500 milliseconds', maximumInterval: '10 seconds', nonRetryableErrorTypes: [...PERMANENT_FAILURES] },
};

/** The system check's write: it answers within seconds or the system is not ready. */
export const SYSTEM_CHECK: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 5, initialInterval: '200 milliseconds', nonRetryableErrorTypes: [...PERMANENT_FAILURES] },
};

/**
 * One campaign batch: it paces about five seconds of sends and heartbeats after each, so a
 * dead worker is noticed within the heartbeat timeout and the batch is retried elsewhere
 * (the send intents skip whoever was sent). Retried for about a day at a one-minute cap.
 */
export const CAMPAIGN_BATCH: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '20 seconds',
  retry: UNTIL_MONGODB_ANSWERS,
};

/** A campaign's record writes (status moves, counts, skipping the cancelled): MongoDB only, retried for about a day. */
export const CAMPAIGN_STEP: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: UNTIL_MONGODB_ANSWERS,
};

/**
 * A due chase's and a dues cycle's steps (a template send through the record-first send use
 * case, MongoDB writes): retried for about a day at a one-minute cap; a retried step finds
 * its send intent and never sends twice.
 */
export const DUES_STEP: ActivityOptions = { startToCloseTimeout: '1 minute', retry: UNTIL_MONGODB_ANSWERS };

/**
 * The chat agent's reads, writes and its reply's send, as local activities (recorded as one
 * marker each, which keeps a turn near a dozen history events): retried for about a day at a
 * one-minute cap, safe because each is keyed by the turn (src/agents/turns.ts).
 */
export const AGENT_STEP: LocalActivityOptions = { startToCloseTimeout: '1 minute', retry: UNTIL_MONGODB_ANSWERS };

/**
 * One model call or one tool run, a local activity: a slow model is given two minutes an
 * attempt, five attempts with backoff; past them the turn hands the conversation to a person
 * rather than leave the customer unanswered. A refused request (bad key, unknown model) is not
 * retried.
 */
export const AGENT_MODEL_CALL: LocalActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5, nonRetryableErrorTypes: [...PERMANENT_FAILURES, 'AgentModelPermanentError'] },
};
