import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../config';
import type { WorkspaceDoc } from '../db/collections';
import { newId } from '../domain/ids';
import type { Placement } from './contracts';
import { releaseLiveSlot, returnDailyBudget } from './admission';
import { writeCallEntries } from './callEntries';
import { callCollections, deploymentId, newCallDoc, type CallDoc } from './callStore';
import { normaliseDetails } from './details';
import { admitCall, CallRefusal } from './guards';
import { awaitPlacement, startCallAwaitingPlacement, startCallWorkflow, type CallStartDeps, type StartedCall } from './startCall';
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

/** What a worker-side caller (a call-back, a campaign step) holds to place calls. */
export interface WorkerPlacingDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  deploymentChannels: readonly string[];
}

/**
 * `placeCall`'s dependencies for a caller inside the worker: the time its workflow read once
 * (a retry places the same call), and no wait for the network, since that workflow follows
 * the call rather than a waiting client.
 */
export function placeCallDeps(deps: WorkerPlacingDeps, now: Date): PlaceCallDeps {
  return {
    db: deps.db,
    temporal: deps.temporal,
    config: { TEMPORAL_TASK_QUEUE: deps.taskQueue, DEPLOYMENT_CHANNELS: [...deps.deploymentChannels] as Config['DEPLOYMENT_CHANNELS'] },
    now: () => now,
    placementWaitMs: 0,
  };
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

/**
 * The call of a POST /calls with an Idempotency-Key, named by the key's record (its id and
 * when its first request claimed it): a request that takes over the claim of one that died
 * mid-request places the same call, found written (or its workflow refused as a duplicate),
 * never a second one (issue 32). Shaped as every call id: the first request's time in
 * milliseconds, then 12 hex digits, here of the record's id rather than random.
 */
export function requestCallId(record: { recordId: string; firstAt: Date }): string {
  const time = record.firstAt.getTime().toString(16).padStart(12, '0');
  return `call_${time}${createHash('sha256').update(record.recordId).digest('hex').slice(0, 12)}`;
}

export async function placeCall(
  deps: PlaceCallDeps,
  workspace: WorkspaceDoc,
  request: PlaceCallRequest,
  options: PlaceCallOptions = {},
): Promise<PlaceCallOutcome> {
  const at = deps.now();
  const callId = options.callId ?? newId('call', at);
  if (options.callId) {
    // Placed before by a request that did not finish (it died after writing the call): carry
    // that call on, without taking its places again.
    const earlier = await callCollections(deps.db).calls.findOne({ _id: callId });
    if (earlier?.tenant_id === workspace._id) return placeAgain(deps, earlier);
  }
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
  let started: StartedCall;
  try {
    // Its list entries first: a crash between leaves an entry without a call (skipped), never a call missing from a list.
    await writeCallEntries(deps.db, [call]);
    await calls.insertOne(call);
    if (deps.placementWaitMs > 0) {
      started = await startCallAwaitingPlacement(deps, call, deps.placementWaitMs);
    } else {
      await startCallWorkflow(deps, call);
      started = { started: true, placement: null };
    }
  } catch (err) {
    started = { started: false, error: err };
  }
  if (!started.started) {
    // Nothing was dialled: give back the places taken, and leave no live-looking record.
    await releaseLiveSlot(deps.db, workspace._id, callId);
    if (admitted.budgetReserved) await returnDailyBudget(deps.db, workspace._id, admitted.budgetDay, admitted.reservedMinutes, callId);
    await calls.deleteOne({ _id: callId });
    throw started.error;
  }
  // Started, and then the wait for its placement failed: the lifecycle runs on and ends the call.
  if ('error' in started) throw started.error;
  return started.placement && !started.placement.placed ? { kind: 'not_placed', call } : { kind: 'ringing', call };
}

/**
 * A written call asked to be placed again: its lifecycle is started if the first request died
 * before starting it (Temporal refuses a duplicate, even of a closed run), and the answer is
 * the call as the network placed it. A call already over (ended by the live-place sweeper, or
 * by its own lifecycle) is answered as it is.
 */
async function placeAgain(deps: PlaceCallDeps, call: CallDoc): Promise<PlaceCallOutcome> {
  if (call.ended_at) return call.status === 'failed' ? { kind: 'not_placed', call } : { kind: 'ringing', call };
  try {
    await startCallWorkflow(deps, call);
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return answerPlacement(deps, call);
}

/** The call as the network placed it, when its answer comes within the wait; else still ringing. */
async function answerPlacement(deps: PlaceCallDeps, call: CallDoc): Promise<PlaceCallOutcome> {
  const placement = deps.placementWaitMs > 0 ? await waitForPlacement(deps, call._id) : null;
  return placement && !placement.placed ? { kind: 'not_placed', call } : { kind: 'ringing', call };
}

/** The network's answer, or null when it has not come within the wait. */
async function waitForPlacement(deps: PlaceCallDeps, callId: string): Promise<Placement | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deps.placementWaitMs);
  try {
    return await awaitPlacement(deps, callId, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
