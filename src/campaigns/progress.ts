import type { Collection, Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import { COUNTER_NAMES, type CampaignCounters } from './campaign';
import { CALL_PROGRESS_NAMES, ZERO_CALL_PROGRESS, callProgressOf, type CallProgress } from './callProgress';
import { CAMPAIGN_COUNT_CHUNK } from './contracts';
import { OutcomeFold, outcomeChunkOf, outcomeRow } from './outcomeChunks';
import type { OutcomeRow } from './outcomeReport';
import { readRecipientBatch, type RecipientState } from './staging';
import { readTimeline, recordSnapshot, type TimelinePoint } from './timeline';

/**
 * The campaign's counters (campaigns-tickets-dues §2 `sent`, `delivered`, `read`, `failed`,
 * `skipped`), derived from its recipients' states, never incremented: FerretDB applies `$inc`
 * by reading and writing back, so parallel increments lose counts, and a retried activity
 * would count twice. The recipients are counted in chunks of `CAMPAIGN_COUNT_CHUNK`
 * positions (each chunk one `_id: {$in}` read); a recount rewrites whole chunks and the totals are their sum, so
 * recounting is idempotent and the totals always equal the states of the last count.
 *
 * Kept apart from the campaign record (one document per campaign, `_id` the campaign id):
 * FerretDB writes a whole document back on every update, so counters written beside the
 * status could undo a parallel status change. Only the campaign's run writes here (its
 * activities run one at a time). Counter changes do not raise the campaign's `version`
 * (docs/decisions.md).
 */

export type StateCounts = Record<RecipientState, number>;

export { CALL_PROGRESS_NAMES, ZERO_CALL_PROGRESS, callProgressOf, type CallProgress };

export interface CampaignProgressDoc {
  _id: string;
  tenant_id: string;
  /** Chunk index → counts by state. */
  chunks: Record<string, StateCounts>;
  /** Call campaigns: chunk index → call progress. */
  call_chunks?: Record<string, CallProgress>;
  counters: CampaignCounters;
  /** The hours the timeline has snapshots in (timeline.ts), oldest first. */
  timeline_hours?: string[];
  /** Call campaigns only. */
  calls?: CallProgress;
  updated_at: Date;
}

export function progressCollection(db: Db): Collection<CampaignProgressDoc> {
  return db.collection<CampaignProgressDoc>('campaign_progress');
}

export const ZERO_COUNTERS: CampaignCounters = { sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 };

const emptyCounts = (): StateCounts => ({ queued: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, calling: 0, called: 0 });

/** States a recipient can still leave (a sent message may yet be delivered, read or fail). */
const MOVABLE: readonly RecipientState[] = ['queued', 'sent', 'delivered', 'calling'];

export const chunkOf = (position: number): number => Math.floor(position / CAMPAIGN_COUNT_CHUNK);

export async function campaignCounters(db: Db, campaignId: string): Promise<CampaignCounters> {
  const doc = await progressCollection(db).findOne({ _id: campaignId }, { projection: { counters: 1 } });
  return doc?.counters ?? ZERO_COUNTERS;
}

/** A call campaign's call progress (zeros before launch). */
export async function campaignCallProgress(db: Db, campaignId: string): Promise<CallProgress> {
  const doc = await progressCollection(db).findOne({ _id: campaignId }, { projection: { calls: 1 } });
  return doc?.calls ?? ZERO_CALL_PROGRESS;
}

/** Counters of several campaigns (a list page): one `_id: {$in}` read. */
export async function countersOf(db: Db, campaignIds: string[]): Promise<Map<string, CampaignCounters>> {
  const docs = await findByIds(progressCollection(db), campaignIds, { projection: { counters: 1 } });
  const found = new Map(docs.map((doc) => [doc._id, doc.counters] as const));
  return new Map(campaignIds.map((id) => [id, found.get(id) ?? ZERO_COUNTERS]));
}

/**
 * Recounts the given chunks (or, with `movable`, every chunk whose last count still had a
 * recipient that can change) and rewrites the totals. Safe to repeat.
 */
export async function recount(
  db: Db,
  input: { campaignId: string; tenantId: string; recipients: number; chunks: number[] | 'movable' | 'all'; at: Date },
): Promise<CampaignCounters> {
  const progress = progressCollection(db);
  const stored = await progress.findOne({ _id: input.campaignId });
  const chunks: Record<string, StateCounts> = { ...(stored?.chunks ?? {}) };
  const callChunks: Record<string, CallProgress> = { ...(stored?.call_chunks ?? {}) };
  let voice = stored?.call_chunks !== undefined;
  const lastChunk = input.recipients === 0 ? -1 : chunkOf(input.recipients - 1);
  const all = Array.from({ length: lastChunk + 1 }, (_, k) => k);
  const which =
    input.chunks === 'all'
      ? all
      : input.chunks === 'movable'
        ? all.filter((k) => !chunks[k] || MOVABLE.some((s) => chunks[k]![s] > 0))
        : input.chunks.filter((k) => k >= 0 && k <= lastChunk);
  // A call campaign's rows go to its outcome chunks as they are read (outcomeChunks.ts), one
  // outcome chunk at a time, so a count of 50,000 people never holds them all.
  let fold: OutcomeFold | null = null;
  const pending = { k: -1, rows: [] as OutcomeRow[] };
  const flush = async (into: OutcomeFold | null) => {
    if (into && pending.rows.length > 0) await into.chunk(pending.k, pending.rows, input.chunks === 'all');
    pending.rows = [];
  };
  for (const k of [...which].sort((a, b) => a - b)) {
    const from = k * CAMPAIGN_COUNT_CHUNK;
    const docs = await readRecipientBatch(db, input.campaignId, from, Math.min(CAMPAIGN_COUNT_CHUNK, input.recipients - from));
    const counts = emptyCounts();
    const called = { ...ZERO_CALL_PROGRESS };
    const outcomeChunk = outcomeChunkOf(from);
    if (pending.k !== outcomeChunk) await flush(fold);
    pending.k = outcomeChunk;
    for (const doc of docs) {
      counts[doc.state] += 1;
      if (doc.calls === undefined) continue;
      voice = true;
      const one = callProgressOf(doc);
      for (const name of CALL_PROGRESS_NAMES) called[name] += one[name];
      fold ??= await OutcomeFold.open(db, { campaignId: input.campaignId, tenantId: input.tenantId, at: input.at });
      pending.rows.push(outcomeRow(doc));
    }
    chunks[k] = counts;
    callChunks[k] = called;
  }
  await flush(fold);
  if (fold) await fold.close({ everyChunk: input.chunks === 'all', firstCount: stored === null });
  const totals = emptyCounts();
  for (const counts of Object.values(chunks)) for (const state of Object.keys(totals) as RecipientState[]) totals[state] += counts[state];
  const counters = Object.fromEntries(COUNTER_NAMES.map((name) => [name, totals[name]])) as CampaignCounters;
  // A call campaign's `sent` is the people a call reached for (dialled); `failed` and `skipped` are as for messages.
  let calls: CallProgress | undefined;
  if (voice) {
    calls = { ...ZERO_CALL_PROGRESS };
    for (const counts of Object.values(callChunks)) for (const name of CALL_PROGRESS_NAMES) calls[name] += counts[name];
    counters.sent = calls.dialled;
  }
  const hour = await recordSnapshot(db, { campaignId: input.campaignId, tenantId: input.tenantId, at: input.at, totals });
  const hours = stored?.timeline_hours ?? [];
  await progress.replaceOne(
    { _id: input.campaignId },
    {
      tenant_id: input.tenantId,
      chunks,
      counters,
      ...(calls ? { call_chunks: callChunks, calls } : {}),
      timeline_hours: hours.includes(hour) ? hours : [...hours, hour],
      updated_at: input.at,
    },
    { upsert: true },
  );
  return counters;
}

/** The campaign's counters over time, a point per minute in which they were counted (timeline.ts). */
export async function campaignTimeline(db: Db, campaignId: string): Promise<TimelinePoint[]> {
  const doc = await progressCollection(db).findOne({ _id: campaignId }, { projection: { timeline_hours: 1 } });
  return readTimeline(db, campaignId, doc?.timeline_hours ?? []);
}
