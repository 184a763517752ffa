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

/** The call's turns said while connected: at most `connectedSeconds` after `answeredAt`. */
export async function readLineTurns(db: Db, callId: string, answeredAt: Date, connectedSeconds: number): Promise<TranscriptTurn[]> {
  const docs = await lineTurns(db).find({ call_id: callId }).sort({ seq: 1 }).toArray();
  return docs
    .map((doc) => ({ role: doc.role, text: doc.text, at_seconds: Math.max(0, Math.round((doc.at.getTime() - answeredAt.getTime()) / 1000)) }))
    .filter((turn) => turn.at_seconds <= connectedSeconds);
}
