import type { Collection, Db } from 'mongodb';
import { idsBefore } from '../../db/idRangeSweep';
import { insertIfAbsent } from '../../db/insertIfAbsent';
import { idRange } from '../../domain/ids';
import { settleOrphanedBatchHolds } from './conversationHold';
import { periodicPass, type PeriodicPass } from '../../async/periodicPass';
import { CAMPAIGN_SETTLE_DELAYS_MS } from '../contracts';
import { recount } from '../progress';
import { recipientsCatchUp } from './recipientsCatchUp';

/**
 * Late statuses (delivered, read, failed) keep moving a finished WhatsApp campaign's
 * recipients; its counters follow at `CAMPAIGN_SETTLE_DELAYS_MS` after the run ends. The run
 * no longer waits for them (it would stay Running in the Temporal UI for a day, issue 27): it
 * hands them over here as one document per campaign, and a pass in each worker process
 * recounts the campaigns that are due (docs/decisions/platform.md "Late statuses are counted outside
 * the run").
 *
 * A document's `_id` is its due time then its campaign (`lateRecountId`), so a pass reads the
 * due ones oldest-due first as an `_id` range, which FerretDB's patched SQLite build walks on its
 * `_id` index (and MongoDB on its own): no scan, and no campaign waits behind ones due after it.
 * Moving to the next step is a new document (insert-if-absent, then the old one deleted), whose
 * id follows from the campaign's end and the step, so repeating a move changes nothing.
 *
 * Several workers' passes may take the same campaign at once: each step is safe to repeat (a
 * recount rewrites whole chunks from the recipients' states; the next step's document is the
 * same whoever writes it), so the worst case is a campaign counted twice in the same second.
 */

export interface LateRecountDoc {
  /** `lateRecountId(due_at, campaign_id)`; before issue 36 the campaign id alone (`rekeyLegacyRecounts`). */
  _id: string;
  campaign_id: string;
  tenant_id: string;
  recipients: number;
  /** When the run handed the campaign over (its end). */
  ended_at: Date;
  /** The next recount, an index into CAMPAIGN_SETTLE_DELAYS_MS. */
  step: number;
  due_at: Date;
}

export function lateRecountsCollection(db: Db): Collection<LateRecountDoc> {
  return db.collection<LateRecountDoc>('campaign_late_recounts');
}

const ID_PREFIX = 'recount';

/** `recount_<12 hex digits of the due time's ms>_<campaign id>`: ids sort as the due times do. */
export function lateRecountId(dueAt: Date, campaignId: string): string {
  return `${ID_PREFIX}_${dueAt.getTime().toString(16).padStart(12, '0')}_${campaignId}`;
}

/** The campaign's recount at `step`, as stored. */
export function lateRecountDoc(input: { campaignId: string; tenantId: string; recipients: number; endedAt: Date; step: number }): LateRecountDoc {
  const dueAt = new Date(input.endedAt.getTime() + lateRecountOffsetMs(input.step));
  return {
    _id: lateRecountId(dueAt, input.campaignId),
    campaign_id: input.campaignId,
    tenant_id: input.tenantId,
    recipients: input.recipients,
    ended_at: input.endedAt,
    step: input.step,
    due_at: dueAt,
  };
}

/** Recount `step` falls due this long after the run ended: the delays one after another, as the run slept them. */
export function lateRecountOffsetMs(step: number): number {
  return CAMPAIGN_SETTLE_DELAYS_MS.slice(0, step + 1).reduce((sum, ms) => sum + ms, 0);
}

/**
 * Hands a finished campaign's late recounts over. Safe to repeat: the same end gives the same
 * document. A repeat after the first recount (an attempt whose answer was lost) writes step 0
 * again: the campaign is counted again over the next passes (a recount only rewrites the
 * counts from the states) until its steps meet the one still stored.
 */
export async function scheduleLateRecounts(db: Db, input: { campaignId: string; tenantId: string; recipients: number; at: Date }): Promise<void> {
  await insertIfAbsent(lateRecountsCollection(db), lateRecountDoc({ ...input, endedAt: input.at, step: 0 }));
}

/** Due recounts read per command. */
const PAGE_SIZE = 20;
/**
 * Campaigns recounted per pass at most: each costs a few reads and writes per chunk of
 * recipients, and a worker stopping waits for its pass. Oldest-due first, so a backlog larger
 * than this (a worker down for hours) is worked off over passes and none waits for ever.
 */
