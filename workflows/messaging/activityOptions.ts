import type { ActivityOptions } from '@temporalio/workflow';
import { PERMANENT_FAILURES } from '../../src/temporal/failures';

/** The simulated WhatsApp delivery's activity options. */

/** A simulated WhatsApp status report: a test double's write, ten attempts. */
export const SIMULATED_STATUS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 10, initialInterval: '500 milliseconds', maximumInterval: '10 seconds', nonRetryableErrorTypes: [...PERMANENT_FAILURES] },
};
