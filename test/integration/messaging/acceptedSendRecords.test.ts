import type { Db } from 'mongodb';
import { findByIds } from '../../../src/db/findByIds';
import { createEventPublisher } from '../../../src/events/publisher';
import { groupAcceptedSendRecords } from '../../../src/messaging/acceptedSendRecords';
import { sendIntentsCollection, type SendIntentDoc } from '../../../src/messaging/sendIntents';
import { sendWhatsAppMessage, type SendMessageDeps } from '../../../src/messaging/sendMessage';
import type { SendAttempt, WhatsAppProvider } from '../../../src/messaging/whatsAppSender';
import { openTestDb, testConfig } from '../../support/env';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/** A campaign batch's accepted sends recorded in groups (src/messaging/acceptedSendRecords.ts), on the real FerretDB. */
describe('accepted send records written in groups', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;
  let sends = 0;
  /** Each `accepted` call, with whether the outbound message existed by then. */
  const accepted: { messageId: string; outboundExisted: boolean }[] = [];
  const provider: WhatsAppProvider = {
    name: 'simulator',
    send: async (): Promise<SendAttempt> => ({ ok: true, messageId: `wamid.GROUP${(sends += 1)}.${process.pid}.${Date.now()}` }),
    accepted: async (_request, messageId) => {
      accepted.push({ messageId, outboundExisted: (await db.collection('outbound_messages').findOne({ _id: messageId as never })) !== null });
    },
  };
  const deps = (): SendMessageDeps => ({
    db,
    events: createEventPublisher(db, { dispatch: async () => undefined }),
    provider,
    deploymentChannels: ['whatsapp'],
    now: () => new Date(),
  });
  const key = (name: string) => `${ws.workspaceId}|test|${name}`;
  const send = (to: string, name: string, extra: { recordLater?: (intent: SendIntentDoc) => Promise<void>; earlierIntent?: SendIntentDoc | null } = {}) =>
    sendWhatsAppMessage(deps(), { tenantId: ws.workspaceId, to, template: { name: 'welcome' }, intentKey: key(name), metadata: { n: name }, ...extra });

  /** Every record an accepted send leaves, by collection (events without their store-time fields). */
  async function recordsOf(intent: SendIntentDoc) {
    const outbound = await db.collection('outbound_messages').findOne({ _id: intent.message_id as never });
    const turnKey = await db.collection('conversation_turn_keys').findOne({ _id: `${ws.workspaceId}|wa-out:${intent.message_id}` as never });
    const message = await db.collection('conversation_messages').findOne({ _id: turnKey?.message_id });
    const conversation = await db.collection('conversations').findOne({ _id: outbound?.conversation_id });
    const event = await db.collection('events').findOne({ tenant_id: ws.workspaceId, dedupe_key: `conversation.started:${outbound?.conversation_id}` });
    const eventFields = event ? Object.fromEntries(Object.entries(event).filter(([field]) => field !== 'dispatched_at')) : null;
    return { outbound, turnKey, message, conversation, event: eventFields };
  }
  async function removeRecords(intent: SendIntentDoc) {
    const records = await recordsOf(intent);
    await db.collection('outbound_messages').deleteOne({ _id: intent.message_id as never });
    await db.collection('conversation_turn_keys').deleteOne({ _id: records.turnKey!._id });
    await db.collection('conversation_messages').deleteOne({ _id: records.message!._id });
    await db.collection('conversations').deleteOne({ _id: records.conversation!._id });
    await db.collection('events').deleteOne({ _id: (records.event as { _id: string })._id as never });
  }
  /**
   * A group whose timed flush never fires within a case: these cases are about the size and the
   * explicit flush. On a loaded machine ten sends take over a second, and the default 1 s timer
   * would write part of a group early (CI saw the tenth send still pending when checked).
   */
  const untimedGroup = () => groupAcceptedSendRecords(deps(), { ms: 600_000 });
  const intentOf = async (name: string) => (await sendIntentsCollection(db).findOne({ _id: key(name) }))!;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
  });
  afterAll(async () => {
    await drop();
  });

  it('a group flush writes exactly the documents and event the per-send path writes, the outbound messages before `accepted`', async () => {
    const names = ['same-1', 'same-2', 'same-3'];
    const phones = ['919800000701', '919800000702', '919800000703'];
    const perSend = [];
    for (const [n, name] of names.entries()) {
      await send(phones[n]!, name);
      const intent = await intentOf(name);
      perSend.push(await recordsOf(intent));
      await removeRecords(intent);
    }
    accepted.length = 0;
    const records = untimedGroup();
    for (const name of names) await records.defer(await intentOf(name));
    expect(accepted).toHaveLength(0);
    await records.flush();
    for (const [n, name] of names.entries()) {
      const grouped = await recordsOf(await intentOf(name));
      expect(grouped.outbound).not.toBeNull();
      expect(grouped.conversation?.message_count).toBe(1);
      expect(grouped).toEqual(perSend[n]);
    }
    expect(accepted.map((a) => a.outboundExisted)).toEqual([true, true, true]);
  });

  it('a send deferred by the use case answers the conversation its records get, once flushed; ten pending flush without being asked', async () => {
    const records = untimedGroup();
    const results = [];
    for (let n = 0; n < 10; n += 1) results.push(await send(`91980000071${n}`, `ten-${n}`, { recordLater: records.defer }));
    // The tenth deferral wrote the group.
    for (const [n, result] of results.entries()) {
      const found = await recordsOf(await intentOf(`ten-${n}`));
      expect(found.outbound?.conversation_id).toBe(result.conversation_id);
      expect(found.conversation?._id).toBe(result.conversation_id);
    }
    await records.flush();
  });

  it('a deferred send is written by the timer when its group does not fill, without a flush', async () => {
    const records = groupAcceptedSendRecords(deps(), { ms: 50 });
    const result = await send('919800000740', 'timed-1', { recordLater: records.defer });
    const intent = await intentOf('timed-1');
    const deadline = Date.now() + 10_000;
    let found = await recordsOf(intent);
    while (!found.outbound && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      found = await recordsOf(intent);
    }
    expect(found.outbound?.conversation_id).toBe(result.conversation_id);
    expect(found.conversation).toMatchObject({ _id: result.conversation_id, message_count: 1 });
  });

  it('a recipient whose conversation exists falls back to the per-send path: its turn is counted once, no second conversation', async () => {
    const first = await send('919800000720', 'existing-1');
    const records = untimedGroup();
    const second = await send('919800000720', 'existing-2', { recordLater: records.defer });
    const fresh = await send('919800000721', 'existing-3', { recordLater: records.defer });
    await records.flush();
    expect(second.conversation_id).toBe(first.conversation_id);
    const conversations = await db.collection('conversations').find({ tenant_id: ws.workspaceId, thread_key: '919800000720' }).toArray();
    expect(conversations).toHaveLength(1);
    expect(conversations[0]!.message_count).toBe(2);
    const secondRecords = await recordsOf(await intentOf('existing-2'));
    expect(conversations[0]!.recent_message_ids).toEqual([(await recordsOf(await intentOf('existing-1'))).message!._id, secondRecords.message!._id]);
    expect(secondRecords.outbound?.conversation_id).toBe(first.conversation_id);
    // The group's other send, to a new thread, was created in bulk as usual.
    const freshRecords = await recordsOf(await intentOf('existing-3'));
    expect(freshRecords.conversation).toMatchObject({ _id: fresh.conversation_id, message_count: 1 });
    const messages = await db.collection('conversation_messages').countDocuments({ conversation_id: first.conversation_id });
    expect(messages).toBe(2);
  });

  it('a worker killed between the intent `sent` and the flush: the retry finishes the records, sending nothing again (0 duplicates, 0 lost)', async () => {
    const names = ['crash-1', 'crash-2', 'crash-3'];
    const killed = untimedGroup();
    for (const [n, name] of names.entries()) await send(`91980000073${n}`, name, { recordLater: killed.defer });
    // Never flushed (the worker died). The retried batch reads the intents once and resumes each.
    const before = sends;
    const intents = new Map((await findByIds(sendIntentsCollection(db), names.map(key))).map((i) => [i._id, i]));
    expect([...intents.values()].map((i) => i.state)).toEqual(['sent', 'sent', 'sent']);
    const retry = untimedGroup();
    for (const [n, name] of names.entries()) {
      const result = await send(`91980000073${n}`, name, { recordLater: retry.defer, earlierIntent: intents.get(key(name)) ?? null });
      expect(result.message_id).toBe(intents.get(key(name))!.message_id);
    }
    await retry.flush();
    expect(sends).toBe(before);
    for (const [n, name] of names.entries()) {
      const intent = intents.get(key(name))!;
      expect(await db.collection('outbound_messages').countDocuments({ _id: intent.message_id as never })).toBe(1);
      expect(await db.collection('conversations').countDocuments({ tenant_id: ws.workspaceId, thread_key: `91980000073${n}` })).toBe(1);
      expect(await db.collection('conversation_messages').countDocuments({ tenant_id: ws.workspaceId, dedupe_key: `wa-out:${intent.message_id}` })).toBe(1);
    }
    // The dead worker's pending group, flushed late (a timer firing as it died), duplicates nothing either.
    await killed.flush();
    for (const name of names) {
      expect(await db.collection('outbound_messages').countDocuments({ _id: intents.get(key(name))!.message_id as never })).toBe(1);
    }
    expect(await db.collection('conversation_messages').countDocuments({ tenant_id: ws.workspaceId, dedupe_key: { $in: names.map((name) => `wa-out:${intents.get(key(name))!.message_id}`) } })).toBe(3);
  });
});
