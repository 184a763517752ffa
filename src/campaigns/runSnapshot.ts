import type { Client } from '@temporalio/client';
import { campaignRunStateQuery, campaignRunWorkflowId } from './contracts';
import type { RunSnapshot } from './runExplanation';

/**
 * How long the console's campaign read waits for the run's query. The page polls every 2 s;
 * a worker that does not answer in time leaves the explanation to the read model (no held
 * reason), never a slow page.
 */
export const RUN_QUERY_TIMEOUT_MS = 1_500;

/**
 * What a sending campaign's run says of itself (held and why, its phase, a call campaign's
 * calls in flight), or null when the run cannot say: not started, ended, or no worker answering
 * within `timeoutMs`. Only the run knows why it holds: the reason is what its last batch or
 * step was refused for, not a guess from the workspace.
 */
export async function readRunSnapshot(temporal: Client, campaignId: string, timeoutMs = RUN_QUERY_TIMEOUT_MS): Promise<RunSnapshot | null> {
  try {
    return await temporal.withDeadline(Date.now() + timeoutMs, () => temporal.workflow.getHandle(campaignRunWorkflowId(campaignId)).query(campaignRunStateQuery));
  } catch {
    return null;
  }
}
