import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SystemActivities } from '../../activities/system';
import type { SystemCheckInput, SystemCheckResult } from '../../src/temporal/contracts';
import { SYSTEM_CHECK } from './activityOptions';

const { recordSystemCheck } = proxyActivities<SystemActivities>(SYSTEM_CHECK);

/**
 * A round trip through every moving part (API or launcher, Temporal, a worker, MongoDB):
 * the launcher runs one before it reports the system ready, and operators can start one
 * from the Temporal UI to see where a stuck system stops.
 */
export async function systemCheck(input: SystemCheckInput): Promise<SystemCheckResult> {
  return recordSystemCheck({ ...input, workflowId: workflowInfo().workflowId });
}
