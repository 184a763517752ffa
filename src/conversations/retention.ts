import type { Db } from 'mongodb';
import { sweepIdRange, type SweepPace } from '../db/idRangeSweep';
import { deleteTurnsWithEntries, TURN_ENTRY_FIELDS } from './conversationEntries';
import { conversationMessagesCollection } from './store';

/**
 * Deletes conversation turns past their retention (the worker's retention pass runs it):
 * every turn recorded before `turnsBefore` (TRANSCRIPT_RETENTION_DAYS), and trail rows
 * recorded before `trailBefore` (TRAIL_RETENTION_DAYS, sooner). Turn ids are time-ordered
 * (`storedOrderMessageId`, `messageIdFor`: the turn's millisecond first), so both walk the
 * `_id` index from the oldest turn, a paced batch at a time (src/db/idRangeSweep.ts); the trail sweep's filter skips the
 * turns it keeps inside FerretDB, and its mark keeps it from walking them twice.
 *
 * Each turn's transcript entry (src/conversations/conversationEntries.ts) goes with it: the walk
 * reads each turn's conversation with its id, so finding the entries costs no read.
 *
 * The conversation itself stays, with its `message_count` and `preview`: both describe its
 * history, and lowering the count would race the live recorder's writes, which FerretDB does
 * not make atomic. A transcript page simply no longer holds the removed turns
 * (docs/decisions/platform.md "Expiry and retention").
 */
export async function sweepExpiredTurns(db: Db, cutoffs: { turnsBefore: Date; trailBefore: Date }, pace: SweepPace = {}): Promise<{ turns: number; trail: number }> {
  const messages = conversationMessagesCollection(db);
  const turns = await sweepIdRange(db, messages, {
    ...pace,
    mark: 'conversation_messages:turns',
    prefix: 'msg',
    before: cutoffs.turnsBefore,
    fields: TURN_ENTRY_FIELDS,
    act: deleteTurnsWithEntries(db),
  });
  const trail = await sweepIdRange(db, messages, {
    ...pace,
    mark: 'conversation_messages:trail',
    prefix: 'msg',
    before: cutoffs.trailBefore,
    filter: { kind: 'trail' },
    fields: TURN_ENTRY_FIELDS,
    act: deleteTurnsWithEntries(db),
  });
  return { turns, trail };
}
