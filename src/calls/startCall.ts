import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../config';
import { visibilityOptions } from '../temporal/searchAttributes';
import { startWorkflow } from '../temporal/startWorkflow';
import { callWorkflowDefinition, callWorkflowId, type CallWorkflowInput, type Placement } from './contracts';
import { callCollections, type CallDoc } from './callStore';
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
 * Starts the call's lifecycle and waits up to `waitMs` for the network's answer
 * (`awaitPlacement`). When the wait runs out during the start, whether it landed is not known
 * here: a plain start settles it, the engine refusing a second run of the call id.
 */
export async function startCallAwaitingPlacement(deps: PlacementWaitDeps, call: CallDoc, waitMs: number): Promise<StartedCall> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), waitMs);
  try {
    try {
      await deps.temporal.withAbortSignal(controller.signal, () => startCallWorkflow(deps, call));
    } catch (err) {
      if (controller.signal.aborted) {
        try {
          await startCallWorkflow(deps, call);
        } catch (startErr) {
          if (!(startErr instanceof WorkflowExecutionAlreadyStartedError)) return { started: false, error: startErr };
        }
        return { started: true, placement: null };
      }
      // A new call's id refused as started is this start landing before a retry of its request.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) return { started: false, error: err };
    }
    return { started: true, placement: await awaitPlacement(deps, call._id, controller.signal) };
  } catch (err) {
    return { started: true, error: err };
  } finally {
    clearTimeout(timer);
  }
}

/** What waiting for a placement reads: the call's history (Temporal) and its read model. */
export interface PlacementWaitDeps extends CallStartDeps {
  db: Db;
}

/**
 * The network's answer to placing a started call, or null when `signal` ends the wait first.
 * The lifecycle places the call in its first workflow task, then starts the ring timer (placed)
 * or ends the call `failed` (refused), so the wait follows the call's history with Temporal's
 * long poll (`waitNewEvent`: answered as soon as events are written): a timer started is the
 * placement; a task completed without one, or the run closed, is settled by the read model,
 * which the placing step wrote in that task (`placed_at`, or the call ended `failed`). It writes
 * nothing to the history: the `placement` update it replaces (issue 36) cost every call two
 * events (accepted and completed) and a billed action (issue 36 §3, fifth round;
 * docs/decisions/calls.md). A query was tried and rejected: one that reaches the worker with the
 * task while its placing local activity runs makes the worker complete the task early and ask
 * for another (three events).
 */
export async function awaitPlacement(deps: PlacementWaitDeps, callId: string, signal: AbortSignal): Promise<Placement | null> {
  const client = deps.temporal;
  let nextPageToken: Uint8Array | undefined;
  try {
    for (;;) {
      const page = await client.withAbortSignal(signal, () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId: callWorkflowId(callId) },
          waitNewEvent: true,
          skipArchival: true,
          nextPageToken,
        }),
      );
      const events = page.history?.events ?? [];
      // The lifecycle starts its ring timer only once the network has placed the call.
      if (events.some((e) => e.timerStartedEventAttributes)) return { placed: true, error: null };
      // No token: the run has closed and this was its last page.
      const closed = !page.nextPageToken?.length;
      if (closed || events.some((e) => e.workflowTaskCompletedEventAttributes)) {
        const placement = placementRecorded(await callCollections(deps.db).calls.findOne({ _id: callId }, { projection: { placed_at: 1, ended_at: 1, status: 1 } }));
        if (placement || closed) return placement;
      }
      nextPageToken = page.nextPageToken ?? undefined;
    }
  } catch (err) {
    if (signal.aborted) return null;
    throw err;
  }
}

/** The placement as the read model holds it: placed, refused (the call ended `failed` unplaced), or not yet known (null). */
function placementRecorded(call: Pick<CallDoc, 'placed_at' | 'ended_at' | 'status'> | null): Placement | null {
  if (call?.placed_at) return { placed: true, error: null };
  if (call?.ended_at) return call.status === 'failed' ? { placed: false, error: 'The call was not placed.' } : { placed: true, error: null };
  return null;
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
