import type { ActivityOptions } from '@temporalio/workflow';
import { UNTIL_MONGODB_ANSWERS } from '../retryPolicies';

/** The campaign runs' activity timeouts and retries. */

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
