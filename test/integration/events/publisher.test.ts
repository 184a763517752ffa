import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { appendEvent, eventIdFor, eventsCollection, undispatchedEvents, type EventDoc, type EventInput } from '../../../src/events/eventStore';
import { createEventPublisher, type EventDispatcher } from '../../../src/events/publisher';
import { createEndpointDirectory } from '../../../src/webhooks/endpointDirectory';
import { newWebhookEndpoint, webhookEndpoints } from '../../../src/webhooks/endpoints';
import { openTestDb, testConfig, uniqueName } from '../../support/env';

/**
 * The publisher's two paths (docs/decisions/webhooks.md "Events no endpoint receives (one write)"):
 * an event no endpoint receives is one insert, stored dispatched with no marker; one that
 * some endpoint receives is stored marker first and handed to the dispatcher, as before.
 * Commands are counted on a client of its own that reports them.
 */

let db: Db;
let drop: () => Promise<void>;
let client: MongoClient;
const commands: string[] = [];

beforeAll(async () => {
  const config = testConfig();
  ({ drop } = await openTestDb(config));
  client = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
  client.on('commandStarted', (e: CommandStartedEvent) => {
    if (['insert', 'update', 'delete', 'find'].includes(e.commandName)) commands.push(`${e.commandName} ${String(e.command[e.commandName])}`);
  });
  db = client.db(config.MONGODB_DB);
});
afterAll(async () => {
  await client?.close();
  await drop?.();
});

/** A dispatcher that answers receivers from the real directory and records what it is handed. */
function recordingDispatcher(options: { failingQuestion?: boolean } = {}): EventDispatcher & { dispatched: EventDoc[] } {
  // The cases count the endpoint reads: the directory's answers must not expire mid-case (its
  // default 5 s would, on a machine slow enough, and read the endpoints again).
  const directory = createEndpointDirectory(db, { ttlMs: 10 * 60_000 });
  const dispatched: EventDoc[] = [];
  return {
    dispatched,
    async hasReceivers(tenantId, type) {
      if (options.failingQuestion) throw new Error('endpoints unreadable');
      return (await directory.receivers(tenantId, type)).length > 0;
    },
    async dispatch(event) {
      dispatched.push(event);
    },
  };
}

async function workspaceWithEndpoint(eventTypes: string[]): Promise<string> {
  const ws = uniqueName('ws');
  await webhookEndpoints(db).insertOne(newWebhookEndpoint({ _id: uniqueName('whk'), tenant_id: ws, url: 'https://example.com/hook', event_types: eventTypes }, new Date()));
  return ws;
}

function input(ws: string, type: string, key: string, data: Record<string, unknown> = { message_id: 'msg_1' }): EventInput {
  return { tenantId: ws, type, dedupeKey: `${type}:${key}`, data, createdAt: new Date('2026-01-02T03:04:05.678Z') };
}

/** The commands `run` makes, in order. */
async function commandsOf(run: () => Promise<unknown>): Promise<string[]> {
  commands.length = 0;
  await run();
  return [...commands];
}

