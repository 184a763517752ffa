import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { sweepOldestFirst } from '../db/oldestFirst';
import { retentionCutoff, type RetentionOptions } from '../events';
import type { Logger } from '../observability/logger';
import { keepCharge } from './unknownOutcomeRefunds';
import { sendIntentsCollection, type SendIntentDoc } from './sendIntents';

/**
 * A send whose attempt died between the provider's answer and its record of it (record first:
 * the intent stays `sending`) is found again from the provider's statuses. Every Cloud API send
 * carries its intent key as `biz_opaque_callback_data`, which Meta hands back in each `statuses`
 * object of the messages webhook (docs/decisions/messaging.md, "Unknown outcomes resolved from
 * the provider"); the simulator does the same. A status for a message id this service never
 * recorded, carrying a key whose intent is `sending`, says the send went out as that message.
 *
 * The link is a claim: one `send_resolutions` document per intent (`_id` the intent key, a
 * unique insert, so two deliveries or two messages racing leave one answer). Whoever finds it
 * with the intent's attempt gone (its lease past) adopts the send: the intent is written `sent`
 * with that message and the resolution's time, then the usual records are finished (turn,
 * outbound message, parked statuses), each keyed by the message id. Both the webhook (after
 * writing the claim) and a retry of the send (before deciding the outcome is unknown) look, so
 * the order they come in does not matter: a retry after the status records the send as sent,
 * a status after the retry turns `outcome_unknown` into the message's real status. A status
 * reaching a live attempt (lease held) claims nothing: the attempt records its own answer.
 */

export interface SendResolutionDoc {
  /** The send intent's key. */
  _id: string;
  tenant_id: string;
  /** The provider's message id the status named. */
  message_id: string;
  /** The first status's time: the adopted send's `sent_at`, the same whoever adopts. */
  at: Date;
  resolved_at: Date;
}

export function sendResolutionsCollection(db: Db): Collection<SendResolutionDoc> {
  return db.collection<SendResolutionDoc>('send_resolutions');
}

/**
 * How long a resolution is kept after it was claimed: twice the time Meta goes on redelivering
 * a status webhook our endpoint did not answer (up to 7 days, docs/decisions/messaging.md), so
 * a redelivery of the status that made the claim, after an adoption cut short, still finds it
 * and adopts the same message with the same time. Past that the claim has done its work (its
 * adopter wrote the intent `sent` at once); a later status of a still-`sending` intent claims afresh.
 */
export const SEND_RESOLUTION_RETENTION_MS = 14 * 86_400_000;

/**
 * The worker's retention pass over resolutions (src/main/worker.ts registers it), the other
 * sweeps' way: from the collection's oldest end (claims are written in time order), in
 * bounded, paced batches, deleting those claimed more than `SEND_RESOLUTION_RETENTION_MS` ago.
 */
export async function sweepExpiredSendResolutions(options: RetentionOptions): Promise<number> {
  const cutoff = retentionCutoff({ now: options.now, retentionMs: SEND_RESOLUTION_RETENTION_MS });
  return sweepOldestFirst<SendResolutionDoc>(sendResolutionsCollection(options.db), {
    batchSize: options.batchSize,
    maxBatches: options.maxBatches,
    pauseMs: options.pauseMs,
    signal: options.signal,
    projection: { _id: 1, resolved_at: 1 },
    mayGo: (resolution) => resolution.resolved_at < cutoff,
  });
}

export interface UnknownOutcomeDeps {
  db: Db;
  now: () => Date;
  logger?: Logger;
}

/** Finishes the records of a `sent` intent (sendMessage.ts `finishRecording`, given by the caller). */
export type FinishRecording<R> = (intent: SendIntentDoc) => Promise<R>;

/** A provider status naming a message id and the intent key the send gave it. */
export interface CallbackStatus {
  messageId: string;
  callbackData: string;
  at: Date;
}

/**
 * A status of a message this service has not recorded, carrying an intent key: claims the
 * link and adopts the send if its attempt is gone. Answers whether the message is now
 * recorded (adopted here or before). Safe to repeat: a redelivery finds the claim and the
 * records already written.
 */
export async function resolveFromStatus<R>(deps: UnknownOutcomeDeps, status: CallbackStatus, finish: FinishRecording<R>): Promise<boolean> {
  const intent = await sendIntentsCollection(deps.db).findOne({ _id: status.callbackData });
  // Not ours (another tool's data on the same number), swept, or recorded by its own attempt.
  if (!intent || intent.state !== 'sending') return false;
  // A live attempt records its own answer (the usual early `sent`: parked, applied by the send).
  // Nothing is written for it, so the common case costs one read; if that attempt dies, a
  // later status of the message (delivered, read, failed) finds it past its lease.
  if (intent.lease_until > deps.now()) return false;
  const resolution = await claimResolution(deps, intent, status);
  if (resolution.message_id !== status.messageId) {
    deps.logger?.warn({ intent: intent._id, claimed: resolution.message_id, named: status.messageId }, 'two messages name one send intent; the first is kept');
    return false;
  }
  await adopt(deps, intent, resolution, finish);
  return true;
}

/**
 * A retry that finds its intent `sending` past its lease: the send as adopted from the
 * provider's status, or null when no status has named it (its outcome is unknown).
 */
export async function adoptResolvedSend<R>(deps: UnknownOutcomeDeps, intent: SendIntentDoc, finish: FinishRecording<R>): Promise<R | null> {
  const resolution = await sendResolutionsCollection(deps.db).findOne({ _id: intent._id });
  if (!resolution || resolution.tenant_id !== intent.tenant_id) return null;
  return adopt(deps, intent, resolution, finish);
}

async function claimResolution(deps: UnknownOutcomeDeps, intent: SendIntentDoc, status: CallbackStatus): Promise<SendResolutionDoc> {
  const doc: SendResolutionDoc = { _id: intent._id, tenant_id: intent.tenant_id, message_id: status.messageId, at: status.at, resolved_at: deps.now() };
  if (await insertIfAbsent(sendResolutionsCollection(deps.db), doc)) return doc;
  return (await sendResolutionsCollection(deps.db).findOne({ _id: intent._id })) ?? doc;
}

/**
 * The send went out as the resolution's message: its charge is kept (taken again once if a
 * retry had given it back), the intent written `sent` (the same values whoever writes, so
 * two adopters, or a stalled attempt writing its own answer, agree), then its records finished.
 */
async function adopt<R>(deps: UnknownOutcomeDeps, intent: SendIntentDoc, resolution: SendResolutionDoc, finish: FinishRecording<R>): Promise<R> {
  await keepCharge(deps.db, intent, deps.now(), deps.logger);
  const sentAt = resolution.at;
  const sent: SendIntentDoc = { ...intent, state: 'sent', message_id: resolution.message_id, sent_at: sentAt, updated_at: deps.now() };
  await sendIntentsCollection(deps.db).updateOne(
    { _id: intent._id, state: 'sending' },
    { $set: { state: 'sent', message_id: resolution.message_id, sent_at: sentAt, updated_at: sent.updated_at } },
  );
  // A warning: each send whose answer was lost (a process killed mid-send) is worth an operator's look.
  deps.logger?.warn({ intent: intent._id, messageId: resolution.message_id }, 'send of unknown outcome adopted from the provider’s status');
  return finish(sent);
}
