/**
 * What the API, the activities and the call workflows share: inputs, results, messages,
 * workflow types and workflow ids. Workflow ids: the call's workflow id is the `call_id`
 * (the engine refuses a second call with the same id); a simulated callee is `sim-<call_id>`;
 * a console re-read is `<call_id>:read:<n>` (one per requested reading).
 *
 * Imported by workflow code: the SDK's define* helpers and types only, no I/O.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineWorkflow } from '../temporal/workflowDefinition';
import type { CallDirection, CallOutcome, CallResult, CallStatus, NetworkOutcome } from './types';
import type { LineEvent } from './voiceLine';

export interface CallWorkflowInput {
  callId: string;
  tenantId: string;
  direction: CallDirection;
  ringSeconds: number;
  maxCallSeconds: number;
  /** When the API accepted the call (ISO). */
  createdAt: string;
}

export interface Placement {
  placed: boolean;
  /** Why the network refused, when it did. */
  error: string | null;
}

export interface CallWorkflowResult {
  status: CallStatus;
  outcome: CallOutcome;
  durationSeconds: number;
  resultState: 'ready' | 'failed';
}

export type CallWorkflow = (input: CallWorkflowInput) => Promise<CallWorkflowResult>;
/** One call's lifecycle (workflows/calls/callLifecycleV2.ts): every call placed or accepted now starts this type. */
export const callWorkflowDefinition = defineWorkflow<CallWorkflow>('callLifecycleV2');
/** The lifecycle calls had from issue 36 until its V2 (workflows/calls/callLifecycle.ts): hosted so their open runs finish; nothing starts it. */
export const callLifecycleV1Definition = defineWorkflow<CallWorkflow>('callLifecycle');
/** The lifecycle calls had before issue 36 (workflows/calls/call.ts): hosted so their open runs finish; nothing starts it. */
export const callWorkflowBeforeIssue36Definition = defineWorkflow<CallWorkflow>('callWorkflow');

/** The provider reports what happens on the line. */
export const lineEventSignal = defineSignal<[LineEvent]>('lineEvent');
/**
 * Resolves once the network has placed the call or refused it. The API no longer sends it (it
 * waits through the history and the read model: src/calls/startCall.ts, issue 36 §3); kept for
 * an API of the release before and the stored histories that carry it.
 */
export const placementUpdate = defineUpdate<Placement>('placement');
/** Ends a ringing or connected call; true when a hang-up was sent. */
export const hangupUpdate = defineUpdate<boolean>('hangup');
export const statusQuery = defineQuery<CallStatus>('status');

export function callWorkflowId(callId: string): string {
  return callId;
}

export interface ReadCallInput {
  callId: string;
  tenantId: string;
  /** Which reading this is (1 for the first); numbers its `call.outcome`. */
  reading: number;
  /** A console re-read keeps a ready result when it fails, instead of replacing it with `failed`. */
  reread: boolean;
}

/** The result's state after the reading: `ready` or `failed` (or what a recorded reading left). */
export type ReadingState = CallResult['state'];

export type RereadCall = (input: ReadCallInput) => Promise<ReadingState>;
/** A console re-read of a finished call (workflows/calls/rereadCall.ts). */
export const rereadCallDefinition = defineWorkflow<RereadCall>('rereadCall');

/**
 * The reader activity heartbeats this often while it waits for the reader's answer; its
 * heartbeat timeout (workflows/calls/activityOptions.ts) is a few of these.
 */
export const READER_HEARTBEAT_INTERVAL_MS = 5_000;

export function rereadWorkflowId(callId: string, reading: number): string {
  return `${callId}:read:${reading}`;
}

/** The simulated callee's timeline, decided once when the call is placed. */
export interface SimulatedCallPlan {
  callId: string;
  ringSeconds: number;
  answer: boolean;
  networkOutcome: NetworkOutcome;
  /** Connected seconds until the line ends; null: never ends by itself. */
  talkSeconds: number | null;
  endOutcome: CallOutcome;
  handoffAfterSeconds: number | null;
}

export type SimulatedCallee = (plan: SimulatedCallPlan) => Promise<void>;
/** The simulated person and network on the other end of a call (workflows/calls/simulatedCallee.ts). */
export const simulatedCalleeDefinition = defineWorkflow<SimulatedCallee>('simulatedCallee');

export const stopCalleeSignal = defineSignal('stopCallee');

export function simulatedCalleeWorkflowId(callId: string): string {
  return `sim-${callId}`;
}

/** A call-back an agent promised (its built-in `schedule_call_back`): who to call, when, and why. */
export interface CallBackInput {
  /** `cb_…`, derived from the tool run (src/calls/callBack.ts): the workflow id, so the engine refuses a second. */
  callBackId: string;
  tenantId: string;
  to: string;
  agentId: string;
  fromNumber: string | null;
  purpose: string;
  /** When to ring (ISO). */
  at: string;
}

export interface CallBackResult {
  /** The call placed, or null when a guard refused it then. */
  callId: string | null;
  refusal: string | null;
}

export type CallBack = (input: CallBackInput) => Promise<CallBackResult>;
/** One per scheduled call-back (workflows/calls/callBack.ts): a durable timer, then the call placed like POST /calls. */
export const callBackDefinition = defineWorkflow<CallBack>('callBack');
