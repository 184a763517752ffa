import type { Db } from 'mongodb';
import { appendEvent, eventsCollection, undispatchedEvents } from '../../../src/events/eventStore';
import { sweepExpiredEvents } from '../../../src/events/retention';
import { claimLineStream, sweepExpiredStreamClaims } from '../../../src/calls/line/lineCalls';
import { sweepExpiredSendIntents } from '../../../src/messaging/sendIntents';
import { sendIntentsCollection, type SendIntentDoc } from '../../../src/messaging/sendIntents';
import { sendResolutionsCollection, sweepExpiredSendResolutions } from '../../../src/messaging/unknownOutcomes';
import { createEventSweeper } from '../../../src/events/sweeper';
import { IdempotencyStore, type ClaimScope } from '../../../src/idempotency/store';
import { webhookDeliveries, type WebhookDeliveryDoc } from '../../../src/webhooks/deliveries';
import { deliveryEntries, deliveryStatusEntries, entryOf, statusEntryOf } from '../../../src/webhooks/deliveryEntries';
import { attemptTallies, attemptTallyId } from '../../../src/webhooks/attemptTallies';
import { sweepExpiredDeliveries } from '../../../src/webhooks/deliveryRetention';
import { waitFor } from '../../../src/local/net';
import { openTestDb, testConfig } from '../../support/env';

/** What expires (issue 12 point 9): each sweep deletes only what may go, a bounded number per pass. */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let db: Db;
let drop: () => Promise<void>;
beforeAll(async () => ({ db, drop } = await openTestDb(testConfig())));
afterAll(async () => drop());

describe('idempotency records', () => {
  const scope = (key: string): ClaimScope => ({ tenantId: 'ws_ret', keyId: 'key_ret', endpoint: 'POST /api/v1/tickets', idempotencyKey: key });

  it('are deleted 24 h after their first request, not before, and a swept key runs fresh', async () => {
    const store = new IdempotencyStore(db);
    const now = new Date();
    for (const key of ['old-1', 'old-2', 'old-3']) {
      expect(await store.claim(scope(key), Buffer.from('{}'), 'req_old', new Date(now.getTime() - DAY - 60_000))).toMatchObject({ kind: 'claimed' });
      await store.complete(scope(key), 'req_old', { status: 201, body: '{}' });
    }
    expect(await store.claim(scope('young'), Buffer.from('{}'), 'req_young', new Date(now.getTime() - DAY + 60_000))).toMatchObject({ kind: 'claimed' });
    await store.complete(scope('young'), 'req_young', { status: 201, body: '{"young":true}' });

    // Bounded: one batch of two deletes two of the three expired records.
    expect(await store.sweep(now, { batchSize: 2, maxBatches: 1 })).toBe(2);
    expect(await store.sweep(now)).toBe(1);
    expect(await store.sweep(now)).toBe(0);
    const left = await db.collection('idempotency_keys').find({}).toArray();
    expect(left.map((d) => d._id)).toEqual([IdempotencyStore.id(scope('young'))]);
    // The young key still replays; an expired one is claimed again.
    expect(await store.claim(scope('young'), Buffer.from('{}'), 'req_new', now)).toEqual({ kind: 'replay', response: { status: 201, body: '{"young":true}' } });
    expect(await store.claim(scope('old-1'), Buffer.from('{"x":1}'), 'req_new', now)).toMatchObject({ kind: 'claimed' });
  });
});

