import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { systemCheckDefinition, systemCheckWorkflowId, type SystemCheckResult } from './contracts';
import { visibilityOptions } from './searchAttributes';
import { startWorkflow } from './startWorkflow';

/** Runs one system check workflow to completion and returns what the worker recorded. */
export async function runSystemCheck(client: Client, taskQueue: string, timeoutMs = 30_000): Promise<SystemCheckResult> {
  const checkId = randomUUID();
  const handle = await startWorkflow(client, systemCheckDefinition, {
    taskQueue,
    workflowId: systemCheckWorkflowId(checkId),
    args: [{ checkId, requestedAt: new Date().toISOString() }],
    workflowExecutionTimeout: timeoutMs,
    ...visibilityOptions({ kind: 'system_check', id: checkId }),
  });
  return handle.result();
}
