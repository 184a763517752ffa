import type { Collection, Db } from 'mongodb';
import { COUNTER_NAMES, type CampaignCounters } from './campaign';
import { CAMPAIGN_COUNT_CHUNK } from './contracts';
import { readRecipientBatch, type CampaignRecipientDoc, type RecipientState } from './staging';
import { readTimeline, recordSnapshot, type TimelinePoint } from './timeline';

/**
 * The campaign's counters (campaigns-tickets-dues §2 `sent`, `delivered`, `read`, `failed`,
 * `skipped`), derived from its recipients' states, never incremented: FerretDB applies `$inc`
 * by reading and writing back, so parallel increments lose counts, and a retried activity
 * would count twice. The recipients are counted in chunks of `CAMPAIGN_COUNT_CHUNK`
 * positions (read by `_id`); a recount rewrites whole chunks and the totals are their sum, so
 * recounting is idempotent and the totals always equal the states of the last count.
 *
 * Kept apart from the campaign record (one document per campaign, `_id` the campaign id):
 * FerretDB writes a whole document back on every update, so counters written beside the
 * status could undo a parallel status change. Only the campaign's run writes here (its
 * activities run one at a time). Counter changes do not raise the campaign's `version`
 * (docs/decisions.md).
 */

export type StateCounts = Record<RecipientState, number>;

/**
 * A call campaign's progress (issue 15), counted per person from their recipient documents:
 * `dialled` (at least one call placed), `answered` (a call was answered), `conversation` (the
 * person spoke), `completed` (the merged outcome is `completed`), `call_backs` (call-backs
 * placed), `live` (a call placed and not yet folded in, or a call-back owed).
 */
export const CALL_PROGRESS_NAMES = ['dialled', 'answered', 'conversation', 'completed', 'call_backs', 'live'] as const;
export type CallProgress = Record<(typeof CALL_PROGRESS_NAMES)[number], number>;

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

export const ZERO_CALL_PROGRESS: CallProgress = { dialled: 0, answered: 0, conversation: 0, completed: 0, call_backs: 0, live: 0 };

const SILENT = new Set(['unanswered', 'no_conversation', null, undefined]);

/** One person's contribution to the call progress. */
export function callProgressOf(doc: CampaignRecipientDoc): CallProgress {
  const calls = doc.calls ?? [];
  return {
    dialled: calls.length > 0 ? 1 : 0,
    answered: calls.some((c) => c.answered === true) ? 1 : 0,
    conversation: calls.some((c) => !SILENT.has(c.disposition)) ? 1 : 0,
    completed: doc.outcome?.disposition === 'completed' ? 1 : 0,
    call_backs: calls.filter((c) => c.kind === 'call_back').length,
    live: doc.state === 'calling' ? 1 : 0,
  };
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

/** Counters of several campaigns (a list page): point reads by `_id`. */
export async function countersOf(db: Db, campaignIds: string[]): Promise<Map<string, CampaignCounters>> {
  const found = await Promise.all(campaignIds.map(async (id) => [id, await campaignCounters(db, id)] as const));
  return new Map(found);
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
  for (const k of which) {
    const from = k * CAMPAIGN_COUNT_CHUNK;
    const docs = await readRecipientBatch(db, input.campaignId, from, Math.min(CAMPAIGN_COUNT_CHUNK, input.recipients - from));
    const counts = emptyCounts();
    const called = { ...ZERO_CALL_PROGRESS };
    for (const doc of docs) {
      counts[doc.state] += 1;
      if (doc.calls === undefined) continue;
      voice = true;
      const one = callProgressOf(doc);
      for (const name of CALL_PROGRESS_NAMES) called[name] += one[name];
    }
    chunks[k] = counts;
    callChunks[k] = called;
  }
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
