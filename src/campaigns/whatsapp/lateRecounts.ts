import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../../db/insertIfAbsent';
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
 * the run"). The collection holds only campaigns finished in the last day or so, so a pass
 * reads it by its due time without an index.
 *
 * Several workers' passes may take the same campaign at once: each step is safe to repeat (a
 * recount rewrites whole chunks from the recipients' states; the step moves on by setting, not
 * incrementing), so the worst case is a campaign counted twice in the same second.
 */

export interface LateRecountDoc {
  _id: string;
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

/** Recount `step` falls due this long after the run ended: the delays one after another, as the run slept them. */
export function lateRecountOffsetMs(step: number): number {
  return CAMPAIGN_SETTLE_DELAYS_MS.slice(0, step + 1).reduce((sum, ms) => sum + ms, 0);
}

/** Hands a finished campaign's late recounts over. Safe to repeat: a campaign handed over keeps its schedule. */
export async function scheduleLateRecounts(db: Db, input: { campaignId: string; tenantId: string; recipients: number; at: Date }): Promise<void> {
  await insertIfAbsent(lateRecountsCollection(db), {
    _id: input.campaignId,
    tenant_id: input.tenantId,
    recipients: input.recipients,
    ended_at: input.at,
    step: 0,
    due_at: new Date(input.at.getTime() + lateRecountOffsetMs(0)),
  });
}

/**
 * One pass: recounts up to `batchSize` campaigns whose recount is due (the chunks whose last
 * count still had a recipient that can move) and moves each to its next step, or lets it go
 * after the last. A campaign whose recount fails goes to `onError` and stays due for the
 * next pass; the others go on. Answers how many it recounted.
 */
export async function recountDueCampaigns(db: Db, now: Date, options: { batchSize?: number; onError?: (err: unknown) => void } = {}): Promise<number> {
  const due = lateRecountsCollection(db);
  const docs = await due.find({ due_at: { $lte: now } }, { limit: options.batchSize ?? 20 }).toArray();
  let counted = 0;
  for (const doc of docs) {
    try {
      // As the run's recounts did: a hold a dead batch attempt left is settled first.
      await settleOrphanedBatchHolds(db, doc.tenant_id, doc._id, now);
      await recipientsCatchUp(db, { campaignId: doc._id, recipients: doc.recipients, at: now });
      await recount(db, { campaignId: doc._id, tenantId: doc.tenant_id, recipients: doc.recipients, chunks: 'movable', at: now });
      const next = doc.step + 1;
      if (next < CAMPAIGN_SETTLE_DELAYS_MS.length) {
        await due.updateOne({ _id: doc._id, step: doc.step }, { $set: { step: next, due_at: new Date(doc.ended_at.getTime() + lateRecountOffsetMs(next)) } });
      } else {
        await due.deleteOne({ _id: doc._id, step: doc.step });
      }
      counted++;
    } catch (err) {
      if (!options.onError) throw err;
      options.onError(err);
    }
  }
  return counted;
}

export const LATE_RECOUNT_INTERVAL_MS = 30_000;

/** The pass in a worker process, every `intervalMs`; a failed pass goes to `onError` and the next tries again. */
export function startLateRecounts(options: { db: Db; intervalMs?: number; now?: () => Date; onError: (err: unknown) => void }): PeriodicPass {
  const now = options.now ?? (() => new Date());
  const pass = periodicPass(() => recountDueCampaigns(options.db, now(), { onError: options.onError }), options.intervalMs ?? LATE_RECOUNT_INTERVAL_MS, options.onError);
  pass.start();
  return pass;
}
