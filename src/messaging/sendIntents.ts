import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { sweepOldestFirst } from '../db/oldestFirst';
import { retentionCutoff, type RetentionOptions } from '../events';
import type { RecordTurnInput } from '../conversations';
import type { SendRequest } from './whatsAppSender';
import type { AllowanceSource } from './allowance';
import type { SentMessageFacts } from './outboundMessages';

/**
 * The intent record of one outbound send, written before the provider is called (record
 * first). Its `_id` is the send's key, so a retry of the same send (a client's retry with its
 * Idempotency-Key, a retried campaign batch or reminder) finds it instead of sending again:
 *
 * - `sending`: written before the provider is called, with the billable conversation just
 *   taken for it (`billed`). If the provider refuses, the conversation is given back and the
 *   intent deleted, so a retry sends afresh.
 * - `sent`: the provider accepted; the first write after its answer, and the last write to
 *   the intent. What follows (the transcript turn, then the outbound message record) is
 *   idempotent: an attempt that finds the intent `sent` answers from the outbound message,
 *   or finishes the records when it is missing, without calling the provider again.
 *
 * An intent left `sending` by an attempt that died (its lease passed) may or may not have
 * gone out: it is never sent again (at most once), and a retry is told the outcome is unknown.
 * FerretDB 1.x makes only unique inserts one-winner, so the claim is the insert of the `_id`.
 */

export type SendIntentState = 'sending' | 'sent';

export interface SendIntentDoc extends SentMessageFacts {
  /** The send's key (see the builders below). */
  _id: string;
  tenant_id: string;
  state: SendIntentState;
  /** The attempt holding a `sending` intent, and until when. */
  owner: string;
  lease_until: Date;
  /** Where the billable conversation came from; null for text. */
  billed: AllowanceSource | null;
  /** The campaign batch's hold it was billed from (src/messaging/conversationHold.ts); absent when billed from the plan. */
  hold_id?: string | null;
  /** What goes to the provider, and what the records are made of afterwards. */
  request: SendRequest;
  transcript_text: string;
  /** Who the transcript says wrote it: `model` for a chat agent's reply; absent (older intents) or `human` otherwise. */
  transcript_role?: 'model' | 'human';
  /** The team member's name on the transcript turn, when one wrote it. */
  transcript_author?: string;
  /**
   * Turns recorded in one write with the send's own (a chat agent's trail rows): here so a
   * status adopting the send records them as its attempt would have. Absent: the turn alone.
   */
  turns_alongside?: RecordTurnInput[];
  /** Set with `sent`: the provider's message id and when it accepted. */
  message_id: string | null;
  sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function sendIntentsCollection(db: Db): Collection<SendIntentDoc> {
  return db.collection<SendIntentDoc>('send_intents');
}

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

/**
 * POST /messages with an `Idempotency-Key`: the key's scope (workspace, API key) and the raw
 * body's bytes, as the Idempotency-Key matches them. A retry with the same key and body finds
 * the intent; another body under the same key is another send, as the middleware treats it
 * once a failed request has released the key.
 */
export function apiSendIntentKey(input: { tenantId: string; apiKeyId: string; idempotencyKey: string; rawBody: Buffer }): string {
  const body = createHash('sha256').update(input.rawBody).digest('hex');
  return `${input.tenantId}|api|${sha256(JSON.stringify([input.apiKeyId, input.idempotencyKey, body]))}`;
}

/**
 * A send nothing will retry as the same send (POST /messages without an Idempotency-Key: a
 * second identical request is a second message). The intent still records the send and its
 * charge before the provider is called.
 */
export function oneOffSendIntentKey(tenantId: string, requestId: string): string {
  return `${tenantId}|once|${requestId}`;
}

/** A one-off key has no earlier attempt to look for (its request id is new). */
export function isOneOffSendIntentKey(key: string): boolean {
  return key.split('|')[1] === 'once';
}

/** A campaign's send to one recipient: a retried batch finds it and skips who was sent. */
export function campaignSendIntentKey(tenantId: string, campaignId: string, recipientId: string): string {
  return `${tenantId}|campaign|${campaignId}|${recipientId}`;
}

/** A chat agent's reply: one per turn of its conversation's workflow, so a retried or replayed turn finds it. */
export function agentSendIntentKey(tenantId: string, workflowId: string, turnKey: string): string {
  return `${tenantId}|agent|${workflowId}|${turnKey}`;
}

/** A due's reminder, numbered within its chase: a retried reminder step finds it. */
export function dueReminderSendIntentKey(tenantId: string, dueId: string, reminder: number): string {
  return `${tenantId}|due|${dueId}|${reminder}`;
}

/** A paid due's receipt: sent once however often its chase's last step is retried. */
export function dueReceiptSendIntentKey(tenantId: string, dueId: string): string {
  return `${tenantId}|due|${dueId}|receipt`;
}

/**
 * A message an agent's tool sends (a payment link, a follow-up after a call): keyed by the
 * tool run's key, which a retried run repeats, so the retry finds the send; `part` tells
 * apart the sends of one run (the text, or the template tried when the window is closed).
 */
export function agentToolSendIntentKey(tenantId: string, runKey: string, part: string): string {
  return `${tenantId}|agent|${sha256(runKey)}|${part}`;
}

/** Inserts the intent; false when one with its key exists. */
export function claimSendIntent(db: Db, intent: SendIntentDoc): Promise<boolean> {
  return insertIfAbsent(sendIntentsCollection(db), intent);
}

/**
 * Deletes send intents whose send was recorded (`sent`) more than the events' retention ago,
 * the same way, at the pass's pace and ending when it stops (src/events/retention.ts runs it;
 * src/main/worker.ts registers it there). By
 * then the outbound message record stands for the send; the intent only answered retries,
 * and the idempotency window (24 h) is long closed. An intent still `sending` (its outcome
 * unknown) stays: it is what stops a retry from sending a second time.
 */
export async function sweepExpiredSendIntents(options: RetentionOptions): Promise<number> {
  const cutoff = retentionCutoff(options);
  return sweepOldestFirst<SendIntentDoc>(sendIntentsCollection(options.db), {
    batchSize: options.batchSize,
    maxBatches: options.maxBatches,
    pauseMs: options.pauseMs,
    signal: options.signal,
    projection: { _id: 1, created_at: 1, state: 1 },
    mayGo: (intent) => intent.state === 'sent' && intent.created_at < cutoff,
  });
}
