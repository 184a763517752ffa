import type { ActivityOptions } from '@temporalio/workflow';
import { UNTIL_MONGODB_ANSWERS } from '../retryPolicies';

/** The due chase's, the dues cycle's and the simulated payment's activity options. */

/**
 * A due chase's and a dues cycle's steps (a template send through the record-first send use
 * case, MongoDB writes): retried for about a day at a one-minute cap; a retried step finds
 * its send intent and never sends twice.
 */
export const DUES_STEP: ActivityOptions = { startToCloseTimeout: '1 minute', retry: UNTIL_MONGODB_ANSWERS };
