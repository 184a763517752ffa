/**
 * Messages and inputs of the call workflows, shared by the API, the activities and the
 * workflows. Workflow ids: the call's workflow id is the `call_id` (the engine refuses a
 * second call with the same id); a simulated callee is `sim-<call_id>`; a console re-read
 * is `<call_id>:read:<n>` (one per requested reading).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CallDirection, CallOutcome, CallStatus, NetworkOutcome } from '../src/calls/types';
import type { LineEvent } from '../src/providers/voice/types';

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

/** The provider reports what happens on the line. */
export const lineEventSignal = defineSignal<[LineEvent]>('lineEvent');
/** Resolves once the network has placed the call or refused it. */
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

export const stopCalleeSignal = defineSignal('stopCallee');

export function simulatedCalleeWorkflowId(callId: string): string {
  return `sim-${callId}`;
}
