import { WithStartWorkflowOperation, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import { visibilityOptions } from '../temporal/searchAttributes';
import { startWorkflow } from '../temporal/startWorkflow';
import { callWorkflowDefinition, callWorkflowId, placementUpdate, type CallWorkflowInput, type Placement } from './contracts';
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

/**
 * What starting a call and waiting for its placement gave: `placement` null when the network
 * did not answer within the wait. `started: false` carries the start's failure (nothing runs:
 * the caller undoes its admission); `started: true` with an error, a failure after the start.
 */
export type StartedCall = { started: true; placement: Placement | null } | { started: false; error: unknown } | { started: true; error: unknown };

/**
 * Starts the call's lifecycle and waits up to `waitMs` for the network's answer, in one
 * request (update-with-start, issue 36): the lifecycle places the call in its first workflow
 * task, so the update's answer comes back with the start, one round trip and one workflow task
 * fewer than a start and then an update. When the wait runs out, whether the start landed is
 * not known here: a plain start settles it, the engine refusing a second run of the call id.
 */
export async function startCallAwaitingPlacement(deps: CallStartDeps, call: CallDoc, waitMs: number): Promise<StartedCall> {
  const start = new WithStartWorkflowOperation(callWorkflowDefinition.name, {
    workflowId: callWorkflowId(call._id),
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [callWorkflowInput(call)],
    ...callVisibility(call),
  });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), waitMs);
  try {
    const placement = await deps.temporal.withAbortSignal(controller.signal, () => deps.temporal.workflow.executeUpdateWithStart(placementUpdate, { startWorkflowOperation: start }));
    return { started: true, placement };
  } catch (err) {
    if (controller.signal.aborted) {
      try {
        await startCallWorkflow(deps, call);
      } catch (startErr) {
        if (!(startErr instanceof WorkflowExecutionAlreadyStartedError)) return { started: false, error: startErr };
      }
      return { started: true, placement: null };
    }
    const started = await start.workflowHandle().then(
      () => true,
      () => false,
    );
    return started ? { started: true, error: err } : { started: false, error: err };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A call's workflows in the Temporal UI: found by workspace, id or number; named by its person
 * (and number) where the call names one, else its number. No `ResourceStatus`: the lifecycle
 * shows the call's status as its current details, since an upsert on every move cost each call
 * an event and a billed action (issue 36 §3), and a start value never moved would go stale.
 */
export function callVisibility(call: Pick<CallDoc, '_id' | 'tenant_id' | 'to' | 'metadata' | 'detail_lines' | 'purpose' | 'direction'>) {
  return visibilityOptions({ workspaceId: call.tenant_id, kind: 'call', id: call._id, phoneNumber: call.to, ...callNaming(call) });
}
