import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../db/collections';
import { findByIds } from '../db/findByIds';
import { withPlanLease } from '../workspaces';
import type { AllowanceSource } from './allowance';
import { sendIntentsCollection } from './sendIntents';

/**
 * A campaign batch's billable conversations, taken from the plan once per batch instead of
 * once per send (docs/decisions/campaigns.md, "A campaign batch holds its conversations"). The hold is
 * written on the workspace document in the same `$set` as the counters it changed, under
 * the plan lease, so a crash leaves either both or neither; each send's intent names the hold
 * that billed it (`hold_id`), so a hold whose attempt died is settled by counting the intents
 * of its range. Which intents a range holds is the batch owner's to say (`IntentKeysOf`; a
 * campaign's: src/campaigns/whatsapp/conversationHold.ts), so this module names no campaign
 * recipient.
 */

/** The record of a hold, kept on the workspace document (`conversation_holds`). */
export interface ConversationHoldDoc {
  /** `<campaign_id>|<from>|<nonce>`: one per batch attempt. */
  id: string;
  campaign_id: string;
  /** The batch's positions `from` to `from + positions - 1`. */
  from: number;
  positions: number;
  /** Taken from the included conversations (raised `conversations_used`), then from prepaid credits. */
  included: number;
  credit: number;
  taken_at: Date;
}

export type WorkspaceWithHolds = WorkspaceDoc & { conversation_holds?: ConversationHoldDoc[] };

/**
 * A hold serves its batch for this long after it was taken, below the batch's 2-minute
 * start-to-close timeout; later sends take from the plan one by one. Not shorter: on a
 * loaded machine a 50-send batch outlived 15 s and fell back to the per-send path.
 */
export const HOLD_SERVE_MS = 100_000;
/**
 * A hold older than this that its attempt did not settle is orphaned: Temporal has given the
 * attempt up (start-to-close) and it stopped serving the hold, with 10 s of clock difference
 * between workers to spare.
 */
export const HOLD_ORPHANED_AFTER_MS = 130_000;

/** The `_id`s of the send intents a hold's positions would have (its batch's sends). */
export type IntentKeysOf = (hold: ConversationHoldDoc) => string[];

type Plan = WorkspaceDoc['plan'];
type PlanChange = Pick<Plan, 'conversations_used' | 'prepaid_credits'>;

/** Up to `wanted` conversations from the plan, included first, then prepaid credits (the order of `nextSource`). */
export function holdFromPlan(plan: Plan, wanted: number): { included: number; credit: number; plan: PlanChange } {
  const included = Math.max(0, Math.min(wanted, plan.conversations_included - plan.conversations_used));
  const credit = Math.max(0, Math.min(wanted - included, Math.floor(plan.prepaid_credits)));
  return { included, credit, plan: { conversations_used: plan.conversations_used + included, prepaid_credits: plan.prepaid_credits - credit } };
}

/** The counters once a hold gives back what it took and did not use. */
export function giveBackToPlan(plan: Plan, hold: Pick<ConversationHoldDoc, 'included' | 'credit'>, used: { included: number; credit: number }): PlanChange {
  const unusedIncluded = hold.included - Math.min(hold.included, used.included);
  const unusedCredit = hold.credit - Math.min(hold.credit, used.credit);
  return { conversations_used: Math.max(0, plan.conversations_used - unusedIncluded), prepaid_credits: plan.prepaid_credits + unusedCredit };
}

/** The in-memory side of a hold: the batch's sends take from it one at a time, in order. */
export class HeldConversations {
  private readonly left: Record<AllowanceSource, number>;
  readonly used: Record<AllowanceSource, number> = { included: 0, credit: 0 };

  constructor(
    readonly record: ConversationHoldDoc,
    private readonly now: () => Date,
  ) {
    this.left = { included: record.included, credit: record.credit };
  }

  /** Whether a send may still take from the hold. */
  available(): boolean {
    return this.left.included + this.left.credit > 0 && this.now().getTime() - this.record.taken_at.getTime() < HOLD_SERVE_MS;
  }

  /** One conversation, included first; null when the hold is empty or past serving. */
  take(): AllowanceSource | null {
    if (!this.available()) return null;
    const source: AllowanceSource = this.left.included > 0 ? 'included' : 'credit';
    this.left[source] -= 1;
    this.used[source] += 1;
    return source;
  }

  /** A send the provider did not accept gives its conversation back to the hold. */
  giveBack(source: AllowanceSource): void {
    this.left[source] += 1;
    this.used[source] -= 1;
  }
}

const planSet = (change: PlanChange, holds: ConversationHoldDoc[]) => ({
  'plan.conversations_used': change.conversations_used,
  'plan.prepaid_credits': change.prepaid_credits,
  conversation_holds: holds,
});

/**
 * What an orphaned hold's sends used: its range's intents billed from it, `sent` or still
 * `sending` (may have gone out). A `sending` one whose outcome is then found unknown is given
 * back from the plan by itself, once (src/messaging/unknownOutcomeRefunds.ts).
 */