describe('events and deliveries', () => {
  const delivery = (id: string, createdAt: Date, status: WebhookDeliveryDoc['status']): WebhookDeliveryDoc => ({
    _id: id,
    tenant_id: 'ws_ret',
    endpoint_id: 'whk_ret',
    event_id: id.split(':')[0]!,
    event_type: 'ticket.created',
    trigger: 'event',
    status,
    attempts: [{ attempt: 1, attempted_at: createdAt, url: 'https://example.com/h', status_code: 200, duration_ms: 5, error: null, response_body: 'ok' }],
    attempt_count: 1,
    last_status_code: 200,
    last_error: null,
    next_attempt_at: null,
    cancel_reason: null,
    created_at: createdAt,
    completed_at: createdAt,
  });

  it('delete dispatched events and deliveries past the 7-day retention, keep younger ones and undispatched events', async () => {
    const now = new Date();
    const old = new Date(now.getTime() - 7 * DAY - HOUR);
    const young = new Date(now.getTime() - 7 * DAY + HOUR);
    const event = (key: string, createdAt: Date) => appendEvent(db, { tenantId: 'ws_ret', type: 'ticket.created', dedupeKey: key, data: {}, createdAt });
    const oldDispatched = [await event('a', old), await event('b', old), await event('c', old)];
    const oldUndispatched = await event('d', old);
    const youngDispatched = await event('e', young);
    for (const e of [...oldDispatched, youngDispatched]) {
      await eventsCollection(db).updateOne({ _id: e._id }, { $set: { dispatched_at: e.created_at } });
    }
    const deliveries = [
      delivery(`${oldDispatched[0]!._id}:whk_ret`, old, 'succeeded'),
      delivery(`${oldDispatched[1]!._id}:whk_ret`, old, 'failed'),
      delivery(`${youngDispatched._id}:whk_ret`, young, 'succeeded'),
    ];
    await webhookDeliveries(db).insertMany(deliveries);
    // The console list's entries go with their deliveries.
    await deliveryEntries(db).insertMany(deliveries.map(entryOf));
    await deliveryStatusEntries(db).insertMany(deliveries.map((d) => statusEntryOf(entryOf(d))));
    // The endpoint's hourly attempt counts go with the deliveries they counted.
    const tally = (hour: Date) => ({ _id: attemptTallyId('whk_ret', hour.getTime()), tenant_id: 'ws_ret', endpoint_id: 'whk_ret', hour, attempts: 2, succeeded: 1 });
    await attemptTallies(db).insertMany([tally(old), tally(young)]);

    // The worker runs both: the events' sweep, then the deliveries' registered with it.
    const sweep = async (options: Parameters<typeof sweepExpiredEvents>[0]) => ({ ...(await sweepExpiredEvents(options)), ...(await sweepExpiredDeliveries(options)) });
    expect(await sweep({ db, now: () => now, batchSize: 2, maxBatches: 1 })).toEqual({ events: 2, deliveries: 2, tallies: 1, entries: 4 });
    expect(await sweep({ db, now: () => now })).toEqual({ events: 1, deliveries: 0, tallies: 0, entries: 0 });
    expect(await sweep({ db, now: () => now })).toEqual({ events: 0, deliveries: 0, tallies: 0, entries: 0 });
    expect((await attemptTallies(db).find({}).toArray()).map((t) => t.hour)).toEqual([young]);
    expect((await eventsCollection(db).find({}).toArray()).map((e) => e._id).sort()).toEqual([oldUndispatched._id, youngDispatched._id].sort());
    expect((await webhookDeliveries(db).find({}).toArray()).map((d) => d._id)).toEqual([`${youngDispatched._id}:whk_ret`]);
    expect((await deliveryEntries(db).find({}).toArray()).map((e) => e.delivery_id)).toEqual([`${youngDispatched._id}:whk_ret`]);
    expect((await deliveryStatusEntries(db).find({}).toArray()).map((e) => e.delivery_id)).toEqual([`${youngDispatched._id}:whk_ret`]);
  });
});

describe('send intents', () => {
  const intent = (id: string, state: SendIntentDoc['state'], createdAt: Date) =>
    ({ _id: id, tenant_id: 'ws_ret', state, created_at: createdAt, updated_at: createdAt }) as unknown as SendIntentDoc;

  it('go 7 days after a recorded send, a bounded number per pass; one whose outcome is unknown stays', async () => {
    const now = new Date();
    const old = new Date(now.getTime() - 7 * DAY - HOUR);
    const young = new Date(now.getTime() - 7 * DAY + HOUR);
    await sendIntentsCollection(db).insertMany([
      intent('int_old_sent_1', 'sent', old),
      intent('int_old_sent_2', 'sent', old),
      intent('int_old_sending', 'sending', old),
      intent('int_old_sent_3', 'sent', old),
      intent('int_young_sent', 'sent', young),
    ]);

    expect(await sweepExpiredSendIntents({ db, now: () => now, batchSize: 2, maxBatches: 1 })).toBe(2);
    // The unknown outcome at the front of the next batch ends that pass: it keeps its slot, never a scan.
    expect(await sweepExpiredSendIntents({ db, now: () => now, batchSize: 2, maxBatches: 1 })).toBe(1);
    expect(await sweepExpiredSendIntents({ db, now: () => now })).toBe(0);
    expect((await sendIntentsCollection(db).find({}).toArray()).map((d) => d._id).sort()).toEqual(['int_old_sending', 'int_young_sent']);
  });

  it('pause after each batch and end between batches when the process stops, as the other sweeps do', async () => {
    await sendIntentsCollection(db).deleteMany({});
    const now = new Date();
    const old = new Date(now.getTime() - 7 * DAY - HOUR);
    await sendIntentsCollection(db).insertMany(Array.from({ length: 6 }, (_, n) => intent(`int_paced_${n}`, 'sent', old)));
    const left = () => sendIntentsCollection(db).countDocuments({});

    // A stopping worker's pass deletes nothing.
    const stopped = new AbortController();
    stopped.abort();
    expect(await sweepExpiredSendIntents({ db, now: () => now, batchSize: 2, signal: stopped.signal })).toBe(0);
    expect(await left()).toBe(6);

    // The first batch deleted, the pass pausing; stopped then, it ends before the next batch.
    const stopping = new AbortController();
    let settled = false;
    const pass = sweepExpiredSendIntents({ db, now: () => now, batchSize: 2, pauseMs: 600_000, signal: stopping.signal }).finally(() => (settled = true));
    await waitFor('the first batch deleted', async () => (await left()) <= 4, 10_000, 20);
    expect({ left: await left(), settled }).toEqual({ left: 4, settled: false });
    stopping.abort();
    expect(await pass).toBe(2);
    expect(await left()).toBe(4);
  });
});

