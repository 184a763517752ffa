import type { Collection, Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import type { RecipientState } from './staging';
import { upsertOne } from '../db/upsert';

/**
 * The counters over time (the console's `GET …/timeline`): each recount (after every batch,
 * at the end, while settling) also notes the recipients' state counts in its minute, so a page
 * can draw the run's progress without reading 50,000 recipients. Snapshots rather than the
 * recipients' timestamps: a recipient keeps only its latest state's time, so a delivered
 * message no longer says when it was sent, and reading every recipient is a scan-sized cost
 * on FerretDB.
 *
 * One document per campaign and hour (`<campaign_id>:<YYYY-MM-DDTHH>`), minutes inside, so a
 * day-long run is a few dozen documents, read in one `_id: {$in}`; the hours written are
 * listed on the progress document (progress.ts), so reading never guesses keys. Only the run writes (one activity at
 * a time), so setting a minute's field cannot race.
 */

export type StateTotals = Record<RecipientState, number>;

export interface CampaignTimelineDoc {
  _id: string;
  tenant_id: string;
  campaign_id: string;
  /** `MM` → the counts as last taken in that minute. */
  minutes: Record<string, StateTotals>;
}

export function timelineCollection(db: Db): Collection<CampaignTimelineDoc> {
  return db.collection<CampaignTimelineDoc>('campaign_timeline');
}

/** The hour key of an instant: `YYYY-MM-DDTHH` (UTC). */
export const hourKey = (at: Date): string => at.toISOString().slice(0, 13);

export async function recordSnapshot(db: Db, input: { campaignId: string; tenantId: string; at: Date; totals: StateTotals }): Promise<string> {
  const hour = hourKey(input.at);
  const minute = input.at.toISOString().slice(14, 16);
  await upsertOne(timelineCollection(db), { _id: `${input.campaignId}:${hour}` }, { $set: { tenant_id: input.tenantId, campaign_id: input.campaignId, [`minutes.${minute}`]: input.totals } });
  return hour;
}

export interface TimelinePoint extends StateTotals {
  /** The minute's start (ISO). */
  at: string;
}

/** Every snapshot of the given hours, oldest first. */
export async function readTimeline(db: Db, campaignId: string, hours: string[]): Promise<TimelinePoint[]> {
  const idOf = (hour: string) => `${campaignId}:${hour}`;
  const docs = new Map((await findByIds(timelineCollection(db), hours.map(idOf))).map((doc) => [doc._id, doc] as const));
  const points: TimelinePoint[] = [];
  for (const hour of hours) {
    const doc = docs.get(idOf(hour));
    if (!doc) continue;
    for (const [minute, totals] of Object.entries(doc.minutes)) points.push({ at: `${hour}:${minute}:00.000Z`, ...totals });
  }
  return points.sort((a, b) => a.at.localeCompare(b.at));
}
