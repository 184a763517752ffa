import type { RetryPolicy } from '@temporalio/workflow';
import { PERMANENT_FAILURES } from '../src/temporal/failures';

/**
 * The retry policy several features' steps share. Each feature's activity options live beside
 * its workflows (workflows/<feature>/activityOptions.ts): every proxyActivities and
 * proxyLocalActivities call takes one of them. Every policy is bounded, and stops at once on
 * the permanent failure types (src/temporal/failures.ts). Changing a value changes only future
 * schedules: running workflows keep the options their history recorded.
 */

/**
 * MongoDB-only steps whose loss would lose work (recording a lost webhook attempt, listing an
 * event's endpoints, a campaign's or a due's writes): retried at a one-minute cap for about a
 * day, as long as the webhook schedule itself. Past that the workflow fails and shows as
 * failed in the Temporal UI, where an operator can reset it once MongoDB is back.
 */
export const UNTIL_MONGODB_ANSWERS: RetryPolicy = {
  initialInterval: '1 second',
  maximumInterval: '1 minute',
  maximumAttempts: 1_500,
  nonRetryableErrorTypes: [...PERMANENT_FAILURES],
};
