import { MongoClient, type CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { backfillCallEntries, callEntriesCollection, callNumberKey, writeCallEntries } from '../../../src/calls/callEntries';
import { listCalls } from '../../../src/calls/callList';
import { callCollections, type CallDoc } from '../../../src/calls/callStore';
import { CONSOLE_AUTH } from '../../support/calls';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { storedCall } from '../../support/storedRecords';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The console's number filter and Find by number read a number's calls through their keyed
 * entries (src/calls/callEntries.ts): newest first, filtered, paged by the same cursor, a
 * number in any form the API accepts; calls stored before the entries existed are listed the
 * old way until the worker's backfill has written theirs, and through them after.
 */
describe('calls by number through their entries', () => {
  const { api, ws } = useTestApi({ worker: true });
  const base = Date.parse('2026-06-01T00:00:00Z');
  const NUMBER = '+919811122255';

  const callOf = (tenantId: string, agentId: string, i: number, to: string, status: CallDoc['status']): CallDoc =>
    storedCall({ workspaceId: tenantId, agentId }, new Date(base + i * 60_000), to, { status });
  const ids = async (workspaceId: string, query: string): Promise<{ ids: string[]; next: string | null }> => {
    const res = await request(api.server).get(`/console/v1/workspaces/${workspaceId}/calls${query}`).set(CONSOLE_AUTH);
    expect(res.status).toBe(200);
    return { ids: res.body.items.map((c: { call_id: string }) => c.call_id), next: res.body.next_cursor };
  };

  it('lists, pages and filters a number’s calls the old way before the backfill and through the entries after; Find finds them in any form', async () => {
    const own = await createTestWorkspace(api.db);
    const other = await createTestWorkspace(api.db);
    // Calls written before the entries existed: the number's, other numbers' (one a longer number that starts with it), another workspace's.
    const old: CallDoc[] = [];
    for (let i = 0; i < 40; i++) {
      const to = i % 4 === 0 ? NUMBER : i % 4 === 1 ? `${NUMBER}9` : `+9198111${String(i).padStart(5, '0')}`;
      old.push(callOf(i % 8 === 7 ? other.workspaceId : own.workspaceId, own.agentId, i, i % 8 === 7 ? NUMBER : to, i % 3 === 0 ? 'failed' : 'completed'));
    }
    old.push(callOf(other.workspaceId, other.agentId, 41, NUMBER, 'completed'));
    await callCollections(api.db).calls.insertMany(old);
    const expected = (keep: (c: CallDoc) => boolean) =>
      old
        .filter((c) => c.tenant_id === own.workspaceId && c.to === NUMBER && keep(c))
        .map((c) => c._id)
        .sort()
        .reverse();
    const all = expected(() => true);
    const failed = expected((c) => c.status === 'failed');
    expect(all.length).toBe(10);

    const walk = async (query: string, limit: number) => {
      const seen: string[] = [];
      let page = await ids(own.workspaceId, `${query}&limit=${limit}`);
      seen.push(...page.ids);
      while (page.next) {
        page = await ids(own.workspaceId, `${query}&limit=${limit}&cursor=${encodeURIComponent(page.next)}`);
        seen.push(...page.ids);
      }
      return seen;
    };
    const check = async () => {
      for (const typed of ['9811122255', '09811122255', '+91 98111 22255', NUMBER]) {
        expect({ typed, seen: await walk(`?to=${encodeURIComponent(typed)}`, 3) }).toEqual({ typed, seen: all });
      }
      expect(await walk(`?to=9811122255&status=failed`, 2)).toEqual(failed);
      const find = await request(api.server).get(`/console/v1/workspaces/${own.workspaceId}/find?q=9811122255`).set(CONSOLE_AUTH);
      expect(find.status).toBe(200);
      expect(find.body.items.map((i: { kind: string; id: string }) => `${i.kind} ${i.id}`)).toEqual(all.map((id) => `call ${id}`));
    };

    await check();
    await backfillCallEntries(api.db);
    // The one walk writes the other families too (src/calls/callEntries.ts); the number's are these.
    const entries = await callEntriesCollection(api.db).find({ _id: { $regex: /\|to:/ } }).toArray();
    expect(entries.map((e) => e._id).sort()).toEqual(old.map(callNumberKey).sort());
    await check();

    // A placed call writes its entry with it and is first in its number's list.
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '9811122255' });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    expect(await callEntriesCollection(api.db).findOne({ _id: `${ws.workspaceId}|to:${NUMBER}|${callId}` })).not.toBeNull();
    expect((await ids(ws.workspaceId, '?to=9811122255')).ids).toEqual([callId]);
  });

  it("reads the calls collection by _id only: the number's entries, then its calls by id", async () => {
    const own = await createTestWorkspace(api.db);
    const calls = Array.from({ length: 30 }, (_, i) => callOf(own.workspaceId, own.agentId, 100 + i, i % 3 === 0 ? NUMBER : `+91981110${String(i).padStart(4, '0')}`, 'completed'));
    await writeCallEntries(api.db, calls);
    await callCollections(api.db).calls.insertMany(calls);
    await backfillCallEntries(api.db);

    const monitored = await new MongoClient(api.config.MONGODB_URL, { monitorCommands: true }).connect();
    try {
      const started: CommandStartedEvent[] = [];
      monitored.on('commandStarted', (event) => started.push(event));
      const page = await listCalls(monitored.db(api.db.databaseName), own.workspaceId, { to: NUMBER }, { beforeId: null, limit: 4 });
      expect(page.map((c) => c._id)).toEqual(calls.filter((c) => c.to === NUMBER).map((c) => c._id).reverse().slice(0, 4));
      const finds = started.filter((e) => e.commandName === 'find');
      const onCalls = finds.filter((e) => e.command.find === 'calls');
      expect(onCalls.map((e) => Object.keys(e.command.filter))).toEqual([['_id']]);
      expect(Object.keys(onCalls[0]!.command.filter._id)).toEqual(['$in']);
      expect(onCalls[0]!.command.filter._id.$in).toHaveLength(4);
      const onEntries = finds.filter((e) => e.command.find === 'call_entries');
      expect(onEntries).toHaveLength(1);
      expect(onEntries[0]!.command.limit).toBe(4);
    } finally {
      await monitored.close();
    }
  });
});
