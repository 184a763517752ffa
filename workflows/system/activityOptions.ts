import type { ActivityOptions } from '@temporalio/workflow';
import { PERMANENT_FAILURES } from '../../src/temporal/failures';

/** The system check's activity options. */

/** The system check's write: it answers within seconds or the system is not ready. */
export const SYSTEM_CHECK: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 5, initialInterval: '200 milliseconds', nonRetryableErrorTypes: [...PERMANENT_FAILURES] },
};