describe('send resolutions', () => {
  const resolution = (id: string, resolvedAt: Date) => ({ _id: id, tenant_id: 'ws_ret', message_id: `wamid.${id}`, at: resolvedAt, resolved_at: resolvedAt });

  it('go 14 days after their claim (twice Meta’s 7 days of webhook redelivery), a bounded number per pass; a younger one stays', async () => {
    const now = new Date();
    const old = new Date(now.getTime() - 14 * DAY - HOUR);
    const young = new Date(now.getTime() - 14 * DAY + HOUR);
    await sendResolutionsCollection(db).insertMany([
      resolution('ws_ret|campaign|cmp_1|rcp_1', old),
      resolution('ws_ret|campaign|cmp_1|rcp_2', old),
      resolution('ws_ret|campaign|cmp_1|rcp_3', old),
      resolution('ws_ret|once|req_4', young),
    ]);

    expect(await sweepExpiredSendResolutions({ db, now: () => now, batchSize: 2, maxBatches: 1 })).toBe(2);
    // The young one in the next batch ends that pass: the sweep reads from the oldest end only.
    expect(await sweepExpiredSendResolutions({ db, now: () => now, batchSize: 2, maxBatches: 1 })).toBe(1);
    expect(await sweepExpiredSendResolutions({ db, now: () => now })).toBe(0);
    expect((await sendResolutionsCollection(db).find({}).toArray()).map((d) => d._id)).toEqual(['ws_ret|once|req_4']);
  });
});

describe('media stream claims', () => {
  it('go with the events’ 7-day retention (their calls are long over); a younger claim still refuses a second stream', async () => {
    const now = new Date();
    expect(await claimLineStream(db, 'call_retOld1', new Date(now.getTime() - 7 * DAY - HOUR))).toBe(true);
    expect(await claimLineStream(db, 'call_retOld2', new Date(now.getTime() - 7 * DAY - HOUR))).toBe(true);
    expect(await claimLineStream(db, 'call_retYoung', new Date(now.getTime() - HOUR))).toBe(true);

    expect(await sweepExpiredStreamClaims({ db, now: () => now })).toBe(2);
    expect(await sweepExpiredStreamClaims({ db, now: () => now })).toBe(0);
    expect(await db.collection('line_stream_claims').find({}).map((d) => d._id).toArray()).toEqual(['call_retYoung|stream']);
    expect(await claimLineStream(db, 'call_retYoung', now)).toBe(false);
  });

  it('pause after each batch and end between batches when the process stops, as the other sweeps do', async () => {
    await db.collection('line_stream_claims').deleteMany({});
    const now = new Date();
    const old = new Date(now.getTime() - 7 * DAY - HOUR);
    for (let n = 0; n < 6; n++) expect(await claimLineStream(db, `call_retPaced${n}`, old)).toBe(true);
    const left = () => db.collection('line_stream_claims').countDocuments({});

    const stopped = new AbortController();
    stopped.abort();
    expect(await sweepExpiredStreamClaims({ db, now: () => now, batchSize: 2, signal: stopped.signal })).toBe(0);
    expect(await left()).toBe(6);

    const stopping = new AbortController();
    let settled = false;
    const pass = sweepExpiredStreamClaims({ db, now: () => now, batchSize: 2, pauseMs: 600_000, signal: stopping.signal }).finally(() => (settled = true));
    await waitFor('the first batch deleted', async () => (await left()) <= 4, 10_000, 20);
    expect({ left: await left(), settled }).toEqual({ left: 4, settled: false });
    stopping.abort();
    expect(await pass).toBe(2);
    expect(await left()).toBe(4);
  });
});

describe('the dispatch sweeper', () => {
  it('reads the undispatched markers, not the events, and drops a marker whose event was never stored', async () => {
    const old = new Date(Date.now() - 120_000);
    await undispatchedEvents(db).deleteMany({}); // the markers the tests above left
    await undispatchedEvents(db).insertOne({ _id: 'evt_neverstored0000000000000', created_at: old });
    const stored = await appendEvent(db, { tenantId: 'ws_ret', type: 'ticket.created', dedupeKey: 'sweep-me', data: {}, createdAt: old });
    const dispatched: string[] = [];
    const sweeper = createEventSweeper({
      db,
      dispatcher: {
        dispatch: async (e) => {
          dispatched.push(e._id);
          await undispatchedEvents(db).deleteOne({ _id: e._id });
        },
      },
    });
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(dispatched).toEqual([stored._id]);
    expect(await undispatchedEvents(db).countDocuments()).toBe(0);
  });
});