describe('an event no endpoint receives', () => {
  it('is one insert: stored dispatched, with no marker and no dispatch', async () => {
    // The workspace's one endpoint takes payments only.
    const ws = await workspaceWithEndpoint(['payment.paid']);
    const dispatcher = recordingDispatcher();
    const events = createEventPublisher(db, dispatcher);
    // The first question reads the workspace's endpoints; later ones are answered from the cache.
    expect(await commandsOf(() => events.publish(input(ws, 'message.status', 'first')))).toEqual(['find webhook_endpoints', 'insert events']);

    const before = Date.now();
    let event!: EventDoc;
    expect(await commandsOf(async () => (event = await events.publish(input(ws, 'message.status', 'second'))))).toEqual(['insert events']);
    expect(event.dispatched_at).toBeInstanceOf(Date);
    expect(event.dispatched_at!.getTime()).toBeGreaterThanOrEqual(before);
    expect(await eventsCollection(db).findOne({ _id: event._id })).toEqual(event);
    expect(await undispatchedEvents(db).findOne({ _id: event._id })).toBeNull();
    expect(dispatcher.dispatched).toEqual([]);
    // The envelope is the one every path stores.
    expect(JSON.parse(event.payload)).toEqual({ id: event._id, type: 'message.status', created_at: '2026-01-02T03:04:05Z', tenant_id: ws, data: { message_id: 'msg_1' } });
  });

  it('is stored once per dedupe key: a repeat answers the stored event as it was stored', async () => {
    const ws = uniqueName('ws');
    const events = createEventPublisher(db, recordingDispatcher());
    const first = await events.publish(input(ws, 'conversation.started', 'con_1', { conversation_id: 'con_1' }));
    const again = await events.publish({ ...input(ws, 'conversation.started', 'con_1', { conversation_id: 'con_1', extra: 'ignored' }), createdAt: new Date('2026-05-06T07:08:09Z') });
    expect(again).toEqual(first);
    expect(await eventsCollection(db).countDocuments({ tenant_id: ws })).toBe(1);
    expect(await undispatchedEvents(db).findOne({ _id: first._id })).toBeNull();
  });

  it('found stored undispatched by an earlier attempt is dispatched, not stored again', async () => {
    const ws = uniqueName('ws');
    // An earlier attempt found a receiver, stored the event marker first and died before dispatching.
    const earlier = await appendEvent(db, input(ws, 'message.status', 'earlier'));
    const dispatcher = recordingDispatcher();
    const again = await createEventPublisher(db, dispatcher).publish(input(ws, 'message.status', 'earlier', { message_id: 'other' }));
    expect(again).toEqual(earlier);
    expect(dispatcher.dispatched.map((e) => e._id)).toEqual([earlier._id]);
  });

  it('takes the undispatched path when the receivers cannot be asked, so the sweeper still owns it', async () => {
    const ws = uniqueName('ws');
    const dispatcher = recordingDispatcher({ failingQuestion: true });
    let event!: EventDoc;
    expect(await commandsOf(async () => (event = await createEventPublisher(db, dispatcher).publish(input(ws, 'message.status', 'unasked'))))).toEqual([
      'insert events_undispatched',
      'insert events',
    ]);
    expect(event.dispatched_at).toBeNull();
    expect(await undispatchedEvents(db).findOne({ _id: event._id })).toMatchObject({ _id: event._id });
    expect(dispatcher.dispatched.map((e) => e._id)).toEqual([event._id]);
  });
});

describe('an event some endpoint receives', () => {
  it('is stored marker first, undispatched, and handed to the dispatcher, as before', async () => {
    const ws = await workspaceWithEndpoint([]);
    const dispatcher = recordingDispatcher();
    const events = createEventPublisher(db, dispatcher);
    let event!: EventDoc;
    expect(await commandsOf(async () => (event = await events.publish(input(ws, 'message.status', 'received'))))).toEqual([
      'find webhook_endpoints',
      'insert events_undispatched',
      'insert events',
    ]);
    expect(event.dispatched_at).toBeNull();
    expect(await undispatchedEvents(db).findOne({ _id: event._id })).toMatchObject({ _id: event._id, created_at: event.created_at });
    expect(dispatcher.dispatched.map((e) => e._id)).toEqual([event._id]);
  });

  it('uses the marker path with a dispatcher that cannot say who receives', async () => {
    const ws = uniqueName('ws');
    const dispatched: string[] = [];
    const events = createEventPublisher(db, { dispatch: async (e) => void dispatched.push(e._id) });
    const event = await events.publish(input(ws, 'message.status', 'plain'));
    expect(event.dispatched_at).toBeNull();
    expect(await undispatchedEvents(db).findOne({ _id: event._id })).not.toBeNull();
    expect(dispatched).toEqual([event._id]);
  });
});

