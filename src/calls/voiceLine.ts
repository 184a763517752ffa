import type { Capture, CallDirection, CallOutcome, TranscriptTurn } from './types';
import type { DetailLine } from './details';

/**
 * The voice provider (a telephony platform with the AI agent on the line). It places and
 * ends calls and supplies transcripts; it reports what happens on the line (answered,
 * handed to a human, ended) as signals to the call's workflow.
 */
export interface OriginateRequest {
  callId: string;
  tenantId: string;
  direction: CallDirection;
  to: string;
  fromNumber: string;
  agentId: string;
  ringSeconds: number;
  /** The fixed outbound opening, then what the agent is told. */
  opening: string;
  purpose: string | null;
  script: string | null;
  detailLines: DetailLine[];
  capture: Capture | null;
  /** When the workflow asked (ISO), so a retried originate plans the same call. */
  requestedAt: string;
}

export interface VoiceProvider {
  /** Places the call; throws `OriginateRefused` when the network will not place it. Idempotent per call id. */
  originate(request: OriginateRequest): Promise<{ providerCallId: string }>;
  /** Ends the call if it is still up; safe to repeat. */
  hangup(callId: string): Promise<void>;
  /** What was said while connected (the first `connectedSeconds` seconds after `answeredAt`, ISO). */
  transcript(callId: string, connectedSeconds: number, answeredAt: string): Promise<TranscriptTurn[]>;
  /**
   * Where the call's recording is stored, when the line records (a real line: what the media
   * bridge wrote). Absent: the provider keeps no recordings of its own, and a recorded call
   * is given the conventional `storage://recordings/<workspace>/<call>.ogg` reference.
   */
  recordingUri?(callId: string): Promise<string | null>;
  /**
   * The call's workflow has taken the line's end and is ending the call: a later report of
   * that end from the network is not signalled to it (a real line: `ended_by_us_at`). A
   * signal landing while the workflow's last task runs fails that task, which then runs its
   * end step (the reader with it) again. Absent: nothing reports an end twice (the simulator).
   */
  endTaken?(callId: string): Promise<void>;
}

/** What the network says on the line, delivered to the call workflow as the `lineEvent` signal. */
export type LineEvent =
  | { kind: 'answered'; at?: string }
  | { kind: 'human_handoff'; at?: string }
  | { kind: 'human_active'; at?: string }
  | { kind: 'ended'; outcome: CallOutcome; at?: string; answeredAt?: string };
// `at` (ISO) is the provider's own time of the event when it gives one (a real line); the call
// computes its connection and duration from it rather than from when the workflow took the signal.
// `answeredAt` on `ended` (ISO) is the line's own time of the answer when its report of the end
// carries one (a `completed` report with the call's length): an answer reported after the
// end, or never, is still the line's (issue 32).

/**
 * What the agent on a real line may ask the telephony network to do. The media bridge calls
 * it after it has told the call's workflow why (an `ended` or `human_handoff` line event), so
 * the network's own hang-up report that follows never decides the outcome.
 */
export interface LineControl {
  /** Ends the call on the network; safe to repeat. */
  endCall(callId: string): Promise<void>;
  /** Hands the caller to a person on `to` (the number's team line); the agent leaves the line. */
  transferCall(callId: string, to: string): Promise<void>;
}

export class OriginateRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OriginateRefused';
  }
}
