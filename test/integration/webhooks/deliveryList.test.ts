import { MongoClient, type CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { webhookDeliveries, type DeliveryStatus, type WebhookDeliveryDoc } from '../../../src/webhooks/deliveries';
import { deliveryEntries, deliveryStatusEntries, endpointEntryRange, entryOf, statusEntryOf } from '../../../src/webhooks/deliveryEntries';
import { endpointDeliveriesPage } from '../../../src/webhooks/deliveryList';
import { startTestApi, type TestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The console's list of an endpoint's deliveries through HTTP, read from its entries
 * (src/webhooks/deliveryEntries.ts): deliveries recorded before the entries existed get theirs
 * on the first list; the order (newest created_at, then id), the status and event filters and
 * the cursor are what they were; the entries' query is answered from the `_id` index in order
 * (issue 36: the list answered 503 at 10,000 deliveries); an entry its record contradicts is
 * skipped without shortening the page.
 */
describe('console webhook deliveries list', () => {
  let api: TestApi;
  let admin: { Authorization: string };
  let ws: string;
  let other: string;
  let hook: string;
  let otherHook: string;
  const base = Date.parse('2026-11-01T00:00:00Z');
  const docs: WebhookDeliveryDoc[] = [];

  const delivery = (i: number, endpointId: string, tenantId: string, status: DeliveryStatus): WebhookDeliveryDoc => {
    // Pairs share a millisecond, so the id breaks the tie.
    const at = new Date(base + Math.floor(i / 2) * 1000);
    const event = `evt_${String(900 - i).padStart(4, '0')}`;
    return {
      _id: `${event}:${endpointId}`,
      tenant_id: tenantId,
      endpoint_id: endpointId,
      event_id: event,
      event_type: 'ticket.created',
      trigger: 'event',
      status,
      attempt_count: 1,
      last_status_code: status === 'succeeded' ? 200 : 500,
      last_error: null,
      next_attempt_at: null,
      cancel_reason: null,
      created_at: at,
      completed_at: at,
    };
  };

  const call = (path: string) => request(api.server).get(`/console/v1${path}`).set(admin);
  const createHook = async (workspace: string) =>
    (await request(api.server).post(`/console/v1/workspaces/${workspace}/webhooks`).set(admin).send({ url: 'https://93.184.215.14/hooks/orders', event_types: [], enabled: false })).body
      .webhook_id as string;

  beforeAll(async () => {
    api = await startTestApi();
    admin = bearer(api.config.CONSOLE_TOKEN!);
    ws = (await createTestWorkspace(api.db)).workspaceId;
    other = (await createTestWorkspace(api.db)).workspaceId;
    hook = await createHook(ws);
    otherHook = await createHook(other);
    for (let i = 0; i < 70; i++) docs.push(delivery(i, hook, ws, i % 7 === 0 ? 'failed' : 'succeeded'));
    // Another workspace's endpoint's deliveries, which this list never shows.
    const others = Array.from({ length: 10 }, (_, i) => delivery(i, otherHook, other, 'failed'));
    // Written as before the entries existed: the first list gives them theirs.
    await webhookDeliveries(api.db).insertMany([...docs, ...others]);
  });

  afterAll(async () => {
    await api?.close();
  });

  const expected = (keep: (d: WebhookDeliveryDoc) => boolean = () => true) =>
    docs
      .filter(keep)
      .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a._id < b._id ? 1 : -1))
      .map((d) => d._id);

  async function everyPage(query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (;;) {
      const res = await call(`/workspaces/${ws}/webhooks/${hook}/deliveries?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      ids.push(...res.body.items.map((d: { delivery_id: string }) => d.delivery_id));
      cursor = res.body.next_cursor;
      if (!cursor) return ids;
    }
  }

  it('pages newest first, then by id, a cursor page continuing where the last ended; filters on status and event', async () => {
    expect(await everyPage('', 25)).toEqual(expected());
    expect(await everyPage('&status=failed', 4)).toEqual(expected((d) => d.status === 'failed'));
    expect(await everyPage('&status=pending', 4)).toEqual([]);
    expect(await everyPage(`&event_id=${docs[33]!.event_id}`, 25)).toEqual([docs[33]!._id]);
    // The backfill ran once, for this endpoint only.
    expect(await deliveryEntries(api.db).countDocuments({ endpoint_id: hook })).toBe(70);
    expect(await deliveryEntries(api.db).countDocuments({ endpoint_id: otherHook })).toBe(0);
    expect(await deliveryStatusEntries(api.db).countDocuments({ endpoint_id: hook, status: 'failed' })).toBe(10);
  });

  it('reads the entries from the _id index in order, and a page of 25 reads 25 entries and 25 deliveries; one status reads its own entries', async () => {
    const monitored = await new MongoClient(api.config.MONGODB_URL, { monitorCommands: true }).connect();
    try {
      const started: CommandStartedEvent[] = [];
      monitored.on('commandStarted', (event) => started.push(event));
      const mdb = monitored.db(api.db.databaseName);
      const page = await endpointDeliveriesPage(mdb, ws, hook, {}, 25);
      expect(page.map((d) => d._id)).toEqual(expected().slice(0, 25));
      const failed = await endpointDeliveriesPage(mdb, ws, hook, { status: 'failed' }, 5);
      expect(failed.map((d) => d._id)).toEqual(expected((d) => d.status === 'failed').slice(0, 5));
      for (const collection of ['webhook_delivery_entries', 'webhook_delivery_status_entries']) {
        const find = started.find((e) => e.commandName === 'find' && e.command.find === collection)!;
        const explained = await mdb.command({ explain: { find: collection, filter: find.command.filter, sort: find.command.sort, limit: find.command.limit } });
        const plan = JSON.stringify(explained);
        expect(plan).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
        expect(plan).not.toMatch(/TEMP B-TREE/);
        expect(explained.sortPushdown).toBe(true);
      }
      expect(started.filter((e) => e.commandName === 'find').map((e) => e.command.find)).toEqual([
        ...['webhook_delivery_entry_backfills', 'webhook_delivery_entries', 'webhook_deliveries'],
        ...['webhook_delivery_entry_backfills', 'webhook_delivery_status_entries', 'webhook_deliveries'],
      ]);
    } finally {
      await monitored.close();
    }
  });

  it('skips an entry without its record or with another status, and still fills the page', async () => {
    const newest = docs.reduce((a, b) => (a.created_at > b.created_at ? a : b));
    // A drain that died after its entry and before its record; and a status the record has left.
    await deliveryEntries(api.db).insertOne(entryOf({ ...newest, _id: 'evt_9999:gone', event_id: 'evt_9999', created_at: new Date(newest.created_at.getTime() + 1) }));
    const succeeded = expected((d) => d.status === 'succeeded');
    const stale = docs.find((d) => d._id === succeeded[1])!;
    await deliveryStatusEntries(api.db).insertOne(statusEntryOf({ ...entryOf(stale), status: 'failed' }));
    const first = await call(`/workspaces/${ws}/webhooks/${hook}/deliveries?limit=3`);
    expect(first.body.items.map((d: { delivery_id: string }) => d.delivery_id)).toEqual(expected().slice(0, 3));
    expect(await everyPage('&status=failed', 4)).toEqual(expected((d) => d.status === 'failed'));
    expect(endpointEntryRange(ws, hook).$gt).toBe(`${ws}|${hook}|`);
  });
});
