import type { Collection, Db, IndexDescription } from 'mongodb';
import { insertIfAbsent } from '../../db/insertIfAbsent';
import type { TranscriptTurn } from '../types';

/**
 * One spoken turn on a real line, as the media bridge heard it: the transcript the reader
 * reads. `seq` numbers the call's turns in the bridge's order, so a turn stored twice (a
 * retried write) is stored once.
 */
export interface LineTurnDoc {
  /** `<call id>:<seq>`. */
  _id: string;
  call_id: string;
  tenant_id: string;
  seq: number;
  role: TranscriptTurn['role'];
  text: string;
  /** When the turn began, on the media stream's clock. */
  at: Date;
  /**
   * `trail`: not a spoken turn but a row of the call's internal trail (a tool's lookup or run,
   * a hold line said while a tool ran): kept for the call's conversation, never read as
   * transcript. Absent on spoken turns.
   */
  kind?: 'trail';
  /** A trail row's own kind and facts (src/agents/agentTool.ts TrailEntry). */
  trail?: { kind: 'lookup' | 'tool' | 'hold'; detail?: Record<string, unknown> };
}

export const LINE_TURN_INDEXES: Record<string, IndexDescription[]> = {
  line_turns: [{ key: { call_id: 1, seq: 1 }, name: 'call_seq' }],
};

function lineTurns(db: Db): Collection<LineTurnDoc> {
  return db.collection<LineTurnDoc>('line_turns');
}

export async function appendLineTurn(db: Db, turn: Omit<LineTurnDoc, '_id'>): Promise<void> {
  await insertIfAbsent(lineTurns(db), { _id: `${turn.call_id}:${turn.seq}`, ...turn });
}

/** Rewrites a stored turn's text (an agent turn cut where the caller interrupted it); null removes the turn. */
export async function reviseLineTurn(db: Db, callId: string, seq: number, text: string | null): Promise<void> {
  const _id = `${callId}:${seq}`;
  if (text === null) await lineTurns(db).deleteOne({ _id });
  else await lineTurns(db).updateOne({ _id }, { $set: { text } });
}

/**
 * A call's turns in the bridge's order, read by their `_id`s (`<call id>:<seq>`, every one above
 * `<call id>:` and below `<call id>;`): a range FerretDB's patched build answers from its `_id`
 * index (docs/decisions/platform.md), where a `call_id` filter scanned every call's turns at each
 * call's end. Sorted by `seq` here: the ids order `:10` before `:2`.
 */
async function callTurns(db: Db, callId: string): Promise<LineTurnDoc[]> {
  const docs = await lineTurns(db)
    .find({ _id: { $gt: `${callId}:`, $lt: `${callId};` } })
    .toArray();
  return docs.sort((a, b) => a.seq - b.seq);
}

/** The call's turns said while connected: at most `connectedSeconds` after `answeredAt`. */
export async function readLineTurns(db: Db, callId: string, answeredAt: Date, connectedSeconds: number): Promise<TranscriptTurn[]> {
  const docs = await callTurns(db, callId);
  return docs
    .filter((doc) => doc.kind !== 'trail')
    .map((doc) => ({ role: doc.role, text: doc.text, at_seconds: Math.max(0, Math.round((doc.at.getTime() - answeredAt.getTime()) / 1000)) }))
    .filter((turn) => turn.at_seconds <= connectedSeconds);
}

/**
 * The call's conversation as the bridge heard it: the spoken turns said while connected and
 * the trail rows among them, in the bridge's order (`seq`), with their own times. Null when
 * the call has no trail rows, so a call without tools is recorded from its transcript as before.
 */
export async function readLineConversation(
  db: Db,
  callId: string,
  answeredAt: Date,
  connectedSeconds: number,
): Promise<{ role: TranscriptTurn['role']; text: string; at: Date; kind: 'turn' | 'trail' }[] | null> {
  const docs = await callTurns(db, callId);
  if (!docs.some((doc) => doc.kind === 'trail')) return null;
  const secondsIn = (doc: LineTurnDoc) => Math.max(0, Math.round((doc.at.getTime() - answeredAt.getTime()) / 1000));
  return docs
    .filter((doc) => secondsIn(doc) <= connectedSeconds)
    .map((doc) => ({ role: doc.role, text: doc.text, at: doc.at, kind: doc.kind ?? 'turn' }));
}
