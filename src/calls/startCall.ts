import { setTimeout as sleep } from 'node:timers/promises';
import { QueryNotRegisteredError, WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import { isFailedPrecondition } from '../temporal/grpcStatus';
import { visibilityOptions } from '../temporal/searchAttributes';
import { startWorkflow } from '../temporal/startWorkflow';
import { callWorkflowDefinition, callWorkflowId, placementQuery, placementUpdate, type CallWorkflowInput, type Placement } from './contracts';
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
 * Starts the call's lifecycle and waits up to `waitMs` for the network's answer. The lifecycle
 * places the call in its first workflow task, and the answer is read with the `placement`
 * query, which Temporal holds until that task has completed: a start and a query, where the
 * update-with-start this replaces (issue 36) cost every call two history events (the update
 * accepted and completed) for the same wait (issue 36 §3, fifth round). When the wait runs out
 * during the start, whether it landed is not known here: a plain start settles it, the engine
 * refusing a second run of the call id.
 */
export async function startCallAwaitingPlacement(deps: CallStartDeps, call: CallDoc, waitMs: number): Promise<StartedCall> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), waitMs);
  try {
    try {
      await deps.temporal.withAbortSignal(controller.signal, () => startCallWorkflow(deps, call));
    } catch (err) {
      if (!controller.signal.aborted) return { started: false, error: err };
      try {
        await startCallWorkflow(deps, call);
      } catch (startErr) {
        if (!(startErr instanceof WorkflowExecutionAlreadyStartedError)) return { started: false, error: startErr };
      }
      return { started: true, placement: null };
    }
    return { started: true, placement: await awaitPlacement(deps.temporal, call._id, controller.signal) };
  } catch (err) {
    return { started: true, error: err };
  } finally {
    clearTimeout(timer);
  }
}

/** Between two queries that found the placement not yet known (its step retrying, say), so the wait does not spin. */
const PLACEMENT_REQUERY_MS = 100;

/**
 * The network's answer to placing a started call, or null when `signal` ends the wait first.
 * A query sent while a workflow task is pending is answered after it, so the first query
 * usually finds the placement; one answered before it (a placing step still retrying, a
 * workflow task failing) is asked again shortly. A worker that has no `placement` query yet (a
 * release rolling out) is waited on through the `placement` update, as before.
 */
export async function awaitPlacement(client: Client, callId: string, signal: AbortSignal): Promise<Placement | null> {
  const handle = client.workflow.getHandle(callWorkflowId(callId));
  try {
    for (;;) {
      let placement: Placement | null = null;
      try {
        placement = await client.withAbortSignal(signal, () => handle.query(placementQuery));
      } catch (err) {
        if (err instanceof QueryNotRegisteredError) return await client.withAbortSignal(signal, () => handle.executeUpdate(placementUpdate));
        // "Not ready": its workflow task keeps failing; the update waited through that too.
        if (!isFailedPrecondition(err)) throw err;
      }
      if (placement) return placement;
      await sleep(PLACEMENT_REQUERY_MS, undefined, { signal });
    }
  } catch (err) {
    if (signal.aborted) return null;
    throw err;
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