describe('received events published at the same time (a burst of producers)', () => {
  it('are stored together while a store is in flight: two inserts for the rest, each publish answered its own event', async () => {
    const ws = await workspaceWithEndpoint(['message.status']);
    const dispatcher = recordingDispatcher();
    const events = createEventPublisher(db, dispatcher);
    await events.publish(input(ws, 'message.status', 'warm')); // the endpoints read, and cached
    const inputs = Array.from({ length: 10 }, (_, i) => input(ws, 'message.status', `burst_${i}`, { message_id: `msg_${i}` }));
    // A repeat of one key among them is the same event.
    inputs.push(input(ws, 'message.status', 'burst_3', { message_id: 'repeated' }));
    let all!: EventDoc[];
    const run = await commandsOf(async () => (all = await Promise.all(inputs.map((one) => events.publish(one)))));
    // The first goes alone at once; the ten that came while it was in flight go in the next store.
    expect(run).toEqual(['insert events_undispatched', 'insert events', 'insert events_undispatched', 'insert events']);
    expect(all.map((e) => e.dedupe_key)).toEqual(inputs.map((i) => i.dedupeKey));
    expect(all[10]).toEqual(all[3]);
    expect(all[3]!.data).toEqual({ message_id: 'msg_3' });
    for (const event of all) {
      expect(event.dispatched_at).toBeNull();
      expect(await eventsCollection(db).findOne({ _id: event._id })).toEqual(event);
      expect(await undispatchedEvents(db).findOne({ _id: event._id })).toEqual({ _id: event._id, created_at: event.created_at });
    }
    expect(await eventsCollection(db).countDocuments({ tenant_id: ws })).toBe(11);
    expect(dispatcher.dispatched.map((e) => e.dedupe_key).sort()).toEqual(['message.status:warm', ...inputs.map((i) => i.dedupeKey)].sort());
  });
});

