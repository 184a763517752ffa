import { randomUUID } from 'node:crypto';
import type { AnyBulkWriteOperation } from 'mongodb';
import { conversationIdFor, phoneDigits } from '../conversations';
import { BULK_WRITE_MAX, bulkWriteInChunks } from '../db/bulkWrite';
import { insertManyUnordered } from '../db/insertIfAbsent';
import { keepRenewing } from '../db/leaseRenewal';
import { sendIntentsCollection, type SendIntentDoc } from './sendIntents';
import { SEND_RETRY_POLICY, sendWithRetries } from './sendRetry';
import {
  finishRecording,
  abandonedChargeIsOurs,
  prepareSend,
  providerRefusal,
  resume,
  SEND_INTENT_LEASE_MS,
  SEND_INTENT_RENEW_MS,
  sendWhatsAppMessage,
  sentResult,
  type PreparedSend,
  type SendMessageDeps,
  type SendMessageInput,
  type SendMessageResult,
} from './sendMessage';
import type { SendAttempt } from './whatsAppSender';

/**
 * A slice of sends written ahead together (a campaign batch's next second of sends): every
 * send passes its guards and takes its conversation as `sendWhatsAppMessage` does, then the
 * slice's intents are written in one unordered `insertMany` before any of its POSTs, and
 * after the POSTs their outcomes (`sent` with the provider's id, or the intent removed and
 * its conversation given back) in one bulk write: two commands a slice instead of two a send,
 * each of which FerretDB charges about 0.3 ms of CPU whatever it carries.
 *
 * The write-ahead rule holds for each send: its intent is durable before its POST, so a retry
 * finds it and never sends again; an attempt that died between the intents and the outcomes
 * leaves them `sending`, and each becomes of unknown outcome once the lease passes
 * (`SendOutcomeUnknown`, its charge given back). The caller posts the whole slice as soon as
 * `claimWriteAhead` answers, none waiting on another: an intent written whose POST never left
 * is a send no provider status can settle, so that window stays a single send's. The price is
 * that a kill makes up to a slice of unknown outcome instead of the one send in flight, every
 * one of them posted (docs/decisions/messaging.md, "A campaign's sends are written ahead by
 * the slice").
 */

/** The most sends of one slice: its intents are one insertMany and its outcomes one bulk write. */
export const WRITE_AHEAD_SLICE_MAX = BULK_WRITE_MAX;
/**
 * The planned time one slice gathers, from its first send to its last (they leave together at
 * the last's time): under the intents' renewal interval, and what a slice's first send may wait.
 */
export const WRITE_AHEAD_SPAN_MS = SEND_INTENT_RENEW_MS * 0.8;

/** A send's answer: sent, failed (a `SendRefusal`, `SendOutcomeUnknown`, `SendInProgress` or a failure), or never posted (its intent removed). */
export type SliceAnswer = { sent: SendMessageResult } | { failed: unknown } | { notSent: true };

export interface WriteAheadSlice {
  /**
   * Per input, in order: its answer already (refused by a guard, answered from an earlier
   * attempt's intent, or its intent not written), or null when its intent is written and
   * waits for `post`.
   */
  readonly early: readonly (SliceAnswer | null)[];
  /** Calls the provider for a written intent; resolves when it answered (never rejects: `settle` answers). Call for every written intent at once, right after the claim. */
  post(index: number): Promise<void>;
  /**
   * Waits for the POSTs started, then writes every outcome in one bulk write: `sent`, or the
   * intent removed (refused, failed, or never posted) with its conversation given back; then
   * the sent ones' records (`recordLater`, or at once). Answers every input. Call once.
   */
  settle(): Promise<SliceAnswer[]>;
}

async function answerOf(send: () => Promise<SendMessageResult>): Promise<SliceAnswer> {
  try {
    return { sent: await send() };
  } catch (err) {
    return { failed: err };
  }
}

type Posted = { attempt: SendAttempt; at: Date } | { err: unknown };

