import type { Collection, Db, IndexDescription } from 'mongodb';
import type { DetailLine } from './details';
import { pendingResult, type Capture, type CallDirection, type CallOutcome, type CallResult, type CallStatus, type TranscriptTurn } from './types';
import { FailureType, permanentFailure } from '../temporal/failures';

/**
 * The call read model. The API writes the first version (so a GET right after the 201
 * finds it); after that only the call workflow's activities write it, each write carrying
 * the workflow's step number so a retried or late write never moves a call backwards.
 */
export interface CallDoc {
  _id: string;
  tenant_id: string;
  direction: CallDirection;
  status: CallStatus;
  /** E.164: the number dialled (outbound) or the caller's number (inbound). */
  to: string;
  /** Digits only: caller ID (outbound) or the number dialled (inbound). */
  from_number: string;
  /** The agent deployed to the caller-ID number: the one that speaks. */
  agent_id: string;
  /** What the request's `agent_id` said (echoed on create only). */
  requested_agent_id: string | null;
  deployment_id: string;
  purpose: string | null;
  script: string | null;
  detail_lines: DetailLine[];
  capture: Capture | null;
  ring_seconds: number;
  max_call_seconds: number;
  metadata: Record<string, unknown>;
  recording: boolean;
  recording_uri: string | null;
  duration_seconds: number | null;
  outcome: CallOutcome | null;
  summary: string | null;
  placed_at: Date | null;
  /** When the call was answered (connected); null for calls never answered. */
  started_at: Date | null;
  ended_at: Date | null;
  transcript: TranscriptTurn[] | null;
  /**
   * When the retention pass removed the transcript (TRANSCRIPT_RETENTION_DAYS,
   * src/calls/transcriptRetention.ts); absent while it is kept. A re-read is refused after it.
   */
  transcript_removed_at?: Date;
  result: Omit<CallResult, 'read_at'> & { read_at: Date | null };
  /** How many readings have landed; numbers each `call.outcome`. */
  readings: number;
  /** Console re-reads requested; the next re-read is reading `read_requests + 2`. */
  read_requests: number;
  reserved_minutes: number;
  /** The UTC day whose budget this call counted against. */
  budget_day: string;
  /**
   * False for a campaign call of a workspace whose campaign calls do not count against the
   * daily budget (docs/decisions/README.md): nothing was reserved, so nothing is given back. Absent
   * on calls written before the field existed, which all reserved.
   */
  budget_reserved?: boolean;
  billed_minutes: number | null;
  /** The workflow step that wrote the current state. */
  step: number;
  created_at: Date;
  updated_at: Date;
}

/**
 * Claims that a call's one-time side effect happened (`<call_id>|released`,
 * `<call_id>|billed`): a unique insert, because conditional updates are not atomic on
 * FerretDB 1.x.
 */
export interface CallEffectDoc {
  _id: string;
  at: Date;
  /** `|billed` only: claimed, the plan not yet changed (src/calls/billing.ts). */
  pending?: true;
}

export interface CallCollections {
  calls: Collection<CallDoc>;
  effects: Collection<CallEffectDoc>;
}

/**
 * The console's recent calls (src/calls/callList.ts): a workspace's calls newest first, any
 * filter applied to that order. MongoDB answers from it; FerretDB on SQLite walks its `_id`
 * index instead, newest first, for the list's `_id` range (docs/decisions/console.md, "Recent calls").
 */
export const CALL_INDEXES: Record<string, IndexDescription[]> = {
  calls: [{ key: { tenant_id: 1, _id: -1 }, name: 'tenant_newest' }],
};

export function callCollections(db: Db): CallCollections {
  return {
    calls: db.collection<CallDoc>('calls'),
    effects: db.collection<CallEffectDoc>('call_effects'),
  };
}

/** `dep_` + the number's digits and the agent: one number has one agent at a time. */
export function deploymentId(numberDigits: string, agentId: string): string {
  return `dep_${numberDigits}_${agentId.replace(/^bot_/, '')}`;
}

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** What differs between new calls; everything else starts empty. */
export type NewCall = Pick<
  CallDoc,
  | '_id'
  | 'tenant_id'
  | 'direction'
  | 'status'
  | 'to'
  | 'from_number'
  | 'agent_id'
  | 'requested_agent_id'
  | 'deployment_id'
  | 'ring_seconds'
  | 'max_call_seconds'
  | 'recording'
  | 'created_at'
> &
  Partial<Pick<CallDoc, 'purpose' | 'script' | 'detail_lines' | 'capture' | 'metadata' | 'reserved_minutes' | 'budget_day' | 'budget_reserved'>>;

/** A call's first read model, written before its workflow starts so a GET finds it at once. */
export function newCallDoc(init: NewCall): CallDoc {
  return {
    purpose: null,
    script: null,
    detail_lines: [],
    capture: null,
    metadata: {},
    reserved_minutes: 0,
    budget_day: utcDay(init.created_at),
    ...init,
    recording_uri: null,
    duration_seconds: null,
    outcome: null,
    summary: null,
    placed_at: null,
    started_at: null,
    ended_at: null,
    transcript: null,
    result: { ...pendingResult(), read_at: null },
    readings: 0,
    read_requests: 0,
    billed_minutes: null,
    step: 1,
    updated_at: init.created_at,
  };
}

/**
 * A call of the workspace by id; another workspace's call is as missing as an unknown one.
 * Read by `_id` alone and the workspace compared here: on FerretDB (SQLite) any other filter
 * makes it decode every call in the collection (DESIGN.md), and GET is what clients poll.
 */
export async function findCall(db: Db, tenantId: string, callId: string): Promise<CallDoc | null> {
  const call = await callCollections(db).calls.findOne({ _id: callId });
  return call?.tenant_id === tenantId ? call : null;
}

/** The call's read model; missing is missing for good (the API writes it before it starts the workflow). */
export async function loadCall(db: Db, callId: string): Promise<CallDoc> {
  const call = await callCollections(db).calls.findOne({ _id: callId });
  if (!call) throw permanentFailure(FailureType.ReadModelMissing, `call ${callId} has no read model`);
  return call;
}

/** Moves the read model forward, never back: only a write from a later step applies. */
export async function advanceCall(db: Db, callId: string, step: number, set: Partial<CallDoc>): Promise<boolean> {
  const updated = await callCollections(db).calls.updateOne({ _id: callId, step: { $lt: step } }, { $set: { ...set, step, updated_at: new Date() } });
  return updated.modifiedCount === 1;
}
