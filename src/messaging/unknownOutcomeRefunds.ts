import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import type { Logger } from '../observability/logger';
import { consumeConversation, refundConversation, type AllowanceSource } from './allowance';
import type { SendIntentDoc } from './sendIntents';

/**
 * The conversation charged for a send whose outcome is unknown (its attempt died between
 * writing the intent and recording the provider's answer: `SendOutcomeUnknown`), given back
 * once. The send ends failed with no message, so it is not billed: what is billed is what
 * the provider is known to have accepted (issue 32: a worker killed mid-send left 2,170
 * conversations billed for 2,169 messages).
 *
 * Once, whoever decides it: a campaign batch's retry, a due's reminder step, a client's
 * retry with its Idempotency-Key, several at a time, or the attempt itself when it stalled
 * past its lease and then hears the provider refuse (`abandonIntent`). The claim is a unique insert
 * keyed by the intent and the attempt that wrote it (`send_refunds`, FerretDB's one-winner
 * write: an intent removed after a refusal is written afresh by the next attempt, which may
 * be charged and given back again); its winner gives the conversation back. A process dying
 * between the two keeps the charge (as before this), never gives it back twice.
 *
 * A charge taken from a campaign batch's hold is given back the same way: the hold counts a
 * `sending` intent as used when it is settled as an orphan (src/messaging/conversationHold.ts),
 * so the plan still carries it.
 *
 * A text send has no charge, yet takes the same claim (`source` null) when a retry decides its
 * outcome is unknown, and an adoption takes it `kept`: the claim is what orders the two, so a
 * retry never answers `send_outcome_unknown` for a send a status had already begun adopting.
 */
export interface SendRefundDoc {
  /** `<send intent _id>|<owner>`: the attempt whose charge it gave back. */
  _id: string;
  tenant_id: string;
  /** Where the charge came from; null for a text send (no charge: the claim only orders retry and adoption). */
  source: AllowanceSource | null;
  refunded_at: Date;
  /**
   * `kept`: the send was found to have gone out (src/messaging/unknownOutcomes.ts) before any
   * retry gave the charge back, so none will. Absent: given back.
   */
  kind?: 'kept';
}

export function sendRefundsCollection(db: Db): Collection<SendRefundDoc> {
  return db.collection<SendRefundDoc>('send_refunds');
}

/** Claims the give-back of a `sending` intent's charge; true for the one caller that may give it back. */
export async function claimRefund(db: Db, intent: SendIntentDoc, now: Date): Promise<boolean> {
  return intent.billed !== null && (await claimOutcome(db, intent, now));
}

/** Claims the decision on a `sending` intent's outcome (billed or not); true for the one caller that decides. */
async function claimOutcome(db: Db, intent: SendIntentDoc, now: Date): Promise<boolean> {
  if (intent.state !== 'sending') return false;
  return insertIfAbsent(sendRefundsCollection(db), outcomeClaim(intent, now));
}

/**
 * Decides that an intent's outcome is unknown, once: `refunded` when this call gave the
 * conversation back, `unbilled` when it decided a text send's (nothing to give back),
 * `already` when another retry decided, `kept` when a status adopted the send first (its
 * charge stays; the caller adopts it too and answers sent).
 */
export async function refundUnknownOutcome(db: Db, intent: SendIntentDoc, now: Date): Promise<'refunded' | 'already' | 'kept' | 'unbilled'> {
  if (await claimOutcome(db, intent, now)) {
    if (!intent.billed) return 'unbilled';
    await refundConversation(db, intent.tenant_id, intent.billed);
    return 'refunded';
  }
  const claim = await sendRefundsCollection(db).findOne({ _id: refundId(intent) });
  return claim?.kind === 'kept' ? 'kept' : 'already';
}

const refundId = (intent: SendIntentDoc) => `${intent._id}|${intent.owner}`;
const outcomeClaim = (intent: SendIntentDoc, now: Date): SendRefundDoc => ({ _id: refundId(intent), tenant_id: intent.tenant_id, source: intent.billed, refunded_at: now });

/**
 * A send of unknown outcome found to have gone out keeps its charge: the same claim as the
 * give-back, written `kept`, so a retry deciding at the same moment gives nothing back and
 * adopts instead. A text send takes it too, for that order (nothing to keep). If a retry
 * decided first, a charge it gave back is taken again, once (a second claim,
 * `<intent>|<owner>|charged`). A plan with nothing left cannot be charged: the message stays
 * recorded as billed (its `billed` source) and the miss is logged (**known gap**).
 */
export async function keepCharge(db: Db, intent: SendIntentDoc, now: Date, logger?: Logger): Promise<void> {
  const refunds = sendRefundsCollection(db);
  const kept = { ...outcomeClaim(intent, now), kind: 'kept' as const };
  if (await insertIfAbsent(refunds, kept)) return;
  if (!intent.billed) return;
  if ((await refunds.findOne({ _id: kept._id }))?.kind === 'kept') return;
  if (!(await insertIfAbsent(refunds, { ...kept, _id: `${kept._id}|charged` }))) return;
  const taken = await consumeConversation(db, intent.tenant_id);
  if (!taken.ok) logger?.warn({ intent: intent._id, reason: taken.reason }, 'a send found to have gone out could not be charged again');
}
