import { MongoClient, type CommandStartedEvent, type Db, type Document } from 'mongodb';
import { listCalls } from '../../../src/calls/callList';
import { callCollections, newCallDoc, type CallDoc } from '../../../src/calls/callStore';
import { newId } from '../../../src/domain/ids';
import { openTestDb, testConfig } from '../../support/env';

/**
 * The console's recent calls (src/calls/callList.ts) on FerretDB (SQLite): the query it sends
 * is answered by walking the `_id` index newest first (scripts/patches/ferretdb-v1.24.2-id-range.patch),
 * so a page reads about as many calls as it shows instead of every call in the store (issue 36:
 * 503 after 2 s at 20,000 calls). And the pages are what they were: newest first, filtered,
 * each workspace only its own, a cursor page never repeating or skipping a call.
 */
describe('the recent-calls list reads the calls index in order', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let monitored: MongoClient;
  const started: CommandStartedEvent[] = [];
  const base = Date.parse('2026-06-01T00:00:00Z');
  const docs: CallDoc[] = [];

  const call = (i: number, tenantId: string, status: CallDoc['status'], to: string): CallDoc => {
    const at = new Date(base + i * 60_000);
    return {
      ...newCallDoc({
        _id: newId('call', at),
        tenant_id: tenantId,
        direction: 'outbound',
        status: 'ringing',
        to,
        from_number: '918000000001',
        agent_id: 'bot_1',
        requested_agent_id: null,
        deployment_id: 'dep_1',
        ring_seconds: 30,
        max_call_seconds: 300,
        recording: false,
        created_at: at,
      }),
      status,
    };
  };

  beforeAll(async () => {
    const config = testConfig();
    ({ db, drop } = await openTestDb(config));
    for (let i = 0; i < 120; i++) docs.push(call(i, i % 4 === 0 ? 'ws_small' : 'ws_big', i % 5 === 0 ? 'failed' : 'completed', i % 10 === 3 ? '+919811122233' : `+9198${String(i).padStart(8, '0')}`));
    // Some documents of other shapes beside the calls, which no page may show.
    await callCollections(db).calls.insertMany(docs);
    await db.collection<Document>('calls').insertMany([{ _id: 'cal', tenant_id: 'ws_big' }, { _id: 7, tenant_id: 'ws_big' } as Document]);
    monitored = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
    monitored.on('commandStarted', (event) => started.push(event));
  });

  afterAll(async () => {
    await monitored?.close();
    await drop?.();
  });

  const expected = (tenantId: string, keep: (c: CallDoc) => boolean = () => true) =>
    docs
      .filter((c) => c.tenant_id === tenantId && keep(c))
      .map((c) => c._id)
      .sort()
      .reverse();

  it('sends a query FerretDB answers from the _id index, in order, without sorting every call', async () => {
    started.length = 0;
    const mdb = monitored.db(db.databaseName);
    await listCalls(mdb, 'ws_big', {}, { beforeId: null, limit: 25 });
    const find = started.find((e) => e.commandName === 'find')!;
    const explained = await mdb.command({ explain: { find: 'calls', filter: find.command.filter, sort: find.command.sort, limit: find.command.limit } });
    const plan = JSON.stringify(explained);
    expect(plan).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(explained.sortPushdown).toBe(true);
  });

  it('pages each workspace newest first, filtered, a cursor page continuing where the last ended', async () => {
    const pages: string[] = [];
    let beforeId: string | null = null;
    for (;;) {
      const page: CallDoc[] = await listCalls(db, 'ws_big', {}, { beforeId, limit: 25 });
      pages.push(...page.map((c) => c._id));
      if (page.length < 25) break;
      beforeId = page[page.length - 1]!._id;
    }
    expect(pages).toEqual(expected('ws_big'));
    expect((await listCalls(db, 'ws_small', {}, { beforeId: null, limit: 100 })).map((c) => c._id)).toEqual(expected('ws_small'));
    expect((await listCalls(db, 'ws_big', { status: 'failed' }, { beforeId: null, limit: 100 })).map((c) => c._id)).toEqual(expected('ws_big', (c) => c.status === 'failed'));
    expect((await listCalls(db, 'ws_small', { to: '+919811122233' }, { beforeId: null, limit: 5 })).map((c) => c._id)).toEqual(expected('ws_small', (c) => c.to === '+919811122233').slice(0, 5));
    const some = expected('ws_big')[10]!;
    expect((await listCalls(db, 'ws_big', {}, { beforeId: some, limit: 3 })).map((c) => c._id)).toEqual(expected('ws_big').slice(11, 14));
  });
});
