import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { conversationsCollection, recordTurn, type RecordTurnInput } from '../../../src/conversations';
import { createEventPublisher } from '../../../src/events/publisher';
import { openTestDb, testConfig } from '../../support/env';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * What `recordTurn` reads for a turn of a conversation that exists (every inbound message but
 * a thread's first): the conversation once, under its lease.
 */
describe('recordTurn on an existing conversation', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let watched: MongoClient;
  let ws: TestWorkspace;
  let n = 0;
  const conversationReads: unknown[] = [];
  const phone = () => `+9196${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;
  const turn = (customer: string, i: number, tenantId = ws.workspaceId): RecordTurnInput => ({
    tenantId,
    channel: 'whatsapp',
    customer: { phone: customer },
    role: 'user',
    text: `message ${i}`,
    at: new Date(Date.now() - 60_000 + i * 10),
    dedupeKey: `reads:${customer}:${i}`,
  });

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
    watched = await new MongoClient(testConfig().MONGODB_URL, { monitorCommands: true }).connect();
    watched.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && e.command.find === 'conversations') conversationReads.push(e.command.filter);
    });
  });
  afterAll(async () => {
    await watched.close();
    await drop();
  });
  const deps = () => {
    const watchedDb = watched.db(db.databaseName);
    return { db: watchedDb, events: createEventPublisher(watchedDb, { dispatch: async () => undefined }) };
  };

  it('reads the conversation once, under its lease, and counts the turn', async () => {
    const customer = phone();
    const first = await recordTurn(deps(), turn(customer, 0));
    expect(first.conversationCreated).toBe(true);
    conversationReads.length = 0;
    const second = await recordTurn(deps(), turn(customer, 1));
    expect(second).toMatchObject({ conversationId: first.conversationId, conversationCreated: false, duplicate: false });
    expect(conversationReads).toEqual([{ _id: first.conversationId }]);
    expect(await conversationsCollection(db).findOne({ _id: first.conversationId })).toMatchObject({ message_count: 2, preview: 'message 1', started_event: true });
  });

  it("refuses a turn whose conversation id is another workspace's, changing nothing of it", async () => {
    const customer = phone();
    const first = await recordTurn(deps(), turn(customer, 0));
    await conversationsCollection(db).updateOne({ _id: first.conversationId }, { $set: { tenant_id: 'ws_someone_else' } });
    await expect(recordTurn(deps(), turn(customer, 1))).rejects.toThrow(`conversation ${first.conversationId} belongs to another workspace`);
    expect(await conversationsCollection(db).findOne({ _id: first.conversationId })).toMatchObject({ tenant_id: 'ws_someone_else', message_count: 1, preview: 'message 0' });
  });
});
