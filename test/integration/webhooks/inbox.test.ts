import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { appendEvent } from '../../../src/events/eventStore';
import { DRAIN_BATCH, deliveryWorkflowId, emptyRetryQueues, webhookInboxEntryId, type DeliveryRef, type DrainInput } from '../../../src/webhooks/contracts';
import { webhookDeliveries } from '../../../src/webhooks/deliveries';
import { handOver } from '../../../src/webhooks/deliverySignals';
import { drainEndpoint } from '../../../src/webhooks/drain';
import { INBOX_STALE_MS, createInboxClaimer, inboxEntryDoc, webhookInbox, webhookInboxState, webhookInboxStateId } from '../../../src/webhooks/inbox';
import { insertWebhookEndpoint } from '../../support/documents';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { hookedDb } from '../../support/hookedDb';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';

/**
 * An endpoint's MongoDB inbox (src/webhooks/inbox.ts) against FerretDB, without Temporal:
 * publishers claim slots with unique inserts (several at once leave no gap and no slot twice),
 * a drain takes them from its head and says when the workflow goes idle, and a publisher
 * signals only a workflow that is idle, silent for too long, or of an earlier release (no
 * inbox state).
 */
describe('an endpoint inbox', () => {
  let store: Awaited<ReturnType<typeof openTestDb>>;
  let db: Db;
  let receiver: WebhookReceiver;
  const deps = () => ({ db, allowPrivate: true, clock: () => Date.now(), now: () => new Date() });

  beforeAll(async () => {
    store = await openTestDb(testConfig());
    db = store.db;
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await store?.drop();
  });

  /** A Temporal client that records the signal-with-starts it is asked for. */
  function recordingTemporal() {
    const signals: { workflowId: string; signal: string; args: unknown[] }[] = [];
    const client = {
      workflow: {
        async signalWithStart(_type: string, options: { workflowId: string; signal: { name: string }; signalArgs: unknown[] }) {
          signals.push({ workflowId: options.workflowId, signal: options.signal.name, args: options.signalArgs });
          return {};
        },
      },
    } as unknown as Client;
    return { client, signals };
  }

  async function setUp(path: string, count: number) {
    const tenantId = uniqueName('ws');
    const endpoint = await insertWebhookEndpoint(db, tenantId, receiver.url(path));
    const refs: DeliveryRef[] = [];
    for (let i = 0; i < count; i++) {
      const event = await appendEvent(db, { tenantId, type: 'ticket.created', dedupeKey: `t:${i}`, data: { ticket_id: `tkt_${i}` }, createdAt: new Date() });
      refs.push({ deliveryId: deliveryWorkflowId(event._id, endpoint._id), eventId: event._id, trigger: 'event' });
    }
    const input = (head: number | null, options: { mayIdle?: boolean; deleteTo?: number } = {}): DrainInput => ({
      endpointId: endpoint._id,
      tenantId,
      fresh: [],
      park: [],
      queues: emptyRetryQueues(),
      now: Date.now(),
      inbox: { head, mayIdle: options.mayIdle ?? true, deleteFrom: 0, deleteTo: options.deleteTo ?? 0 },
    });
    const slot = (seq: number) => webhookInbox(db).findOne({ _id: webhookInboxEntryId(endpoint._id, seq) });
    return { endpoint, tenantId, refs, input, slot, arrived: () => receiver.received.filter((r) => r.path === path) };
  }

  it('several publishers at once fill consecutive slots, each delivery once, and the drain takes them in slot order', async () => {
    // Four processes (a claimer each), each handing over its share in batches of two: more than a drain takes.
    const per = (DRAIN_BATCH + 8) / 4;
    const total = per * 4;
    const { endpoint, refs, input, slot, arrived } = await setUp('/claims', total);
    const claimers = Array.from({ length: 4 }, () => createInboxClaimer(db));
    await Promise.all(
      claimers.map(async (claimer, c) => {
        for (let i = 0; i < per; i += 2) await claimer.claim(endpoint._id, refs.slice(c * per + i, Math.min(c * per + i + 2, (c + 1) * per)));
      }),
    );
    const slots = await Promise.all(Array.from({ length: total + 1 }, (_, seq) => slot(seq)));
    expect(slots[total]).toBeNull();
    expect(new Set(slots.slice(0, total).map((s) => s?.delivery_id)).size).toBe(total);
    // Each publisher's own deliveries keep their order.
    for (let c = 0; c < 4; c++) {
      const own = refs.slice(c * per, (c + 1) * per).map((r) => r.deliveryId);
      expect(slots.map((s) => s?.delivery_id).filter((id) => id !== undefined && own.includes(id))).toEqual(own);
    }

    // A new run first learns the head (no inbox state yet: 0), then drains a batch, then the rest.
    const learnt = await drainEndpoint(deps(), input(null));
    expect(learnt.inbox).toEqual({ head: 0, empty: false, deletedUpTo: 0 });
    const first = await drainEndpoint(deps(), input(0));
    expect(first.inbox).toEqual({ head: DRAIN_BATCH, empty: false, deletedUpTo: 0 });
    expect(first.totals.succeeded).toBe(DRAIN_BATCH);
    expect(await webhookInboxState(db).findOne({ _id: webhookInboxStateId(endpoint._id) })).toMatchObject({ head: DRAIN_BATCH, idle: false });
    // The workflow's history holds the first drain: its slots go.
    const rest = await drainEndpoint(deps(), input(DRAIN_BATCH, { deleteTo: DRAIN_BATCH }));
    expect(rest.inbox).toEqual({ head: total, empty: true, deletedUpTo: DRAIN_BATCH });
    expect(new Set(arrived().map((a) => a.headers['webhook-id'])).size).toBe(total);
    expect(arrived()).toHaveLength(total);
    const left = await Promise.all(Array.from({ length: total }, (_, seq) => slot(seq)));
    expect(left.map((s, seq) => (s === null ? null : seq)).filter((seq) => seq !== null)).toEqual(Array.from({ length: total - DRAIN_BATCH }, (_, i) => DRAIN_BATCH + i));
    // The state says the workflow sleeps, and how far the inbox was emptied.
    expect(await webhookInboxState(db).findOne({ _id: webhookInboxStateId(endpoint._id) })).toMatchObject({ head: total, idle: true, deleted: DRAIN_BATCH });
  });

  it('a publisher signals only a workflow that is idle or silent for too long, or one with no inbox state (an earlier release)', async () => {
    const { endpoint, tenantId, refs, input } = await setUp('/wake', 4);
    const { client, signals } = recordingTemporal();
    const claimer = createInboxClaimer(db);

    // No inbox state yet: the deliveries themselves, as a run of an earlier release takes them.
    await handOver(claimer, client, 'tq', tenantId, endpoint._id, [refs[0]!]);
    expect(signals).toEqual([{ workflowId: `webhooks:${endpoint._id}`, signal: 'deliver', args: [[refs[0]]] }]);

    // The drain found more in the inbox, or may not idle (it hands over next): no signal.
    await drainEndpoint(deps(), input(0, { mayIdle: false }));
    expect(await webhookInboxState(db).findOne({ _id: webhookInboxStateId(endpoint._id) })).toMatchObject({ head: 1, idle: false });
    await handOver(claimer, client, 'tq', tenantId, endpoint._id, [refs[1]!]);
    expect(signals).toHaveLength(1);
    // A "draining" state nobody has written for longer than any drain lasts is not believed.
    const later = () => new Date(Date.now() + INBOX_STALE_MS + 1_000);
    await handOver(claimer, client, 'tq', tenantId, endpoint._id, [], later);
    expect(signals.slice(1)).toEqual([{ workflowId: `webhooks:${endpoint._id}`, signal: 'wake', args: [] }]);
    signals.splice(1);

    // The drain found the inbox empty and declared the workflow idle: the next publisher wakes it.
    const drained = await drainEndpoint(deps(), input(1));
    expect(drained.inbox).toMatchObject({ head: 2, empty: true });
    await handOver(claimer, client, 'tq', tenantId, endpoint._id, [refs[2]!, refs[3]!]);
    expect(signals.slice(1)).toEqual([{ workflowId: `webhooks:${endpoint._id}`, signal: 'wake', args: [] }]);
    expect((await webhookInbox(db).findOne({ _id: webhookInboxEntryId(endpoint._id, 3) }))?.delivery_id).toBe(refs[3]!.deliveryId);
  });

  it('a drain that found the inbox empty still takes a delivery parked 150 ms into its wait, without declaring the workflow idle', async () => {
    const { endpoint, refs, input, arrived } = await setUp('/linger', 2);
    await drainEndpoint(deps(), input(0, { mayIdle: false })); // an empty inbox: the head is 0
    await webhookInbox(db).insertOne(inboxEntryDoc(endpoint._id, 0, refs[0]!, new Date()));
    await drainEndpoint(deps(), input(0, { mayIdle: false })); // takes slot 0: the head is 1
    // The drain's reads of the head slot are its clock: the first starts it, and the first read
    // 150 ms or more after it parks the delivery before it looks. Parked by a timer instead, the
    // insert itself had to land within the wait, and an insert 200 ms slower (a loaded machine) did not.
    const headSlot = webhookInboxEntryId(endpoint._id, 1);
    const parking: { firstReadAt: number | null; done: Promise<unknown> | null } = { firstReadAt: null, done: null };
    const parkingDb = hookedDb(db, ['findOne'], async (call) => {
      if (call.collection === 'webhook_inbox' && (call.args[0] as { _id?: unknown } | undefined)?._id === headSlot) {
        parking.firstReadAt ??= performance.now();
        if (!parking.done && performance.now() - parking.firstReadAt >= 150) {
          parking.done = webhookInbox(db).insertOne(inboxEntryDoc(endpoint._id, 1, refs[1]!, new Date()));
        }
        await parking.done;
      }
      return call.run();
    });
    const second = await drainEndpoint({ ...deps(), db: parkingDb }, input(1));
    expect(parking.done).not.toBeNull();
    // Before issue 36 the wait was 100 ms: the drain declared the workflow idle and the publisher had to wake it.
    expect(second.inbox).toMatchObject({ empty: false });
    expect(await webhookInboxState(db).findOne({ _id: webhookInboxStateId(endpoint._id) })).toMatchObject({ head: 1, idle: false });
    const third = await drainEndpoint(deps(), input(1, { mayIdle: false }));
    expect(third.inbox).toMatchObject({ head: 2 });
    expect(arrived().map((r) => r.headers['webhook-id'])).toEqual([refs[0]!.eventId, refs[1]!.eventId]);
  });

  it('a publisher that filled a slot the drain had already passed claims again past the head', async () => {
    const { endpoint, refs, input, slot } = await setUp('/stale', 7);
    const stale = createInboxClaimer(db);
    await stale.claim(endpoint._id, refs.slice(0, 3)); // slots 0-2; it remembers 3
    await createInboxClaimer(db).claim(endpoint._id, refs.slice(3, 6)); // another process: 3-5
    await drainEndpoint(deps(), input(0)); // takes 0-5: head 6
    await drainEndpoint(deps(), input(6, { deleteTo: 6 })); // that drain is in the history: 0-5 go
    expect(await slot(3)).toBeNull();

    // The stale process inserts at 3 (free again), reads the head (6) and moves the delivery to 6.
    await stale.claim(endpoint._id, [refs[6]!]);
    expect(await slot(3)).toBeNull();
    expect((await slot(6))?.delivery_id).toBe(refs[6]!.deliveryId);
    const next = await drainEndpoint(deps(), input(6));
    expect(next.totals.succeeded).toBe(1);
  });

  it('run again after it wrote the head (its worker died), a drain reads the same entries, sends nothing twice and keeps every retry place', async () => {
    const { endpoint, refs, input, arrived } = await setUp('/rerun', 6);
    const previous = receiver.answer;
    receiver.answer = (r, i) => (r.path === '/rerun' ? 503 : previous(r, i));
    try {
      const claimer = createInboxClaimer(db);
      await claimer.claim(endpoint._id, refs.slice(0, 3));
      const first = await drainEndpoint(deps(), input(0));
      // A second drain, also never recorded in the history, takes the next three.
      await claimer.claim(endpoint._id, refs.slice(3));
      const second = await drainEndpoint(deps(), { ...input(first.inbox!.head), queues: first.queues });
      expect(second.inbox?.head).toBe(6);
      expect(second.queues[1]).toMatchObject({ head: 0, tail: 6 });

      // The worker died: the first drain runs again from the history's input. Nothing was
      // deleted, so it reads the entries both runs took (and the second's, now there too),
      // sends nothing, and keeps each delivery's place in the retry queue.
      const again = await drainEndpoint(deps(), input(0));
      expect(again.inbox).toMatchObject({ head: 6 });
      expect(again.queues).toEqual(second.queues);
      expect(again.totals.attempts).toBe(0);
      expect(arrived()).toHaveLength(6);
      for (const ref of refs) expect(await webhookDeliveries(db).findOne({ _id: ref.deliveryId })).toMatchObject({ status: 'pending', attempt_count: 1 });
    } finally {
      receiver.answer = previous;
    }
  });
});
