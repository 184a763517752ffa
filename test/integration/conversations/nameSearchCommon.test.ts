import { MongoClient, type CommandSucceededEvent } from 'mongodb';
import request from 'supertest';
import { recordTurn, conversationsCollection, type ConversationDoc } from '../../../src/conversations';
import { conversationEntriesCollection, movingRecentEntry, recentKey, recentNames } from '../../../src/conversations/conversationEntries';
import { conversationIdsNamed, writeNameEntries } from '../../../src/conversations/nameEntries';
import { listRecentConversations } from '../../../src/conversations/lists';
import { recentConversations } from '../../../src/conversations/store';
import { useTestApi } from '../../support/app';
import { CONSOLE } from '../../support/messaging';
import { conversationIdsFound } from '../../support/conversationPages';
import { quietTurnDeps, seedConversations } from '../../support/storedRecords';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * A name too common to gather (more name entries than NAME_MATCHES_MAX) walks the recent list
 * checking the names its entries hold: it reads the page's conversations and no others (plus
 * those whose entries predate the names), and answers exactly the store's scan: newest first,
 * any part, any case, a name gained or changed found by the new name, not by the old.
 */
describe('a common name through the names on the recent entries', () => {
  const { api } = useTestApi();
  const t0 = Date.parse('2026-07-01T00:00:00Z');
  const at = (s: number) => new Date(t0 + s * 1000);

  it('reads at most the page and a few conversations, and pages as the scan does', async () => {
    const own = await createTestWorkspace(api.db);
    const deps = quietTurnDeps(api.db);
    // 1 in 8 hold "ya" 7 times (in the name or only the display name, any case): 2,100 name entries start with it.
    const matching = (i: number) => i % 8 === 0;
    const customerOf = (i: number): ConversationDoc['customer'] => {
      const phone = `+9198113${String(i).padStart(5, '0')}`;
      if (!matching(i)) return { phone, name: `Bo ${i}` };
      const name = `Priya Riya Siya Diya Miya Tiya Kiya ${i}`;
      if (i % 3 === 0) return { phone, name: name.toUpperCase() };
      if (i % 3 === 1) return { phone, name: `Bo ${i}`, display_name: name };
      return { phone, name };
    };
    // The lists read through their entries (the backfills find every one written).
    const many = await seedConversations(api.db, own.workspaceId, {
      seedPhone: '+919811300000',
      at: at(0),
      count: 2400,
      shape: (i) => ({ thread_key: `common${i}`, customer: customerOf(i), updated_at: at(10 + (i % 600)) }),
    });
    // Entries written before the names were kept: no names, so their conversations are read.
    const old = [many[2392]!, many[2391]!, many[5]!];
    for (const c of old) await conversationEntriesCollection(api.db).replaceOne({ _id: recentKey(c) }, { _id: recentKey(c) });

    // Names that arrive or change later: a nameless customer gains one with a turn (its entry moves);
    // a named one keeps its name whatever a later turn says; one renamed (the entry rewritten in place).
    const turn = (phone: string, customer: Record<string, string>, s: number) =>
      recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone, ...customer }, role: 'user', text: 'hi', at: at(s), dedupeKey: `c:${phone}:${s}` });
    const gained = await turn('+919811399001', {}, 700);
    await turn('+919811399001', { display_name: 'Zoya Khan' }, 701);
    const kept = await turn('+919811399002', { name: 'Anil' }, 702);
    await turn('+919811399002', { name: 'Anaya Priya' }, 703);
    const renamed = await turn('+919811399003', { name: 'Oldname Surya' }, 704);
    const before = (await conversationsCollection(api.db).findOne({ _id: renamed.conversationId }))!;
    const after = { ...before, customer: { ...before.customer, name: 'Newname Vidya' } };
    // As recordTurn stores a name: its name entries first, then the record with its recent entry.
    await writeNameEntries(api.db, [after]);
    await movingRecentEntry(api.db, before, after, () => conversationsCollection(api.db).updateOne({ _id: before._id }, { $set: { customer: after.customer } }));

    // Each one's place in the recent list holds the names its record has, no more (what the walk checks).
    for (const { conversationId } of [gained, kept, renamed]) {
      const record = (await conversationsCollection(api.db).findOne({ _id: conversationId }))!;
      const entry = await conversationEntriesCollection(api.db).findOne({ _id: recentKey(record) });
      expect({ conversationId, names: entry?.names }).toEqual({ conversationId, names: recentNames(record) });
    }
    expect(await conversationIdsNamed(api.db, own.workspaceId, 'ya')).toBeNull();
    const scan = async (q: string) => (await recentConversations(api.db, own.workspaceId, 10_000, { name: q })).map((c) => c._id);
    expect(await scan('zoya')).toEqual([gained.conversationId]);
    expect(await scan('oldname')).toEqual([]);
    expect(await scan('NEWNAME')).toEqual([renamed.conversationId]);
    expect(await scan('anaya')).toEqual([]);
    expect(await scan('anil')).toEqual([kept.conversationId]);
    expect((await scan('ya')).slice(0, 2)).toEqual([renamed.conversationId, gained.conversationId]);

    for (const q of ['ya', 'YA', 'iya sIYA', 'zoya', 'Vidya', 'surya', 'anaya', 'ANIL', 'kiya 2', 'kiya 23']) {
      const want = await scan(q);
      expect({ q, seen: await conversationIdsFound(api.server, own.workspaceId, q, 25) }).toEqual({ q, seen: want });
      const found = await request(api.server).get(`/console/v1/workspaces/${own.workspaceId}/find`).query({ q }).set(CONSOLE);
      expect(found.status).toBe(200);
      expect({ q, found: found.body.items.map((i: { kind: string; id: string }) => `${i.kind} ${i.id}`) }).toEqual({ q, found: want.slice(0, 10).map((id) => `conversation ${id}`) });
    }

    // The documents FerretDB returns for a page of 25: conversations only the page's and the entries without names.
    const monitored = await new MongoClient(api.config.MONGODB_URL, { monitorCommands: true }).connect();
    try {
      const returned = new Map<string, number>();
      monitored.on('commandSucceeded', (event: CommandSucceededEvent) => {
        const cursor = (event.reply as { cursor?: { ns: string; firstBatch?: unknown[]; nextBatch?: unknown[] } }).cursor;
        if (!cursor) return;
        const collection = cursor.ns.slice(cursor.ns.indexOf('.') + 1);
        returned.set(collection, (returned.get(collection) ?? 0) + (cursor.firstBatch ?? cursor.nextBatch ?? []).length);
      });
      const page = await listRecentConversations(monitored.db(api.db.databaseName), own.workspaceId, 25, { name: 'Ya' });
      expect(page.map((c) => c._id)).toEqual((await scan('ya')).slice(0, 25));
      expect(returned.get('conversation_entries')).toBeGreaterThan(0);
      expect(returned.get('conversations')).toBeLessThanOrEqual(25 + old.length);
    } finally {
      await monitored.close();
    }
    // 2,400 conversations seeded and ten names searched: the file took 48.5 s (jest's default is 60 a case) under two CPU burners.
  }, 300_000);
});
