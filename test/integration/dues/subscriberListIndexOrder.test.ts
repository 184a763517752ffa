import { MongoClient, type CommandStartedEvent, type Db, type Document } from 'mongodb';
import { newId } from '../../../src/domain/ids';
import { duesCollections, subscribersPage, type SubscriberDoc, type SubscriberStatus } from '../../../src/dues/store';
import { newSubscriberDoc } from '../../../src/dues/subscribers';
import { openTestDb, testConfig } from '../../support/env';

/**
 * The subscribers lists (public and console, both through src/dues/store.ts subscribersPage) on
 * FerretDB (SQLite): the query is answered by walking the `_id` index newest first
 * (scripts/patches/ferretdb-v1.24.2-id-range.patch), so a page reads about what it shows instead
 * of every subscriber of every workspace (issue 36). And the pages are what they were: newest
 * first, one status, each workspace only its own, a cursor page never repeating or skipping one.
 */
describe('the subscribers list reads the subscribers index in order', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let monitored: MongoClient;
  const started: CommandStartedEvent[] = [];
  const base = Date.parse('2026-06-01T00:00:00Z');
  const docs: SubscriberDoc[] = [];

  /** Made as a create makes it (src/dues/subscribers.ts), one a minute, then paused or not. */
  const subscriber = (i: number, tenantId: string, status: SubscriberStatus): SubscriberDoc => {
    const at = new Date(base + i * 60_000);
    const input = { name: `Person ${i}`, phone: `+9198${String(i).padStart(8, '0')}`, email: null, plan_name: 'Gym monthly', amount: 1000, cycle_unit: 'monthly', cycle_days: null, due_day: 1, start_date: '2026-06-01' } as const;
    return { ...newSubscriberDoc({ _id: newId('sub', at), tenant_id: tenantId, request: null, input, created_at: at }, null, at), status };
  };

  beforeAll(async () => {
    const config = testConfig();
    ({ db, drop } = await openTestDb(config));
    for (let i = 0; i < 90; i++) docs.push(subscriber(i, i % 4 === 0 ? 'ws_small' : 'ws_big', i % 5 === 0 ? 'paused' : 'active'));
    await duesCollections(db).subscribers.insertMany(docs);
    // Documents of other shapes beside the subscribers, which no page may show.
    await db.collection<Document>('dues_subscribers').insertMany([{ _id: 'sua', tenant_id: 'ws_big' }, { _id: 7, tenant_id: 'ws_big' } as Document]);
    monitored = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
    monitored.on('commandStarted', (event) => started.push(event));
  });

  afterAll(async () => {
    await monitored?.close();
    await drop?.();
  });

  const expected = (tenantId: string, keep: (s: SubscriberDoc) => boolean = () => true) =>
    docs
      .filter((s) => s.tenant_id === tenantId && keep(s))
      .map((s) => s._id)
      .sort()
      .reverse();

  it('sends a query FerretDB answers from the _id index, in order, without sorting every subscriber', async () => {
    started.length = 0;
    const mdb = monitored.db(db.databaseName);
    await subscribersPage(mdb, 'ws_big', {}, 25);
    const find = started.find((e) => e.commandName === 'find')!;
    const explained = await mdb.command({ explain: { find: 'dues_subscribers', filter: find.command.filter, sort: find.command.sort, limit: find.command.limit } });
    const plan = JSON.stringify(explained);
    expect(plan).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(explained.sortPushdown).toBe(true);
  });

  it('pages each workspace newest first, one status, a cursor page continuing where the last ended', async () => {
    const pages: string[] = [];
    let beforeId: string | undefined;
    for (;;) {
      const page = await subscribersPage(db, 'ws_big', { beforeId }, 25);
      pages.push(...page.map((s) => s._id));
      if (page.length < 25) break;
      beforeId = page[page.length - 1]!._id;
    }
    expect(pages).toEqual(expected('ws_big'));
    expect((await subscribersPage(db, 'ws_small', {}, 200)).map((s) => s._id)).toEqual(expected('ws_small'));
    expect((await subscribersPage(db, 'ws_big', { status: 'paused' }, 200)).map((s) => s._id)).toEqual(expected('ws_big', (s) => s.status === 'paused'));
    const some = expected('ws_big')[10]!;
    expect((await subscribersPage(db, 'ws_big', { beforeId: some }, 3)).map((s) => s._id)).toEqual(expected('ws_big').slice(11, 14));
  });
});
