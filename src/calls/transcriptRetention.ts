import type { Db } from 'mongodb';
import { sweepIdRange, type SweepPace } from '../db/idRangeSweep';
import { callCollections } from './callStore';

/**
 * Removes the transcripts of calls placed before `before` (TRANSCRIPT_RETENTION_DAYS; the
 * worker's retention pass runs it): the call stays (its outcome, result, billing and events are
 * records of what happened), its `transcript` becomes null and `transcript_removed_at` says
 * when. Found by the time-ordered call id (`newId('call', placed)`), so each batch reads its own
 * calls from the `_id` index (src/db/idRangeSweep.ts); a call's transcript is written within
 * hours of its placing, long before any cutoff.
 */
export async function sweepExpiredCallTranscripts(db: Db, before: Date, pace: SweepPace = {}, removedAt: Date = new Date()): Promise<number> {
  const { calls } = callCollections(db);
  return sweepIdRange(db, calls, {
    ...pace,
    mark: 'calls:transcript',
    prefix: 'call',
    before,
    filter: { transcript: { $ne: null } },
    act: async (ids) => (await calls.updateMany({ _id: { $in: ids } }, { $set: { transcript: null, transcript_removed_at: removedAt } })).modifiedCount,
  });
}