async function usedByIntents(db: Db, hold: ConversationHoldDoc, intentKeysOf: IntentKeysOf): Promise<{ included: number; credit: number }> {
  const ids = intentKeysOf(hold);
  const used = { included: 0, credit: 0 };
  for (const intent of await findByIds(sendIntentsCollection(db), ids, { projection: { hold_id: 1, billed: 1, state: 1 } })) {
    if (intent.hold_id === hold.id && intent.billed && (intent.state === 'sent' || intent.state === 'sending')) used[intent.billed] += 1;
  }
  return used;
}

const orphaned = (hold: ConversationHoldDoc, campaignId: string, at: Date) =>
  hold.campaign_id === campaignId && at.getTime() - new Date(hold.taken_at).getTime() >= HOLD_ORPHANED_AFTER_MS;

/** Settles the campaign's orphaned holds into `plan`; answers the counters and the holds left. Call under the plan lease. */
async function settleOrphans(db: Db, workspace: WorkspaceWithHolds, campaignId: string, at: Date, intentKeysOf: IntentKeysOf): Promise<{ plan: Plan; holds: ConversationHoldDoc[]; settled: number }> {
  let plan = workspace.plan;
  const holds: ConversationHoldDoc[] = [];
  let settled = 0;
  for (const hold of workspace.conversation_holds ?? []) {
    if (!orphaned(hold, campaignId, at)) {
      holds.push(hold);
      continue;
    }
    plan = { ...plan, ...giveBackToPlan(plan, hold, await usedByIntents(db, hold, intentKeysOf)) };
    settled += 1;
  }
  return { plan, holds, settled };
}

/**
 * Takes up to `wanted` conversations for the batch at `from` (its `positions` recipients),
 * settling first any orphaned hold of the same campaign. Null when nothing was taken (the
 * workspace suspended or nothing left): the sends then take from the plan one by one and
 * refuse as they always did.
 */
export async function takeConversationHold(
  db: Db,
  input: { tenantId: string; campaignId: string; from: number; positions: number; wanted: number; now: () => Date; intentKeysOf: IntentKeysOf },
): Promise<HeldConversations | null> {
  const { workspaces } = collections(db);
  const takenAt = input.now();
  return withPlanLease(db, input.tenantId, async () => {
    const workspace = (await workspaces.findOne({ _id: input.tenantId })) as WorkspaceWithHolds | null;
    if (!workspace) return null;
    const { plan, holds, settled } = await settleOrphans(db, workspace, input.campaignId, takenAt, input.intentKeysOf);
    const taken = workspace.suspended ? { included: 0, credit: 0, plan } : holdFromPlan(plan, input.wanted);
    const record: ConversationHoldDoc = {
      id: `${input.campaignId}|${input.from}|${randomBytes(6).toString('hex')}`,
      campaign_id: input.campaignId,
      from: input.from,
      positions: input.positions,
      included: taken.included,
      credit: taken.credit,
      taken_at: takenAt,
    };
    const holding = record.included + record.credit > 0;
    if (!holding && settled === 0) return null;
    await workspaces.updateOne({ _id: input.tenantId }, { $set: planSet(taken.plan, holding ? [...holds, record] : holds) });
    return holding ? new HeldConversations(record, input.now) : null;
  });
}

/** Gives back what the batch held and did not use, and removes the hold. A hold already settled (as an orphan) is left alone. */
export async function settleConversationHold(db: Db, tenantId: string, held: HeldConversations): Promise<void> {
  const { workspaces } = collections(db);
  await withPlanLease(db, tenantId, async () => {
    const workspace = (await workspaces.findOne({ _id: tenantId })) as WorkspaceWithHolds | null;
    const holds = workspace?.conversation_holds ?? [];
    if (!workspace || !holds.some((h) => h.id === held.record.id)) return;
    const plan = giveBackToPlan(workspace.plan, held.record, held.used);
    await workspaces.updateOne({ _id: tenantId }, { $set: planSet(plan, holds.filter((h) => h.id !== held.record.id)) });
  });
}

/**
 * Settles the campaign's orphaned holds (a batch attempt that died), for the run's end and
 * its later recounts. One workspace read when there is none.
 */
export async function settleOrphanedHolds(db: Db, tenantId: string, campaignId: string, now: Date, intentKeysOf: IntentKeysOf): Promise<number> {
  const { workspaces } = collections(db);
  const seen = (await workspaces.findOne({ _id: tenantId }, { projection: { conversation_holds: 1 } })) as WorkspaceWithHolds | null;
  if (!(seen?.conversation_holds ?? []).some((h) => orphaned(h, campaignId, now))) return 0;
  return withPlanLease(db, tenantId, async () => {
    const workspace = (await workspaces.findOne({ _id: tenantId })) as WorkspaceWithHolds | null;
    if (!workspace) return 0;
    const { plan, holds, settled } = await settleOrphans(db, workspace, campaignId, now, intentKeysOf);
    if (settled) await workspaces.updateOne({ _id: tenantId }, { $set: planSet(plan, holds) });
    return settled;
  });
}
