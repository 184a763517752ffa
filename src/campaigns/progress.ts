import type { Collection, Db } from 'mongodb';
import { findByIds } from '../db/findByIds';
import type { CampaignCounters, CampaignDoc } from './campaign';
import { campaignChannel } from './channels';
import { CALL_PROGRESS_NAMES, ZERO_CALL_PROGRESS, callProgressOf, type CallProgress } from './voice/callProgress';
import { CAMPAIGN_COUNT_CHUNK } from './contracts';
import { OutcomeFold, outcomeChunkOf, outcomeRow } from './voice/outcomes/chunks';
import type { OutcomeRow } from './voice/outcomes/report';
import { readRecipientBatch, type RecipientState } from './staging';
import { readTimeline, recordSnapshot, type TimelinePoint } from './timeline';
import { replaceUpserting } from '../db/upsert';

/**
 * The campaign's counters (campaigns-tickets-dues §2 `sent`, `delivered`, `read`, `failed`,
 * `skipped`) are a funnel (docs/decisions/campaigns.md "Campaign counters are a funnel"): `sent` every
 * message that went out (provider accepted it: states `sent`, `delivered`, `read`, and
 * `failed` with a `message_id`), `delivered` those delivered (`delivered`, `read`), `read`
 * those read; `failed` and `skipped` beside them. Per-state counts (`states`) are kept too,
 * for the console. Both are derived from the recipients' states, never incremented: FerretDB
 * applies `$inc` by reading and writing back, so parallel increments lose counts, and a retried activity
 * would count twice. The recipients are counted in chunks of `CAMPAIGN_COUNT_CHUNK`
 * positions (each chunk one `_id: {$in}` read); a recount rewrites whole chunks and the totals are their sum, so
 * recounting is idempotent and the totals always equal the states of the last count.
 *
 * Kept apart from the campaign record (one document per campaign, `_id` the campaign id):
 * FerretDB writes a whole document back on every update, so counters written beside the
 * status could undo a parallel status change. Only the campaign's run writes here (its
 * activities run one at a time). Counter changes do not raise the campaign's `version`
 * (docs/decisions/README.md).
 */

export type StateCounts = Record<RecipientState, number>;

/**
 * A chunk's counts: by state, plus the `failed` recipients whose message had gone out (absent on
 * chunks counted before the funnel: 0), and those failed `outcome_unknown` with no message yet,
 * whom a provider's status may still resolve (src/campaigns/whatsapp/recipientsCatchUp.ts).
 */
export type ChunkCounts = StateCounts & { failed_after_send?: number; outcome_unknown?: number };

export { CALL_PROGRESS_NAMES, ZERO_CALL_PROGRESS, callProgressOf, type CallProgress };

