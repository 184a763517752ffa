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
 */
export interface SendRefundDoc {
  /** `<send intent _id>|<owner>`: the attempt whose charge it gave back. */
  _id: string;
  tenant_id: string;
  source: AllowanceSource;
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
  if (!intent.billed || intent.state !== 'sending') return false;
  return insertIfAbsent(sendRefundsCollection(db), { _id: `${intent._id}|${intent.owner}`, tenant_id: intent.tenant_id, source: intent.billed, refunded_at: now });
}

/**
 * Gives back the conversation of an intent whose outcome is unknown, once: `refunded` when
 * this call did, `already` when another did, `kept` when the send was found to have gone out
 * (its charge stays; the caller adopts it).
 */
export async function refundUnknownOutcome(db: Db, intent: SendIntentDoc, now: Date): Promise<'refunded' | 'already' | 'kept' | 'unbilled'> {
  if (!intent.billed) return 'unbilled';
  if (await claimRefund(db, intent, now)) {
    await refundConversation(db, intent.tenant_id, intent.billed);
    return 'refunded';
  }
  const claim = await sendRefundsCollection(db).findOne({ _id: refundId(intent) });
  return claim?.kind === 'kept' ? 'kept' : 'already';
}

const refundId = (intent: SendIntentDoc) => `${intent._id}|${intent.owner}`;

/**
 * A send of unknown outcome found to have gone out keeps its charge: the same claim as the
 * give-back, written `kept`, so a retry deciding at the same moment gives nothing back. If a
 * retry gave it back first, the conversation is taken again, once (a second claim,
 * `<intent>|<owner>|charged`). A plan with nothing left cannot be charged: the message stays
 * recorded as billed (its `billed` source) and the miss is logged (**known gap**).
 */
export async function keepCharge(db: Db, intent: SendIntentDoc, now: Date, logger?: Logger): Promise<void> {
  if (!intent.billed) return;
  const refunds = sendRefundsCollection(db);
  const kept = { _id: refundId(intent), tenant_id: intent.tenant_id, source: intent.billed, refunded_at: now, kind: 'kept' as const };
  if (await insertIfAbsent(refunds, kept)) return;
  if ((await refunds.findOne({ _id: kept._id }))?.kind === 'kept') return;
  if (!(await insertIfAbsent(refunds, { ...kept, _id: `${kept._id}|charged` }))) return;
  const taken = await consumeConversation(db, intent.tenant_id);
  if (!taken.ok) logger?.warn({ intent: intent._id, reason: taken.reason }, 'a send found to have gone out could not be charged again');
}
