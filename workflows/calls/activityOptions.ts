import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { READER_HEARTBEAT_INTERVAL_MS } from '../../src/calls/contracts';
import { PERMANENT_FAILURES } from '../../src/temporal/failures';

/** The call workflows' activity timeouts and retries (call, reading, re-read, call-back). */

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