export interface CampaignProgressDoc {
  _id: string;
  tenant_id: string;
  /** Chunk index → counts by state. */
  chunks: Record<string, ChunkCounts>;
  /** Call campaigns: chunk index → call progress. */
  call_chunks?: Record<string, CallProgress>;
  /** The funnel (`funnelOf`) as last counted. */
  counters: CampaignCounters;
  /** Recipients by state as last counted, over the chunks counted so far (absent on documents written before the funnel: summed from `chunks`). */
  states?: StateCounts;
  /** The `failed` recipients whose message had gone out (in `counters.sent` and `counters.failed`). */
  failed_after_send?: number;
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

/**
 * The counters from the counts by state: a funnel (`delivered` within `sent`, `read` within
 * `delivered`). `failedAfterSend` (failed recipients whose message had gone out) is in `sent`
 * as well as `failed`, as the provider's own broadcast insights count a message accepted and
 * then undelivered. A call campaign's `sent` is set apart (people dialled).
 */
export function funnelOf(states: StateCounts, failedAfterSend: number): CampaignCounters {
  return {
    sent: states.sent + states.delivered + states.read + failedAfterSend,
    delivered: states.delivered + states.read,
    read: states.read,
    failed: states.failed,
    skipped: states.skipped,
  };
}

/** The counters as last counted, as stored (no projection; `campaignCounts` is what the routes answer). */
export async function campaignCounters(db: Db, campaignId: string): Promise<CampaignCounters> {
  const doc = await progressCollection(db).findOne({ _id: campaignId }, { projection: { counters: 1 } });
  return doc?.counters ?? ZERO_COUNTERS;
}

/** A call campaign's call progress (zeros before launch). */
export async function campaignCallProgress(db: Db, campaignId: string): Promise<CallProgress> {
  const doc = await progressCollection(db).findOne({ _id: campaignId }, { projection: { calls: 1 } });
  return doc?.calls ?? ZERO_CALL_PROGRESS;
}

/** The call progress of a campaign whose channel calls its people (channels.ts `countsCalls`); undefined for the others. */
export async function channelCallProgress(db: Db, campaign: Pick<CampaignDoc, '_id' | 'channel'>): Promise<CallProgress | undefined> {
  return campaignChannel(campaign.channel).countsCalls ? campaignCallProgress(db, campaign._id) : undefined;
}

/** What the routes show of a campaign's progress: the public counters and, for the console, the recipients by state. */
export interface CampaignCounts {
  counters: CampaignCounters;
  /** The channel's states (`STATES_OF`), `queued` being everyone not yet counted in another. */
  states: Partial<StateCounts>;
}

/** The states a campaign's recipients pass through, by channel (staging.ts). */
export const STATES_OF: Record<CampaignDoc['channel'], readonly RecipientState[]> = {
  whatsapp: ['queued', 'sent', 'delivered', 'read', 'failed', 'skipped'],
  voice: ['queued', 'calling', 'called', 'failed', 'skipped'],
};

type Counted = Pick<CampaignDoc, '_id' | 'status' | 'recipients' | 'channel'>;

/**
 * A campaign's counts as the routes answer them. `queued` is the staged recipients not counted
 * in another state (chunks the run has not reached yet are not counted at all). A `cancelled`
 * campaign shows its outstanding (`queued`) recipients as `skipped` at once: the contract
 * says a cancel skips them, and the run's skip pass writes that within seconds (docs/campaigns.md
 * "Recipients and counters"), so the cancel's answer and every read after agree from the
 * first moment, and the run's final count only confirms them.
 */
export function countsView(campaign: Counted, stored: { states: StateCounts; counters: CampaignCounters } | null): CampaignCounts {
  const states = stored ? { ...stored.states } : emptyCounts();
  const counters = { ...(stored?.counters ?? ZERO_COUNTERS) };
  const others = (Object.keys(states) as RecipientState[]).reduce((n, s) => (s === 'queued' ? n : n + states[s]), 0);
  states.queued = Math.max(0, campaign.recipients - others);
  if (campaign.status === 'cancelled') {
    states.skipped += states.queued;
    counters.skipped += states.queued;
    states.queued = 0;
  }
  return { counters, states: Object.fromEntries(STATES_OF[campaign.channel].map((s) => [s, states[s]])) };
}

/** The counts of several campaigns (a list page): one `_id: {$in}` read, and one more of the chunks of any progress written before the funnel. */
export async function countsOf(db: Db, campaigns: readonly Counted[]): Promise<Map<string, CampaignCounts>> {
  const progress = progressCollection(db);
  const docs = await findByIds(progress, campaigns.map((c) => c._id), { projection: { counters: 1, states: 1 } });
  const found = new Map(docs.map((doc) => [doc._id, doc] as const));
  const older = docs.filter((doc) => !doc.states).map((doc) => doc._id);
  for (const doc of older.length > 0 ? await findByIds(progress, older, { projection: { chunks: 1, calls: 1 } }) : []) {
    const states = sumStates(Object.values(doc.chunks ?? {}));
    const counters = { ...funnelOf(states, 0), ...(doc.calls ? { sent: doc.calls.dialled } : {}) };
    found.set(doc._id, { ...found.get(doc._id)!, states, counters });
  }
  return new Map(
    campaigns.map((c) => {
      const doc = found.get(c._id);
      return [c._id, countsView(c, doc?.states ? { states: doc.states, counters: doc.counters } : null)] as const;
    }),
  );
}

/**
 * Whether the last count covered every recipient and found none `queued`: a cancelled
 * campaign's run has skipped everyone outstanding and counted them (nothing queued means no
 * batch is still sending either).
 */
export async function countedEveryone(db: Db, campaign: Pick<CampaignDoc, '_id' | 'recipients'>): Promise<boolean> {
  const doc = await progressCollection(db).findOne({ _id: campaign._id }, { projection: { states: 1 } });
  if (!doc?.states) return campaign.recipients === 0;
  const counted = (Object.values(doc.states) as number[]).reduce((n, k) => n + k, 0);
  return doc.states.queued === 0 && counted === campaign.recipients;
}

/** One campaign's counts (`countsOf`). */
export async function campaignCounts(db: Db, campaign: Counted): Promise<CampaignCounts> {
  return (await countsOf(db, [campaign])).get(campaign._id)!;
}

function sumStates(chunks: readonly StateCounts[]): StateCounts {
  const totals = emptyCounts();
  for (const counts of chunks) for (const state of Object.keys(totals) as RecipientState[]) totals[state] += counts[state] ?? 0;
  return totals;
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
  const chunks: Record<string, ChunkCounts> = { ...(stored?.chunks ?? {}) };
  const callChunks: Record<string, CallProgress> = { ...(stored?.call_chunks ?? {}) };
  let voice = stored?.call_chunks !== undefined;
  const lastChunk = input.recipients === 0 ? -1 : chunkOf(input.recipients - 1);
  const all = Array.from({ length: lastChunk + 1 }, (_, k) => k);
  const which =
    input.chunks === 'all'
      ? all
      : input.chunks === 'movable'
        ? all.filter((k) => !chunks[k] || MOVABLE.some((s) => chunks[k]![s] > 0) || (chunks[k]!.outcome_unknown ?? 0) > 0)
        : input.chunks.filter((k) => k >= 0 && k <= lastChunk);
  // A call campaign's rows go to its outcome chunks as they are read (voice/outcomes/chunks.ts), one
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
    const counts: ChunkCounts = { ...emptyCounts(), failed_after_send: 0, outcome_unknown: 0 };
    const called = { ...ZERO_CALL_PROGRESS };
    const outcomeChunk = outcomeChunkOf(from);
    if (pending.k !== outcomeChunk) await flush(fold);
    pending.k = outcomeChunk;
    for (const doc of docs) {
      counts[doc.state] += 1;
      // A message the provider accepted and later failed to deliver went out (funnelOf).
      if (doc.state === 'failed' && doc.message_id) counts.failed_after_send! += 1;
      else if (doc.state === 'failed' && doc.skip_reason === 'outcome_unknown') counts.outcome_unknown! += 1;
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
  const totals = sumStates(Object.values(chunks));
  const failedAfterSend = Object.values(chunks).reduce((n, counts) => n + (counts.failed_after_send ?? 0), 0);
  const counters = funnelOf(totals, failedAfterSend);
  // A call campaign's `sent` is the people a call reached for (dialled); `failed` and `skipped` are as for messages.
  let calls: CallProgress | undefined;
  if (voice) {
    calls = { ...ZERO_CALL_PROGRESS };
    for (const counts of Object.values(callChunks)) for (const name of CALL_PROGRESS_NAMES) calls[name] += counts[name];
    counters.sent = calls.dialled;
  }
  const hour = await recordSnapshot(db, { campaignId: input.campaignId, tenantId: input.tenantId, at: input.at, totals });
  const hours = stored?.timeline_hours ?? [];
  await replaceUpserting(
    progress,
    { _id: input.campaignId },
    {
      tenant_id: input.tenantId,
      chunks,
      counters,
      states: totals,
      failed_after_send: failedAfterSend,
      ...(calls ? { call_chunks: callChunks, calls } : {}),
      timeline_hours: hours.includes(hour) ? hours : [...hours, hour],
      updated_at: input.at,
    },
  );
  return counters;
}

/** The campaign's counters over time, a point per minute in which they were counted (timeline.ts). */
export async function campaignTimeline(db: Db, campaignId: string): Promise<TimelinePoint[]> {
  const doc = await progressCollection(db).findOne({ _id: campaignId }, { projection: { timeline_hours: 1 } });
  return readTimeline(db, campaignId, doc?.timeline_hours ?? []);
}
