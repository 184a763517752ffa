import type { Db } from 'mongodb';
import { conversationMessagesCollection, conversationsCollection, recordTurn, recordTurnsOfConversation, type RecordTurnInput } from '../../../src/conversations';
import { conversationEntriesCollection, recentKey, transcriptKey } from '../../../src/conversations/conversationEntries';
import { BULK_WRITE_MAX } from '../../../src/db/bulkWrite';
import { createEventPublisher } from '../../../src/events/publisher';
import { openTestDb, testConfig } from '../../support/env';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * Several turns of one conversation in one write (src/conversations/recordTurn.ts
 * `recordTurnsOfConversation`): the documents `recordTurn` would write, counted once, the
 * conversation's entries where its list reads them; a thread with no conversation yet goes
 * through `recordTurn`; a group past the bulk limit in order.
 */
describe('recordTurnsOfConversation', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;
  let n = 0;
  const deps = () => ({ db, events: createEventPublisher(db, { dispatch: async () => undefined }) });
  const phone = () => `+9197${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;
  const t0 = Date.now() - 60_000;
  const turn = (customer: string, i: number, extra: Partial<RecordTurnInput> = {}): RecordTurnInput => ({
    tenantId: ws.workspaceId,
    channel: 'whatsapp',
    customer: { phone: customer },
    role: 'model',
    kind: 'trail',
    text: `row ${i}`,
    at: new Date(t0 + i * 10),
    dedupeKey: `rows:${customer}:${i}`,
    ...extra,
  });
  const transcript = async (conversationId: string) =>
    (await conversationMessagesCollection(db).find({ conversation_id: conversationId }).toArray()).sort((a, b) => (a._id < b._id ? -1 : 1)).map((m) => `${m.kind}:${m.text}`);

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
  });
  afterAll(async () => {
    await drop();
  });

  it('records the turns of an existing conversation once, with their entries, however often it runs', async () => {
    const customer = phone();
    const first = await recordTurn(deps(), turn(customer, 0, { role: 'user', kind: 'turn', text: 'hello' }));
    const group = [turn(customer, 1), turn(customer, 2, { kind: 'turn', text: 'the reply' })];
    const recorded = await recordTurnsOfConversation(deps(), group);
    expect(recorded.map((r) => [r.conversationId, r.duplicate])).toEqual([
      [first.conversationId, false],
      [first.conversationId, false],
    ]);
    const again = await recordTurnsOfConversation(deps(), group);
    expect(again.map((r) => [r.messageId, r.duplicate])).toEqual(recorded.map((r) => [r.messageId, true]));
    expect(await transcript(first.conversationId)).toEqual(['turn:hello', 'trail:row 1', 'turn:the reply']);
    const conversation = (await conversationsCollection(db).findOne({ _id: first.conversationId }))!;
    expect(conversation).toMatchObject({ message_count: 2, preview: 'the reply', updated_at: new Date(t0 + 20) });
    expect(conversation.recent_message_ids).toEqual([first.messageId, ...recorded.map((r) => r.messageId)]);
    const entries = conversationEntriesCollection(db);
    expect(await entries.findOne({ _id: recentKey(conversation) })).not.toBeNull();
    // The conversation's older place in the recent list is gone.
    expect(await entries.findOne({ _id: recentKey({ ...conversation, updated_at: new Date(t0) }) })).toBeNull();
    for (const r of recorded) expect(await entries.findOne({ _id: transcriptKey({ _id: r.messageId, conversation_id: first.conversationId }) })).not.toBeNull();
  });

  it('creates the conversation through recordTurn when its thread has none yet', async () => {
    const customer = phone();
    const recorded = await recordTurnsOfConversation(deps(), [turn(customer, 0, { role: 'user', kind: 'turn', text: 'first' }), turn(customer, 1)]);
    expect(recorded[0]).toMatchObject({ conversationCreated: true, duplicate: false });
    expect(await transcript(recorded[0]!.conversationId)).toEqual(['turn:first', 'trail:row 1']);
    expect(await conversationsCollection(db).findOne({ _id: recorded[0]!.conversationId })).toMatchObject({ message_count: 1, preview: 'first' });
  });

  it(`writes a group larger than the bulk limit (${BULK_WRITE_MAX}) a limit at a time, in order`, async () => {
    const customer = phone();
    const first = await recordTurn(deps(), turn(customer, 0, { role: 'user', kind: 'turn', text: 'hello' }));
    const rows = Array.from({ length: BULK_WRITE_MAX + 3 }, (_, i) => turn(customer, i + 1));
    const recorded = await recordTurnsOfConversation(deps(), rows);
    expect(recorded).toHaveLength(rows.length);
    const conversation = (await conversationsCollection(db).findOne({ _id: first.conversationId }))!;
    expect(conversation.recent_message_ids.slice(-rows.length)).toEqual(recorded.map((r) => r.messageId));
    expect((await transcript(first.conversationId)).length).toBe(rows.length + 1);
  });
});
