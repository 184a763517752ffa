import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { firstTurnDocuments, recordTurn, startedEvent, turnKeysCollection, conversationMessagesCollection, conversationsCollection, writeRecentEntries, writeTranscriptEntries } from '../conversations';
import { publishEach } from '../events';
import { insertIfAbsent, insertManyUnordered } from '../db/insertIfAbsent';
import { outboundMessagesCollection } from './outboundMessages';
import type { SendIntentDoc } from './sendIntents';
import { applyEarlyStatuses, outboundMessageOf, tellProviderAccepted, turnOf, type SendMessageDeps } from './sendMessage';

/**
 * The records of a campaign batch's accepted sends, written for a group of sends together:
 * the turn keys, transcript messages, conversations and outbound messages each as one
 * `insertMany`, instead of about five commands per send (FerretDB: ~0.3 ms per single insert,
 * ~0.06 ms per document of one insertMany). The documents and events are exactly those of the
 * per-send path (`finishRecording`); a send whose thread already has a conversation, or whose
 * insert fails for any other reason, is recorded by that path (`recordTurn`, under the lease).
 *
 * Crash safety: each send's intent is `sent` before it is deferred here, and its outbound
 * message is still written last. A worker killed before a flush leaves intents `sent`
 * without outbound messages; the retried batch finds them (the recipients are still
 * `queued`: the batch moves them only after flushing) and `resume` finishes each record, so
 * nothing is lost or sent twice.
 *
 * Only for a provider that reports statuses once told `accepted` (the simulator): its
 * statuses cannot arrive before the outbound message exists. The Cloud API's webhooks may
 * arrive within the flush interval: a status of an unknown message is parked until its
 * outbound message is written (src/messaging/earlyStatuses.ts), but it would wait for the
 * whole group, so with it each send is flushed at once (docs/decisions/README.md).
 */
export interface AcceptedSendRecords {
  /** Takes a `sent` intent's records; may write the pending group before answering. */
  defer: (intent: SendIntentDoc) => Promise<void>;
  /** Writes every pending record; throws what any write of the group (or an earlier timed flush) failed with. */
  flush: () => Promise<void>;
}

/** Sends per group, and the longest a deferred send waits for its group. */
export const RECORD_GROUP_SIZE = 10;
export const RECORD_GROUP_MS = 1_000;

export function groupAcceptedSendRecords(deps: SendMessageDeps, options: { size?: number; ms?: number } = {}): AcceptedSendRecords {
  const size = deps.provider.accepted ? (options.size ?? RECORD_GROUP_SIZE) : 1;
  const ms = options.ms ?? RECORD_GROUP_MS;
  let pending: SendIntentDoc[] = [];
  let timer: NodeJS.Timeout | null = null;
  // One group written at a time, in order; a timed flush's failure is kept for the next flush to throw.
  let writing: Promise<void> = Promise.resolve();
  let failure: unknown = null;

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const group = pending;
    pending = [];
    const run = writing.then(() => (group.length > 0 ? writeGroup(deps, group) : undefined));
    writing = run.catch((err: unknown) => {
      failure ??= err;
    });
    return writing.then(() => {
      if (failure) throw failure;
    });
  }

  return {
    defer: async (intent) => {
      pending.push(intent);
      if (pending.length >= size) return flush();
      timer ??= setTimeout(() => void flush().catch(() => undefined), ms).unref();
    },
    flush,
  };
}

/** Per document of one unordered insertMany: inserted, or failed (a duplicate key or any other write error). */
async function insertEach<T extends Document>(collection: Collection<T>, docs: OptionalUnlessRequiredId<T>[]): Promise<boolean[]> {
  const { failed } = await insertManyUnordered(collection, docs);
  return docs.map((_doc, n) => !failed.has(n));
}

async function writeGroup(deps: SendMessageDeps, intents: readonly SendIntentDoc[]): Promise<void> {
  const items = intents.map((intent) => ({ intent, first: firstTurnDocuments(turnOf(intent)), bulk: true, turn: { conversationId: '', messageId: '' } }));
  // The order of recordTurn: the key, the transcript message, then the conversation with the turn counted.
  const keys = await insertEach(turnKeysCollection(deps.db), items.map((i) => i.first.turnKey));
  items.forEach((item, n) => (item.bulk = keys[n]!));
  const onward = items.filter((i) => i.bulk);
  await writeTranscriptEntries(deps.db, onward.map((i) => i.first.message));
  const messages = await insertEach(conversationMessagesCollection(deps.db), onward.map((i) => i.first.message));
  onward.forEach((item, n) => (item.bulk = messages[n]!));
  const creating = onward.filter((i) => i.bulk);
  await writeRecentEntries(deps.db, creating.map((i) => i.first.conversation));
  const conversations = await insertEach(conversationsCollection(deps.db), creating.map((i) => i.first.conversation));
  creating.forEach((item, n) => (item.bulk = conversations[n]!));

  // The created conversations' `conversation.started` events together (one insert when no endpoint receives them).
  const created = items.filter((i) => i.bulk);
  await publishEach(deps.events, created.map((i) => startedEvent(i.first.conversation)));
  await Promise.all(
    items.map(async (item) => {
      if (item.bulk) {
        item.turn = { conversationId: item.first.conversation._id, messageId: item.first.message._id };
      } else {
        // Its thread had a conversation (or an insert failed): counted under the conversation's lease.
        item.turn = await recordTurn(deps, turnOf(item.intent));
      }
    }),
  );

  // Last: an outbound message says its send is fully recorded.
  const outbound = items.map((item) => outboundMessageOf(item.intent, item.turn));
  const written = await insertEach(outboundMessagesCollection(deps.db), outbound);
  // A duplicate is an earlier attempt's record (same document); any other failure is retried alone.
  await Promise.all(outbound.filter((_doc, n) => !written[n]).map((doc) => insertIfAbsent(outboundMessagesCollection(deps.db), doc)));
  await applyEarlyStatuses(deps, outbound.map((doc) => doc._id));
  await Promise.all(items.map((item) => tellProviderAccepted(deps, item.intent)));
}
