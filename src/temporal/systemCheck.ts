import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { systemCheckWorkflowId, type SystemCheckResult } from '../../workflows/definitions';

/** Runs one system check workflow to completion and returns what the worker recorded. */
export async function runSystemCheck(client: Client, taskQueue: string, timeoutMs = 30_000): Promise<SystemCheckResult> {
  const checkId = randomUUID();
  const handle = await client.workflow.start('systemCheck', {
    taskQueue,
    workflowId: systemCheckWorkflowId(checkId),
    args: [{ checkId, requestedAt: new Date().toISOString() }],
    workflowExecutionTimeout: timeoutMs,
  });
  return (await handle.result()) as SystemCheckResult;
}