describe('publishing many at once (publishAll)', () => {
  /** What a stored event holds apart from its store time, for comparing two paths. */
  const stored = (event: EventDoc) => ({ ...event, dispatched_at: event.dispatched_at === null ? null : 'set' });

  it('stores the events no endpoint receives in one insert, the same documents as publish, answered in order', async () => {
    const ws = await workspaceWithEndpoint(['payment.paid']);
    const dispatcher = recordingDispatcher();
    const events = createEventPublisher(db, dispatcher);
    const inputs = [
      input(ws, 'conversation.started', 'con_1', { conversation_id: 'con_1', note: null }),
      input(ws, 'message.status', 'm1:sent'),
      { ...input(ws, 'message.status', 'm1:read', { message_id: 'msg_1', nested: { a: null, b: 1 } }), createdAt: new Date('2026-01-02T03:04:06.999Z') },
    ];
    let all!: EventDoc[];
    expect(await commandsOf(async () => (all = await events.publishAll!(inputs)))).toEqual(['find webhook_endpoints', 'insert events']);
    expect(all.map((e) => e.dedupe_key)).toEqual(inputs.map((i) => i.dedupeKey));
    expect(dispatcher.dispatched).toEqual([]);
    for (const event of all) {
      expect(event.dispatched_at).toBeInstanceOf(Date);
      expect(await eventsCollection(db).findOne({ _id: event._id })).toEqual(event);
      expect(await undispatchedEvents(db).findOne({ _id: event._id })).toBeNull();
    }
    // The same inputs in another workspace through publish store the same documents but for the workspace.
    const other = await workspaceWithEndpoint(['payment.paid']);
    const single = createEventPublisher(db, recordingDispatcher());
    for (const [i, one] of inputs.entries()) {
      const alone = await single.publish({ ...one, tenantId: other });
      const together = stored(all[i]!);
      expect({ ...stored(alone), _id: together._id, tenant_id: ws, payload: together.payload }).toEqual(together);
      expect(JSON.parse(alone.payload)).toEqual({ ...JSON.parse(together.payload), id: alone._id, tenant_id: other });
      expect(alone._id).toBe(eventIdFor(other, one.dedupeKey));
      expect(together._id).toBe(eventIdFor(ws, one.dedupeKey));
    }
    expect(all[2]!.data).toEqual({ message_id: 'msg_1', nested: { b: 1 } });
    expect(all[2]!.created_at).toEqual(new Date('2026-01-02T03:04:06Z'));
  });

  it('answers a dedupe key stored before with the stored event, and stores the rest', async () => {
    const ws = uniqueName('ws');
    const events = createEventPublisher(db, recordingDispatcher());
    const first = await events.publish(input(ws, 'message.status', 'dup', { message_id: 'first' }));
    let all!: EventDoc[];
    const again = [
      input(ws, 'message.status', 'new_1'),
      input(ws, 'message.status', 'dup', { message_id: 'second' }),
      input(ws, 'message.status', 'new_2'),
      input(ws, 'message.status', 'new_1', { message_id: 'twice in one call' }),
    ];
    expect(await commandsOf(async () => (all = await events.publishAll!(again)))).toEqual(['insert events', 'find events']);
    expect(all[1]).toEqual(first);
    expect(all[0]).toEqual(all[3]);
    expect(all[0]!.data).toEqual({ message_id: 'msg_1' });
    expect(all.map((e) => e.dedupe_key)).toEqual(again.map((i) => i.dedupeKey));
    expect(await eventsCollection(db).countDocuments({ tenant_id: ws })).toBe(3);

    // All stored before: one insert refused throughout, one read.
    expect(await commandsOf(async () => expect(await events.publishAll!(again)).toEqual(all))).toEqual(['insert events', 'find events']);
  });

  it('dispatches an event an earlier attempt left undispatched, in its place', async () => {
    const ws = uniqueName('ws');
    const earlier = await appendEvent(db, input(ws, 'message.status', 'left'));
    const dispatcher = recordingDispatcher();
    const all = await createEventPublisher(db, dispatcher).publishAll!([input(ws, 'message.status', 'before'), input(ws, 'message.status', 'left')]);
    expect(all[1]).toEqual(earlier);
    expect(all[0]!.dispatched_at).toBeInstanceOf(Date);
    expect(dispatcher.dispatched.map((e) => e._id)).toEqual([earlier._id]);
  });

  it('takes the marker path for the events some endpoint receives: stored together, dispatched in the inputs order', async () => {
    const ws = await workspaceWithEndpoint(['message.status']);
    const dispatcher = recordingDispatcher();
    const events = createEventPublisher(db, dispatcher);
    const inputs = [
      input(ws, 'message.status', 'r1'),
      input(ws, 'conversation.started', 'quiet_1', { conversation_id: 'con_1' }),
      input(ws, 'message.status', 'r2'),
      input(ws, 'conversation.started', 'quiet_2', { conversation_id: 'con_2' }),
      input(ws, 'message.status', 'r3'),
    ];
    let all!: EventDoc[];
    expect(await commandsOf(async () => (all = await events.publishAll!(inputs)))).toEqual([
      'find webhook_endpoints',
      'insert events',
      // r1, r2 and r3: their markers in one insert, then the events in one.
      'insert events_undispatched',
      'insert events',
    ]);
    expect(all.map((e) => e.dedupe_key)).toEqual(inputs.map((i) => i.dedupeKey));
    expect(all.map((e) => e.dispatched_at === null)).toEqual([true, false, true, false, true]);
    // Each endpoint is handed its events in the order they were published.
    expect(dispatcher.dispatched.map((e) => e.dedupe_key)).toEqual(['message.status:r1', 'message.status:r2', 'message.status:r3']);
    for (const event of all) expect(await undispatchedEvents(db).findOne({ _id: event._id })).toEqual(event.dispatched_at === null ? { _id: event._id, created_at: event.created_at } : null);
  });

  it('answers received events stored before (an earlier attempt) with the stored ones, and dispatches the undispatched', async () => {
    const ws = await workspaceWithEndpoint(['message.status']);
    const earlier = await appendEvent(db, input(ws, 'message.status', 'again'));
    const dispatcher = recordingDispatcher();
    const all = await createEventPublisher(db, dispatcher).publishAll!([input(ws, 'message.status', 'fresh'), input(ws, 'message.status', 'again', { message_id: 'other' })]);
    expect(all[1]).toEqual(earlier);
    expect(dispatcher.dispatched.map((e) => e.dedupe_key)).toEqual(['message.status:fresh', 'message.status:again']);
    expect(await eventsCollection(db).countDocuments({ tenant_id: ws })).toBe(2);
  });

  it('answers nothing for nothing, with no command', async () => {
    const events = createEventPublisher(db, recordingDispatcher());
    expect(await commandsOf(async () => expect(await events.publishAll!([])).toEqual([]))).toEqual([]);
  });
});