/** Guards, conversations and the intents' one insert of a slice (`inputs` at most WRITE_AHEAD_SLICE_MAX, in send order). */
export async function claimWriteAhead(deps: SendMessageDeps, inputs: readonly SendMessageInput[]): Promise<WriteAheadSlice> {
  if (inputs.length > WRITE_AHEAD_SLICE_MAX) throw new RangeError(`a write-ahead slice holds at most ${WRITE_AHEAD_SLICE_MAX} sends`);
  const intents = sendIntentsCollection(deps.db);
  const early: (SliceAnswer | null)[] = [];
  const prepared: (PreparedSend | null)[] = [];
  // One after another, in send order: each takes its conversation as a send alone would.
  for (const input of inputs) {
    const earlier = input.earlierIntent !== undefined ? input.earlierIntent : await intents.findOne({ _id: input.intentKey });
    if (earlier) {
      early.push(await answerOf(() => sendWhatsAppMessage(deps, { ...input, earlierIntent: earlier })));
      prepared.push(null);
      continue;
    }
    try {
      prepared.push(await prepareSend(deps, input));
      early.push(null);
    } catch (err) {
      prepared.push(null);
      early.push({ failed: err });
    }
  }

  // The slice is one attempt: one owner, one lease, renewed together while its POSTs run.
  const owner = randomUUID();
  let heldUntil = new Date(deps.now().getTime() + SEND_INTENT_LEASE_MS);
  const claimed = prepared.flatMap((p, index) => (p ? [{ index, giveBack: p.giveBack, intent: { ...p.intent, owner, lease_until: heldUntil } }] : []));
  let written;
  try {
    written = await insertManyUnordered(intents, claimed.map((c) => c.intent));
  } catch (err) {
    for (const c of claimed) await c.giveBack();
    throw err;
  }
  const live: typeof claimed = [];
  for (const [n, c] of claimed.entries()) {
    const code = written.failed.get(n);
    if (code === undefined) {
      live.push(c);
      continue;
    }
    // Not written: a parallel attempt of the same send holds it (11000), or the write failed; this one takes nothing.
    await c.giveBack();
    early[c.index] = code === 11000 ? await answerOf(async () => resume(deps, inputs[c.index]!, await intents.findOne({ _id: c.intent._id }))) : { failed: written.error };
  }

  const ids = live.map((c) => c.intent._id);
  const renew = async () => {
    const until = new Date(deps.now().getTime() + SEND_INTENT_LEASE_MS);
    const held = (await intents.updateMany({ _id: { $in: ids }, owner, state: 'sending' }, { $set: { lease_until: until } })).matchedCount === ids.length;
    if (held) heldUntil = until;
    return held;
  };
  const renewal =
    live.length === 0
      ? null
      : keepRenewing(renew, SEND_INTENT_RENEW_MS, (problem) =>
          deps.logger?.warn({ owner, ...(problem.lost ? {} : { err: problem.err }) }, problem.lost ? 'a slice of send intents lost while its provider calls ran' : 'send intents lease renewal failed'),
        );
  const posts = new Map<number, Promise<Posted>>();
  let settled = false;

  return {
    early,
    post(index) {
      if (settled || early[index] !== null || posts.has(index)) throw new Error(`send ${index} of the slice is not waiting for its POST`);
      const c = live.find((l) => l.index === index)!;
      const posted = sendWithRetries(deps.provider, c.intent.request, deps.retry ?? SEND_RETRY_POLICY).then(
        (attempt): Posted => ({ attempt, at: deps.now() }),
        (err: unknown): Posted => ({ err }),
      );
      posts.set(index, posted);
      return posted.then(() => undefined);
    },
    async settle() {
      settled = true;
      const outcomes = await Promise.all(live.map((c) => posts.get(c.index) ?? Promise.resolve(null)));
      // Stopped before the outcomes' write, which must be the intents' last (src/db/leaseRenewal.ts).
      await renewal?.stop();
      const answers: SliceAnswer[] = early.map((a) => a ?? { notSent: true });
      const ops: AnyBulkWriteOperation<SendIntentDoc>[] = [];
      const sent: { index: number; intent: SendIntentDoc }[] = [];
      const giveBacks: (() => Promise<void>)[] = [];
      const now = deps.now();
      for (const [n, c] of live.entries()) {
        const outcome = outcomes[n]!;
        if (outcome && 'attempt' in outcome && outcome.attempt.ok) {
          const fields = { state: 'sent' as const, message_id: outcome.attempt.messageId, sent_at: outcome.at, updated_at: outcome.at };
          ops.push({ updateOne: { filter: { _id: c.intent._id }, update: { $set: fields } } });
          sent.push({ index: c.index, intent: { ...c.intent, ...fields } });
          continue;
        }
        // Nothing went out (refused, failed before the provider accepted, or never posted): removed, then
        // given back, in that order as in abandonIntent (a removal the database refused leaves the charge to the retry).
        if (await abandonedChargeIsOurs(deps.db, c.intent, heldUntil, now)) giveBacks.push(c.giveBack);
        ops.push({ deleteOne: { filter: { _id: c.intent._id } } });
        if (outcome) answers[c.index] = { failed: 'err' in outcome ? outcome.err : providerRefusal((outcome.attempt as Extract<SendAttempt, { ok: false }>).error) };
      }
      // The one write between the provider's answers and a record of them: from here on, no retry sends again.
      await bulkWriteInChunks(intents, ops, { ordered: false });
      for (const giveBack of giveBacks) await giveBack();
      for (const { index, intent } of sent) {
        const input = inputs[index]!;
        if (input.recordLater) {
          // The records may lag this answer; an intent `sent` without them is finished by any later attempt (resume).
          await input.recordLater(intent);
          answers[index] = { sent: sentResult(intent, conversationIdFor(intent.tenant_id, 'whatsapp', phoneDigits(intent.request.to))) };
        } else {
          answers[index] = await answerOf(() => finishRecording(deps, intent, input.turnsAlongside));
        }
      }
      return answers;
    },
  };
}