const MAX_PER_PASS = 200;

/**
 * One pass: recounts the campaigns whose recount is due (the chunks whose last count still had
 * a recipient that can move), oldest-due first, read `pageSize` at a time, `maxPerPass` at
 * most, and moves each to its next step, or lets it go after the last. A campaign is
 * recounted once a pass: a later step already due (a worker that was down) waits for the next.
 * A campaign whose recount fails goes to `onError` and stays due for the next pass; the others
 * go on. Answers how many it recounted.
 */
export async function recountDueCampaigns(
  db: Db,
  now: Date,
  options: { pageSize?: number; maxPerPass?: number; onError?: (err: unknown) => void } = {},
): Promise<number> {
  const due = lateRecountsCollection(db);
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const maxPerPass = options.maxPerPass ?? MAX_PER_PASS;
  await rekeyLegacyRecounts(db, maxPerPass);
  // Every id due at or before `now`: below the prefix and the next millisecond's 12 hex digits.
  const dueRange = idsBefore(ID_PREFIX, new Date(now.getTime() + 1));
  const seen = new Set<string>();
  let after = dueRange.$gt;
  let counted = 0;
  while (seen.size < maxPerPass) {
    const limit = Math.min(pageSize, maxPerPass - seen.size);
    const docs = await due.find({ _id: { $gt: after, $lt: dueRange.$lt } }, { sort: { _id: 1 }, limit }).toArray();
    for (const doc of docs) {
      after = doc._id;
      if (seen.has(doc.campaign_id)) continue;
      seen.add(doc.campaign_id);
      try {
        await recountCampaign(db, doc, now);
        counted++;
      } catch (err) {
        if (!options.onError) throw err;
        options.onError(err);
      }
    }
    if (docs.length < limit) break;
  }
  return counted;
}

async function recountCampaign(db: Db, doc: LateRecountDoc, now: Date): Promise<void> {
  const due = lateRecountsCollection(db);
  // As the run's recounts did: a hold a dead batch attempt left is settled first.
  await settleOrphanedBatchHolds(db, doc.tenant_id, doc.campaign_id, now);
  await recipientsCatchUp(db, { campaignId: doc.campaign_id, recipients: doc.recipients, at: now });
  await recount(db, { campaignId: doc.campaign_id, tenantId: doc.tenant_id, recipients: doc.recipients, chunks: 'movable', at: now });
  const next = doc.step + 1;
  // The next step before this one goes: a death in between leaves this one due, and its repeat finds the next one written.
  if (next < CAMPAIGN_SETTLE_DELAYS_MS.length) {
    await insertIfAbsent(due, lateRecountDoc({ campaignId: doc.campaign_id, tenantId: doc.tenant_id, recipients: doc.recipients, endedAt: doc.ended_at, step: next }));
  }
  await due.deleteOne({ _id: doc._id });
}

/**
 * Documents handed over before the ids led with the due time (`_id` the campaign id, no
 * `campaign_id`) rewritten in today's form, at most `limit` a pass: read as the range of
 * campaign ids, which is empty once the last of them (a day and a half at most) is gone.
 */
async function rekeyLegacyRecounts(db: Db, limit: number): Promise<void> {
  const due = lateRecountsCollection(db);
  const legacy = await due.find({ _id: idRange('cmp') }, { sort: { _id: 1 }, limit }).toArray();
  for (const doc of legacy) {
    await insertIfAbsent(due, lateRecountDoc({ campaignId: doc._id, tenantId: doc.tenant_id, recipients: doc.recipients, endedAt: doc.ended_at, step: doc.step }));
    await due.deleteOne({ _id: doc._id });
  }
}

export const LATE_RECOUNT_INTERVAL_MS = 30_000;

/** The pass in a worker process, every `intervalMs`; a failed pass goes to `onError` and the next tries again. */
export function startLateRecounts(options: { db: Db; intervalMs?: number; now?: () => Date; onError: (err: unknown) => void }): PeriodicPass {
  const now = options.now ?? (() => new Date());
  const pass = periodicPass(() => recountDueCampaigns(options.db, now(), { onError: options.onError }), options.intervalMs ?? LATE_RECOUNT_INTERVAL_MS, options.onError);
  pass.start();
  return pass;
}
