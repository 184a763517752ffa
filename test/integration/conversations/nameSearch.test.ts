import { MongoClient, type CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { recordCallConversation, recordTurn, conversationsCollection } from '../../../src/conversations';
import { backfillConversationEntries, conversationEntriesCollection } from '../../../src/conversations/conversationEntries';
import { NAME_MATCHES_MAX, backfillNameEntries, conversationIdsNamed } from '../../../src/conversations/nameEntries';
import { nameKeys } from '../../../src/conversations/nameKeys';
import { listRecentConversations } from '../../../src/conversations/lists';
import { recentConversations } from '../../../src/conversations/store';
import { useTestApi } from '../../support/app';
import { CONSOLE } from '../../support/messaging';
import { conversationIdsFound } from '../../support/conversationPages';
import { quietTurnDeps, seedConversations } from '../../support/storedRecords';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The console's conversations `?q=<name or number>` and Find by name read the customer entries
 * (src/conversations/nameEntries.ts); by name:: any part of the name or display name, any case, most
 * recently active first, paged by the same cursor, exactly the conversations the store's
 * query (the scan they replace) answers: before the backfill, after it, as names arrive with
 * later turns and conversations move, and for a text so common it walks the recent list.
 */
describe('conversations by name and number through their entries', () => {
  const { api } = useTestApi();
  const t0 = Date.parse('2026-06-01T00:00:00Z');
  const at = (s: number) => new Date(t0 + s * 1000);

  it('answers the store’s pages for any part of a name, before and after the backfill, as names and turns arrive', async () => {
    const own = await createTestWorkspace(api.db);
    const other = await createTestWorkspace(api.db);
    const deps = quietTurnDeps(api.db);
    const turn = (tenantId: string, i: number, customer: Record<string, string>, s: number, text = `hi ${i}`) =>
      recordTurn(deps, { tenantId, channel: 'whatsapp', customer: { phone: `+91981118${String(i).padStart(4, '0')}`, ...customer }, role: 'user', text, at: at(s), dedupeKey: `t:${i}:${s}` });
    const people: Record<string, string>[] = [
      { name: 'Priya Sharma', display_name: 'Priya' },
      { name: 'Priyanka Rao' },
      { display_name: 'PRIYA S' },
      { name: 'Arjun Iyer', display_name: 'AJ' },
      { name: 'Élodie Dûpont' },
      { name: 'Ananya "Annie" Reddy & co <x>' },
      {},
      { name: 'Meera Nair' },
    ];
    for (const [i, customer] of people.entries()) await turn(own.workspaceId, i, customer, i === 7 ? 3 : i);
    // A call's conversation with the first person's number: two conversations for it.
    await recordCallConversation(deps, { tenantId: own.workspaceId, callId: 'call_0190aa00000011223344550001', agentId: own.agentId, customer: { phone: '+919811180000' }, turns: [{ role: 'model', text: 'hello', at: at(2), kind: 'turn' }] });
    await turn(other.workspaceId, 0, { name: 'Priya Other' }, 100);
    // As if stored before the name entries existed.
    const customerEntries = { _id: { $regex: `^(${own.workspaceId}|${other.workspaceId})\\|(name\\||phone:)` } };
    await conversationEntriesCollection(api.db).deleteMany(customerEntries);

    const walk = (q: string, limit: number) => conversationIdsFound(api.server, own.workspaceId, q, limit);
    const find = async (q: string) => {
      const res = await request(api.server).get(`/console/v1/workspaces/${own.workspaceId}/find`).query({ q }).set(CONSOLE);
      expect(res.status).toBe(200);
      return res.body.items.map((i: { kind: string; id: string }) => `${i.kind} ${i.id}`);
    };
    const storeAnswer = async (name: string) => (await recentConversations(api.db, own.workspaceId, 1000, { name })).map((c) => c._id);
    const texts = ['priya', 'PRIYA', 'riya s', 'Priyanka', 'a', 'dûp', 'ÉLO', '"annie"', '& co <x>', 'aj', 'Sharma Priya', 'zzz', 'iyer', 'Ananya "Annie" Reddy & co'];
    const numbers = ['+919811180000', '+91 98111 80003', '9811180007', '+919811189999'];
    const check = async () => {
      for (const q of numbers) {
        const want = (await recentConversations(api.db, own.workspaceId, 1000, { phone: `+91${q.replace(/\D/g, '').slice(-10)}` })).map((c) => c._id);
        expect({ q, seen: await walk(q, 1) }).toEqual({ q, seen: want });
      }
      for (const q of texts) {
        const want = await storeAnswer(q);
        expect({ q, seen: await walk(q, 2) }).toEqual({ q, seen: want });
        expect({ q, found: await find(q) }).toEqual({ q, found: want.slice(0, 10).map((id) => `conversation ${id}`) });
      }
    };
    expect(await storeAnswer('priya')).toHaveLength(3);
    expect(await recentConversations(api.db, own.workspaceId, 10, { phone: '+919811180000' })).toHaveLength(2);
    await check();

    await backfillConversationEntries(api.db);
    await backfillNameEntries(api.db);
    const all = await conversationsCollection(api.db).find({ tenant_id: { $in: [own.workspaceId, other.workspaceId] } }).toArray();
    const nameEntries = await conversationEntriesCollection(api.db).find(customerEntries).toArray();
    expect(nameEntries.map((e) => e._id).sort()).toEqual(all.flatMap(nameKeys).sort());
    await check();

    // A later turn gives a nameless customer a name, and moves conversations; another moves one with a name.
    await turn(own.workspaceId, 6, { name: 'Kavya Priyadarshini' }, 40);
    await turn(own.workspaceId, 1, {}, 50, 'again');
    await check();
    expect(await storeAnswer('kavya')).toHaveLength(1);
  });

  it('(after the backfills) walks the recent list for a text more than NAME_MATCHES_MAX entries hold, with the same pages', async () => {
    const own = await createTestWorkspace(api.db);
    // Each name holds "a" at 13 places: 160 of them are more entries starting with "a" than a search sorts.
    // As the writers store them (the backfills ran in the test before): their recent and name entries first.
    const many = await seedConversations(api.db, own.workspaceId, {
      seedPhone: '+919811190000',
      at: at(0),
      count: 160,
      shape: (i) => ({
        thread_key: `many${i}`,
        customer: { phone: `+9198119${String(i).padStart(5, '0')}`, name: `Aa Ab Ac Ad Ae Af Ag Ah Ai Aj Ak Al ${i % 7 === 0 ? 'Zed' : 'Bo'}` },
        updated_at: at(1 + (i % 40)),
      }),
    });
    expect(await conversationIdsNamed(api.db, own.workspaceId, 'a')).toBeNull();
    expect(13 * many.length).toBeGreaterThan(NAME_MATCHES_MAX);
    expect([...((await conversationIdsNamed(api.db, own.workspaceId, 'ZED')) ?? [])].sort()).toEqual(many.filter((_, i) => i % 7 === 0).map((c) => c._id).sort());

    for (const q of ['a', 'A', 'al zed', 'ab ac']) {
      const want = (await recentConversations(api.db, own.workspaceId, 1000, { name: q })).map((c) => c._id);
      expect({ q, seen: await conversationIdsFound(api.server, own.workspaceId, q, 50) }).toEqual({ q, seen: want });
    }
  });

  it('reads the conversations by _id only: the name or number entries, the matches’ times, the page', async () => {
    const own = await createTestWorkspace(api.db);
    const deps = quietTurnDeps(api.db);
    for (let i = 0; i < 12; i++) {
      await recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone: `+91981120${String(i).padStart(4, '0')}`, name: i % 2 ? `Rohan ${i}` : `Divya ${i}` }, role: 'user', text: 'x', at: at(i), dedupeKey: `r:${i}` });
    }
    await backfillConversationEntries(api.db);
    await backfillNameEntries(api.db);
    const monitored = await new MongoClient(api.config.MONGODB_URL, { monitorCommands: true }).connect();
    try {
      const started: CommandStartedEvent[] = [];
      monitored.on('commandStarted', (event) => started.push(event));
      const page = await listRecentConversations(monitored.db(api.db.databaseName), own.workspaceId, 4, { name: 'rohan' });
      expect(page.map((c) => c.customer.name)).toEqual(['Rohan 11', 'Rohan 9', 'Rohan 7', 'Rohan 5']);
      const onConversations = started.filter((e) => e.commandName === 'find' && e.command.find === 'conversations');
      expect(onConversations.map((e) => Object.keys(e.command.filter))).toEqual([['_id'], ['_id']]);
      expect(onConversations.map((e) => e.command.filter._id.$in.length)).toEqual([6, 4]);
      started.length = 0;
      const ofNumber = await listRecentConversations(monitored.db(api.db.databaseName), own.workspaceId, 4, { phone: '+919811200003' });
      expect(ofNumber.map((c) => c.customer.name)).toEqual(['Rohan 3']);
      expect(started.filter((e) => e.commandName === 'find' && e.command.find === 'conversations').map((e) => Object.keys(e.command.filter))).toEqual([['_id'], ['_id']]);
    } finally {
      await monitored.close();
    }
  });
});
