import type { Db } from 'mongodb';
import type { Config } from '../config';
import type { WorkspaceDoc } from '../db/collections';
import { newId } from '../domain/ids';
import { callWorkflowId, placementUpdate, type Placement } from './contracts';
import { releaseLiveSlot, returnDailyBudget } from './admission';
import { callCollections, deploymentId, newCallDoc, type CallDoc } from './callStore';
import { normaliseDetails } from './details';
import { admitCall, CallRefusal } from './guards';
import { startCallWorkflow, type CallStartDeps } from './startCall';
import type { Capture } from './types';

/**
 * Placing one outbound AI call for a workspace: the guards (admission), the call's first read
 * model, the start of its workflow, and the undo of all of it when the start fails. POST
 * /calls, and campaigns after it, place calls only through here.
 */

export interface PlaceCallDeps extends CallStartDeps {
  db: Db;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'DEPLOYMENT_CHANNELS'>;
  now: () => Date;
  /**
   * How long to wait for the network to place the call before answering it ringing anyway
   * (the wait is then cancelled, not left polling); 0 does not wait.
   */
  placementWaitMs: number;
}

/** What a caller asks for: the POST /calls fields, already validated (metadata by src/domain/metadata.ts). */
export interface PlaceCallRequest {
  to: string;
  agent_id: string | null;
  from_number: string | null;
  purpose: string | null;
  script: string | null;
  details: Record<string, string | number | boolean | null>;
  capture: Capture | null;
  ring_seconds: number;
  metadata: Record<string, unknown>;
}

export type PlaceCallOutcome =
  /** Dialling: the network placed it, or did not answer within the wait. */
  | { kind: 'ringing'; call: CallDoc }
  /** A guard said no; nothing was written or taken. */
  | { kind: 'refused'; refusal: CallRefusal }
  /** The network refused to place it; the call exists and ends as failed. */
  | { kind: 'not_placed'; call: CallDoc };

/** What only a campaign asks of the use case; POST /calls passes none. */
export interface PlaceCallOptions {
  /**
   * The call's id, chosen by a caller that records it first (a campaign's recipient), so a
   * retried attempt places the same call: the engine refuses a second workflow with this id.
   */
  callId?: string;
  /** See `CallRequestForGuards.dailyBudget`. */
  dailyBudget?: 'count' | 'exempt';
}

export async function placeCall(
  deps: PlaceCallDeps,
  workspace: WorkspaceDoc,
  request: PlaceCallRequest,
  options: PlaceCallOptions = {},
): Promise<PlaceCallOutcome> {
  const at = deps.now();
  const callId = options.callId ?? newId('call', at);
  let admitted;
  try {
    admitted = await admitCall(
      { db: deps.db, deploymentChannels: deps.config.DEPLOYMENT_CHANNELS },
      workspace,
      { to: request.to, from_number: request.from_number, agent_id: request.agent_id, dailyBudget: options.dailyBudget ?? 'count' },
      callId,
      at,
    );
  } catch (err) {
    if (err instanceof CallRefusal) return { kind: 'refused', refusal: err };
    throw err;
  }

  const call = newCallDoc({
    _id: callId,
    tenant_id: workspace._id,
    direction: 'outbound',
    status: 'ringing',
    to: admitted.to,
    from_number: admitted.number._id,
    agent_id: admitted.agent._id,
    requested_agent_id: request.agent_id,
    deployment_id: deploymentId(admitted.number._id, admitted.agent._id),
    purpose: request.purpose,
    script: request.script,
    detail_lines: normaliseDetails(request.details),
    capture: request.capture,
    ring_seconds: request.ring_seconds,
    max_call_seconds: admitted.agent.max_call_minutes * 60,
    metadata: request.metadata,
    recording: admitted.number.recording,
    reserved_minutes: admitted.reservedMinutes,
    budget_day: admitted.budgetDay,
    budget_reserved: admitted.budgetReserved,
    created_at: at,
  });
  const { calls } = callCollections(deps.db);
  try {
    await calls.insertOne(call);
    await startCallWorkflow(deps, call);
  } catch (err) {
    // Nothing was dialled: give back the places taken, and leave no live-looking record.
    await releaseLiveSlot(deps.db, workspace._id, callId);
    if (admitted.budgetReserved) await returnDailyBudget(deps.db, workspace._id, admitted.budgetDay, admitted.reservedMinutes, callId);
    await calls.deleteOne({ _id: callId });
    throw err;
  }

  const placement = deps.placementWaitMs > 0 ? await waitForPlacement(deps, callId) : null;
  return placement && !placement.placed ? { kind: 'not_placed', call } : { kind: 'ringing', call };
}

/** The network's answer, or null when it has not come within the wait. */
async function waitForPlacement(deps: PlaceCallDeps, callId: string): Promise<Placement | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deps.placementWaitMs);
  try {
    return await deps.temporal.withAbortSignal(controller.signal, () =>
      deps.temporal.workflow.getHandle(callWorkflowId(callId)).executeUpdate(placementUpdate),
    );
  } catch (err) {
    if (controller.signal.aborted) return null;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
