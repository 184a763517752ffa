import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { visibilityOptions } from '../temporal/searchAttributes';
import { startWorkflow } from '../temporal/startWorkflow';
import { callWorkflowDefinition, callWorkflowId, type CallWorkflowInput } from './contracts';
import type { CallDoc } from './callStore';
import { callNaming } from './callPerson';

/** What starting a call's lifecycle needs; the placing use cases take it as part of their deps. */
export interface CallStartDeps {
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>;
}

/** The call workflow's input, read off the call's first read model. */
export function callWorkflowInput(call: CallDoc): CallWorkflowInput {
  return {
    callId: call._id,
    tenantId: call.tenant_id,
    direction: call.direction,
    ringSeconds: call.ring_seconds,
    maxCallSeconds: call.max_call_seconds,
    createdAt: call.created_at.toISOString(),
  };
}

/**
 * Starts the lifecycle of a call whose read model is written. The workflow id is the call id,
 * so Temporal itself refuses a second lifecycle for one call, even one whose first has closed
 * (a retried placing must never ring the person again).
 */
export async function startCallWorkflow(deps: CallStartDeps, call: CallDoc): Promise<void> {
  await startWorkflow(deps.temporal, callWorkflowDefinition, {
    workflowId: callWorkflowId(call._id),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [callWorkflowInput(call)],
    ...callVisibility(call),
  });
}

/** A call's workflows in the Temporal UI: found by workspace, id or number; named by its person (and number) where the call names one, else its number. */
export function callVisibility(call: Pick<CallDoc, '_id' | 'tenant_id' | 'to' | 'status' | 'metadata' | 'detail_lines' | 'purpose' | 'direction'>) {
  return visibilityOptions({ workspaceId: call.tenant_id, kind: 'call', id: call._id, status: call.status, phoneNumber: call.to, ...callNaming(call) });
}
