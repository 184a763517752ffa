import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { appendEvent, eventsCollection, undispatchedEvents, type EventDoc, type EventInput } from '../../../src/events/eventStore';
import { createEventPublisher, type EventDispatcher } from '../../../src/events/publisher';
import { createEndpointDirectory } from '../../../src/webhooks/endpointDirectory';
import { newWebhookEndpoint, webhookEndpoints } from '../../../src/webhooks/endpoints';
import { openTestDb, testConfig, uniqueName } from '../../support/env';

/**
 * The publisher's two paths (docs/decisions.md "Events no endpoint receives (one write)"):
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
  const directory = createEndpointDirectory(db);
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
