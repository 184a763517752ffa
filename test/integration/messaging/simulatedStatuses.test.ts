import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { advanceRecipient } from '../../../src/campaigns/recipients';
import { stagingCollections, type CampaignRecipientDoc } from '../../../src/campaigns/staging';
import type { EventDoc } from '../../../src/events/eventStore';
import { createEventPublisher, type EventPublisher } from '../../../src/events/publisher';
import { outboundMessagesCollection, type OutboundMessageDoc } from '../../../src/messaging/outboundMessages';
import { pendingStatusesCollection, SimulatedStatusScheduler, STATUS_SWEEP_GRACE_MS } from '../../../src/providers/whatsapp/simulatedStatuses';
import { SimulatedWhatsAppProvider } from '../../../src/providers/whatsapp/simulator';
import { setScript, simulatorScriptSchema } from '../../../src/providers/whatsapp/simulatorScripts';
import { openTestDb, testConfig, testServers, uniqueName } from '../../support/env';
import { eventsOf, eventually } from '../../support/messaging';

/** The commands a connection sent, by name, for each collection. */
interface CountedCommands {
  on(collection: string): string[];
  clear(): void;
}

/** A test database, and a second connection to it whose commands are counted. */
async function openCountedDb(): Promise<{ db: Db; drop: () => Promise<void>; counted: MongoClient; countedDb: Db; commands: CountedCommands }> {
  const config = testConfig();
  const { db, drop } = await openTestDb(config);
  const sent: { name: string; collection: string }[] = [];
  const counted = await new MongoClient(testServers.mongoUrl(), { monitorCommands: true }).connect();
  counted.on('commandStarted', (event: CommandStartedEvent) => sent.push({ name: event.commandName, collection: String(event.command[event.commandName]) }));
  const commands: CountedCommands = {
    on: (collection) => sent.filter((c) => c.collection === collection).map((c) => c.name),
    clear: () => void sent.splice(0),
  };
  return { db, drop, counted, countedDb: counted.db(config.MONGODB_DB), commands };
}

/** A campaign's sent message and its recipient (`queued`, or already at the message's status): the run writes its batch's sends after the batch. */
async function campaignMessage(db: Db, tenantId: string, messageId: string, at: Date, status: OutboundMessageDoc['status'] = 'sent'): Promise<string> {
  const recipient = `cmp_${messageId}:0`;
  await outboundMessagesCollection(db).insertOne({
    _id: messageId,
    tenant_id: tenantId,
    provider: 'simulator',
    sender_id: 'snd_x',
    to: '+919600000001',
    conversation_id: 'conv_x',
    transcript_message_id: 'msg_x',
    kind: 'template',
    template: { name: 'order_update', language: 'en' },
    metadata: {},
    campaign_id: `cmp_${messageId}`,
    campaign_recipient_id: recipient,
    billed: 'included',
    status,
    status_at: at,
    created_at: at,
  });
  const doc: CampaignRecipientDoc = {
    _id: recipient,
    tenant_id: tenantId,
    campaign_id: `cmp_${messageId}`,
    position: 0,
    contact_id: 'cnt_x',
    to: '+919600000001',
    name: null,
    variables: [],
    state: status === 'sent' ? 'queued' : status,
    skip_reason: null,
    message_id: status === 'sent' ? null : messageId,
    state_at: at,
    created_at: at,
  };
  await stagingCollections(db).recipients.insertOne(doc);
  return recipient;
}

/**
 * The simulator's delivery statuses without a workflow per message: one stored document per
 * accepted message, recorded in order at their due times by the accepting process, taken
 * over by a sweep when that process is gone.
 */
describe('simulated WhatsApp statuses (src/providers/whatsapp/simulatedStatuses.ts)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let scheduler: SimulatedStatusScheduler;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    // Stored events are what this test reads; delivering them is the webhook tests' part.
    const events = createEventPublisher(db, { dispatch: async () => undefined });
    scheduler = new SimulatedStatusScheduler({ db, events }, (err) => void failures.push(err));
  });

  afterAll(async () => {
    await drop?.();
  });

  const failures: unknown[] = [];
  afterEach(() => expect(failures).toEqual([]));

  /** A message's statuses in the order of their times (events sort by whole seconds only). */
  const recorded = async (tenantId: string, messageId: string): Promise<EventDoc[]> =>
    (await eventsOf(db, tenantId, 'message.status'))
      .filter((e) => e.data.message_id === messageId)
      .sort((a, b) => String(a.data.status_at).localeCompare(String(b.data.status_at)));
  const statusesOf = async (tenantId: string, messageId: string, count: number): Promise<EventDoc[]> =>
    eventually(async () => {
      const found = await recorded(tenantId, messageId);
      return found.length === count ? found : null;
    }, `${count} statuses of ${messageId}`);

  it('records each status in order at the send plus its pauses, once, and leaves nothing pending', async () => {
    const tenantId = uniqueName('ws');
    const acceptedAt = new Date();
    const input = {
      tenantId,
      messageId: 'wamid.SIMORDER',
      acceptedAt,
      steps: [
        { status: 'sent' as const, afterMs: 0 },
        { status: 'delivered' as const, afterMs: 150 },
        { status: 'read' as const, afterMs: 1_000 },
      ],
      failure: null,
    };
    await scheduler.schedule(input);
    await scheduler.schedule(input); // a repeat for the same message schedules nothing more
    const early = await recorded(tenantId, 'wamid.SIMORDER');
    // Not recorded before it is due (checked only while it is not yet due).
    if (Date.now() < acceptedAt.getTime() + 1_150) expect(early.map((e) => e.data.status)).not.toContain('read');
    const statuses = await statusesOf(tenantId, 'wamid.SIMORDER', 3);
    expect(statuses.map((e) => [e.data.status, e.data.status_at])).toEqual([
      ['sent', acceptedAt.toISOString()],
      ['delivered', new Date(acceptedAt.getTime() + 150).toISOString()],
      ['read', new Date(acceptedAt.getTime() + 1_150).toISOString()],
    ]);
    await eventually(async () => (await pendingStatusesCollection(db).countDocuments({ _id: 'wamid.SIMORDER' })) === 0, 'nothing pending');
    expect(await recorded(tenantId, 'wamid.SIMORDER')).toHaveLength(3);
  });

  it('reports a failed message with its reason', async () => {
    const tenantId = uniqueName('ws');
    const failure = { code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' };
    await scheduler.schedule({
      tenantId,
      messageId: 'wamid.SIMFAIL',
      acceptedAt: new Date(),
      steps: [
        { status: 'sent', afterMs: 0 },
        { status: 'failed', afterMs: 20 },
      ],
      failure,
    });
    const [sent, failed] = await statusesOf(tenantId, 'wamid.SIMFAIL', 2);
    expect([sent!.data.status, sent!.data.error ?? null, failed!.data.status, failed!.data.error]).toEqual(['sent', null, 'failed', failure]);
  });

  it('a sweep takes over, from its next status on, a message whose process died; one not yet late enough is left', async () => {
    const tenantId = uniqueName('ws');
    const long = Date.now() - STATUS_SWEEP_GRACE_MS - 5_000;
    const at = (ms: number) => new Date(long + ms);
    const orphan = {
      _id: 'wamid.SIMORPHAN',
      tenant_id: tenantId,
      steps: [
        { status: 'sent' as const, due_at: at(0) },
        { status: 'delivered' as const, due_at: at(100) },
        { status: 'read' as const, due_at: at(200) },
      ],
      next: 1,
      due_at: at(100),
      failure: null,
    };
    const recent = { ...orphan, _id: 'wamid.SIMRECENT', steps: [{ status: 'sent' as const, due_at: new Date() }], next: 0, due_at: new Date() };
    await pendingStatusesCollection(db).insertMany([orphan, recent]);

    expect(await scheduler.sweepOnce()).toBe(1);
    const statuses = await statusesOf(tenantId, 'wamid.SIMORPHAN', 2);
    expect(statuses.map((e) => [e.data.status, e.data.status_at])).toEqual([
      ['delivered', at(100).toISOString()],
      ['read', at(200).toISOString()],
    ]);
    await eventually(async () => (await pendingStatusesCollection(db).countDocuments({ _id: 'wamid.SIMORPHAN' })) === 0, 'the orphan done');
    expect(await pendingStatusesCollection(db).countDocuments({ _id: 'wamid.SIMRECENT' })).toBe(1);
    expect(await recorded(tenantId, 'wamid.SIMRECENT')).toEqual([]);
  });
});

/**
 * Statuses due at the same moment (a script with 0 ms pauses, a sweep finding a late
 * message) are recorded together: the message and its campaign recipient read and written
 * once, the pending document inserted and deleted only, and still one `message.status`
 * event per status, in order, each with its own time.
 */
describe('simulated WhatsApp statuses due together', () => {
  let db: Db;
  let drop: () => Promise<void>;
  /** A second connection to the same database whose commands are counted. */
  let counted: MongoClient;
  let commands: CountedCommands;
  /** The statuses in the order they were published. */
  let published: string[] = [];
  let scheduler: SimulatedStatusScheduler;
  let provider: () => SimulatedWhatsAppProvider;
  const failures: unknown[] = [];

  beforeAll(async () => {
    let countedDb: Db;
    ({ db, drop, counted, countedDb, commands } = await openCountedDb());
    const stored = createEventPublisher(countedDb, { dispatch: async () => undefined });
    const events: EventPublisher = {
      publish: async (input) => {
        published.push(`${String(input.data.message_id)}:${String(input.data.status)}`);
        return stored.publish(input);
      },
    };
    scheduler = new SimulatedStatusScheduler({ db: countedDb, events }, (err) => void failures.push(err));
    provider = () => new SimulatedWhatsAppProvider(countedDb, events, (err) => void failures.push(err));
  });

  afterAll(async () => {
    await counted?.close();
    await drop?.();
  });

  beforeEach(() => {
    commands.clear();
    published = [];
  });
  afterEach(() => expect(failures).toEqual([]));

  const on = (collection: string) => commands.on(collection);

  const eventsFor = async (tenantId: string, messageId: string): Promise<EventDoc[]> =>
    (await eventsOf(db, tenantId, 'message.status')).filter((e) => e.data.message_id === messageId);
  const done = async (messageId: string) =>
    eventually(async () => (await pendingStatusesCollection(db).countDocuments({ _id: messageId })) === 0, `${messageId} done`);

  it('records all three with one read and one write of the message, one write of its recipient, one event each in order with its time', async () => {
    const tenantId = uniqueName('ws');
    const sentAt = new Date(Date.now() - 60_000);
    const recipient = await campaignMessage(db, tenantId, 'wamid.SIMTOGETHER', sentAt);
    // Accepted a little earlier with pauses that have all passed: each status has its own time, all due now.
    const acceptedAt = new Date(Date.now() - 5_000);
    await scheduler.schedule({
      tenantId,
      messageId: 'wamid.SIMTOGETHER',
      acceptedAt,
      steps: [
        { status: 'sent', afterMs: 0 },
        { status: 'delivered', afterMs: 100 },
        { status: 'read', afterMs: 200 },
      ],
      failure: null,
    });
    await done('wamid.SIMTOGETHER');

    expect(published).toEqual(['wamid.SIMTOGETHER:sent', 'wamid.SIMTOGETHER:delivered', 'wamid.SIMTOGETHER:read']);
    const events = await eventsFor(tenantId, 'wamid.SIMTOGETHER');
    const at = (ms: number) => new Date(acceptedAt.getTime() + ms).toISOString();
    expect(events.map((e) => [e.data.status, e.data.status_at, e.data.campaign_id]).sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      ['sent', at(0), 'cmp_wamid.SIMTOGETHER'],
      ['delivered', at(100), 'cmp_wamid.SIMTOGETHER'],
      ['read', at(300), 'cmp_wamid.SIMTOGETHER'],
    ]);
    expect(on('whatsapp_simulated_statuses')).toEqual(['insert', 'delete']);
    expect(on('outbound_messages')).toEqual(['find', 'update']);
    expect(on('campaign_recipients')).toEqual(['update']);
    expect(await outboundMessagesCollection(db).findOne({ _id: 'wamid.SIMTOGETHER' })).toMatchObject({ status: 'read', status_at: new Date(at(300)) });
    expect(await stagingCollections(db).recipients.findOne({ _id: recipient })).toMatchObject({
      state: 'read',
      state_at: new Date(at(300)),
      message_id: 'wamid.SIMTOGETHER',
    });
  });

  it('with 0 ms pauses reports a failed message after sent, with its reason, and the recipient failed', async () => {
    const tenantId = uniqueName('ws');
    const recipient = await campaignMessage(db, tenantId, 'wamid.SIMFAILNOW', new Date());
    const failure = { code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' };
    const acceptedAt = new Date();
    await scheduler.schedule({
      tenantId,
      messageId: 'wamid.SIMFAILNOW',
      acceptedAt,
      steps: [
        { status: 'sent', afterMs: 0 },
        { status: 'failed', afterMs: 0 },
      ],
      failure,
    });
    await done('wamid.SIMFAILNOW');
    expect(published).toEqual(['wamid.SIMFAILNOW:sent', 'wamid.SIMFAILNOW:failed']);
    const events = await eventsFor(tenantId, 'wamid.SIMFAILNOW');
    expect(Object.fromEntries(events.map((e) => [e.data.status, [e.data.status_at, e.data.error ?? null]]))).toEqual({
      sent: [acceptedAt.toISOString(), null],
      failed: [acceptedAt.toISOString(), failure],
    });
    expect(on('whatsapp_simulated_statuses')).toEqual(['insert', 'delete']);
    expect(on('outbound_messages')).toEqual(['find', 'update']);
    expect(await stagingCollections(db).recipients.findOne({ _id: recipient })).toMatchObject({ state: 'failed', state_at: acceptedAt });
  });

  it('a sweep takes over a message whose process died after recording its first statuses: the rest together, nothing twice', async () => {
    const tenantId = uniqueName('ws');
    const long = Date.now() - STATUS_SWEEP_GRACE_MS - 5_000;
    const at = (ms: number) => new Date(long + ms);
    // The dead process recorded sent and delivered (message, recipient and events) but died
    // before moving its pending document past them.
    const recipient = await campaignMessage(db, tenantId, 'wamid.SIMTAKEN', at(100), 'delivered');
    await pendingStatusesCollection(db).insertOne({
      _id: 'wamid.SIMTAKEN',
      tenant_id: tenantId,
      steps: [
        { status: 'sent', due_at: at(0) },
        { status: 'delivered', due_at: at(100) },
        { status: 'read', due_at: at(200) },
      ],
      next: 1,
      due_at: at(100),
      failure: null,
    });
    const stored = createEventPublisher(db, { dispatch: async () => undefined });
    for (const [status, ms] of [['sent', 0], ['delivered', 100]] as const) {
      await stored.publish({
        tenantId,
        type: 'message.status',
        dedupeKey: `message.status:wamid.SIMTAKEN:${status}`,
        createdAt: at(ms),
        data: { message_id: 'wamid.SIMTAKEN', status, channel: 'whatsapp', status_at: at(ms).toISOString(), error: null },
      });
    }

    expect(await scheduler.sweepOnce()).toBe(1);
    await done('wamid.SIMTAKEN');
    expect(published).toEqual(['wamid.SIMTAKEN:delivered', 'wamid.SIMTAKEN:read']);
    const events = await eventsFor(tenantId, 'wamid.SIMTAKEN');
    expect(events.map((e) => [e.data.status, e.data.status_at]).sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
      ['sent', at(0).toISOString()],
      ['delivered', at(100).toISOString()],
      ['read', at(200).toISOString()],
    ]);
    expect(on('whatsapp_simulated_statuses')).toEqual(['find', 'delete']);
    expect(on('outbound_messages')).toEqual(['find', 'update']);
    expect(on('campaign_recipients')).toEqual(['update']);
    expect(await outboundMessagesCollection(db).findOne({ _id: 'wamid.SIMTAKEN' })).toMatchObject({ status: 'read', status_at: at(200) });
    expect(await stagingCollections(db).recipients.findOne({ _id: recipient })).toMatchObject({ state: 'read', state_at: at(200) });

    // Taken over again (a slow owner and a sweep both at it): nothing moves, nothing is stored twice.
    commands.clear();
    published = [];
    await pendingStatusesCollection(db).insertOne({
      _id: 'wamid.SIMTAKEN',
      tenant_id: tenantId,
      steps: [
        { status: 'delivered', due_at: at(100) },
        { status: 'read', due_at: at(200) },
      ],
      next: 0,
      due_at: at(100),
      failure: null,
    });
    expect(await scheduler.sweepOnce()).toBe(1);
    await done('wamid.SIMTAKEN');
    expect(on('outbound_messages')).toEqual(['find']);
    expect(on('campaign_recipients')).toEqual(['update']);
    expect(await eventsFor(tenantId, 'wamid.SIMTAKEN')).toHaveLength(3);
    expect(await outboundMessagesCollection(db).findOne({ _id: 'wamid.SIMTAKEN' })).toMatchObject({ status: 'read', status_at: at(200) });
    expect(await stagingCollections(db).recipients.findOne({ _id: recipient })).toMatchObject({ state: 'read', state_at: at(200) });
  });

  it('a recipient moves forward only, in one write: never back from read, failed or skipped', async () => {
    const tenantId = uniqueName('ws');
    const at = new Date();
    const recipient = await campaignMessage(db, tenantId, 'wamid.SIMFORWARD', at);
    const recipients = stagingCollections(db).recipients;
    expect(await advanceRecipient(db, recipient, 'delivered', { at, messageId: 'wamid.SIMFORWARD' })).toBe(true);
    expect(await advanceRecipient(db, recipient, 'sent', { at: new Date(at.getTime() + 1) })).toBe(false);
    expect(await advanceRecipient(db, recipient, 'delivered', { at: new Date(at.getTime() + 1) })).toBe(false);
    expect(await recipients.findOne({ _id: recipient })).toMatchObject({ state: 'delivered', state_at: at, message_id: 'wamid.SIMFORWARD' });
    for (const final of ['failed', 'skipped'] as const) {
      await recipients.updateOne({ _id: recipient }, { $set: { state: final } });
      for (const late of ['sent', 'delivered', 'read', 'failed', 'skipped'] as const) {
        expect(await advanceRecipient(db, recipient, late, { at: new Date(at.getTime() + 2) })).toBe(false);
      }
      expect(await recipients.findOne({ _id: recipient })).toMatchObject({ state: final, state_at: at });
    }
    expect(await advanceRecipient(db, 'cmp_missing:0', 'read', { at })).toBe(false);
  });

  it("the simulator reads a recipient's script once per message: at the send, not again when told it was accepted", async () => {
    const tenantId = uniqueName('ws');
    const to = '+919600000002';
    await setScript(db, tenantId, to, simulatorScriptSchema.parse({ outcome: 'delivered', delays_ms: { sent: 0, delivered: 0 } }), new Date());
    const request = { tenantId, senderId: 'snd_x', from: '+919600000000', to, message: { type: 'text' as const, text: 'hi' } };
    const here = provider();
    const attempt = await here.send(request);
    if (!attempt.ok) throw new Error('the simulator refused');
    await here.accepted(request, attempt.messageId);
    await done(attempt.messageId);
    expect(on('whatsapp_simulator_scripts')).toEqual(['find']);
    expect(published).toEqual([`${attempt.messageId}:sent`, `${attempt.messageId}:delivered`]);

    // Another process finishing the send's records (a retry) was not the one that sent: it reads the script.
    commands.clear();
    published = [];
    await provider().accepted(request, 'wamid.SIMELSEWHERE');
    await done('wamid.SIMELSEWHERE');
    expect(on('whatsapp_simulator_scripts')).toEqual(['find']);
    expect(published).toEqual(['wamid.SIMELSEWHERE:sent', 'wamid.SIMELSEWHERE:delivered']);
  });
});

/**
 * Messages accepted together and statuses falling due together are recorded together
 * (docs/decisions/messaging.md "Many messages' simulated statuses recorded together"), through the real publisher's
 * bulk publish; commands are counted on a connection of their own.
 */
describe('simulated WhatsApp statuses of many messages recorded together', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let counted: MongoClient;
  let commands: CountedCommands;
  /** Each publish call, as the statuses it carried. */
  let publishCalls: string[][] = [];
  let scheduler: SimulatedStatusScheduler;
  const failures: unknown[] = [];

  beforeAll(async () => {
    let countedDb: Db;
    ({ db, drop, counted, countedDb, commands } = await openCountedDb());
    const stored = createEventPublisher(countedDb, { dispatch: async () => undefined, hasReceivers: async () => false });
    const label = (input: { data: Record<string, unknown> }) => `${String(input.data.message_id)}:${String(input.data.status)}`;
    const events: EventPublisher = {
      publish: async (input) => {
        publishCalls.push([label(input)]);
        return stored.publish(input);
      },
      publishAll: async (inputs) => {
        publishCalls.push(inputs.map(label));
        return stored.publishAll!(inputs);
      },
    };
    scheduler = new SimulatedStatusScheduler({ db: countedDb, events }, (err) => void failures.push(err));
  });

  afterAll(async () => {
    await counted?.close();
    await drop?.();
  });

  beforeEach(() => {
    commands.clear();
    publishCalls = [];
  });
  afterEach(() => expect(failures).toEqual([]));

  const on = (collection: string) => commands.on(collection);
  const allDone = async (ids: string[]) =>
    eventually(async () => (await pendingStatusesCollection(db).countDocuments({ _id: { $in: ids } })) === 0, `${ids.join(', ')} done`);

  it('schedules arriving together in one insert and records their statuses due together in one pass, each message in order, forward only', async () => {
    const tenantId = uniqueName('ws');
    const acceptedAt = new Date(Date.now() - 5_000);
    const ids = ['wamid.SIMGROUP1', 'wamid.SIMGROUP2', 'wamid.SIMGROUP3'];
    const recipients = [
      await campaignMessage(db, tenantId, ids[0]!, acceptedAt),
      await campaignMessage(db, tenantId, ids[1]!, acceptedAt),
      // Already read (a status that came first elsewhere): neither it nor its recipient moves back.
      await campaignMessage(db, tenantId, ids[2]!, new Date(acceptedAt.getTime() + 4_000), 'read'),
    ];
    const steps = [
      { status: 'sent' as const, afterMs: 0 },
      { status: 'delivered' as const, afterMs: 100 },
      { status: 'read' as const, afterMs: 200 },
    ];
    commands.clear();
    // Scheduled concurrently, as a batch's accepted messages are; the same message twice is scheduled once.
    await Promise.all([...ids, ids[0]!].map((messageId, i) => scheduler.schedule({ tenantId, messageId, acceptedAt: new Date(acceptedAt.getTime() + i), steps, failure: null })));
    await allDone(ids);

    expect(on('whatsapp_simulated_statuses')).toEqual(['insert', 'delete']);
    expect(on('outbound_messages')).toEqual(['find', 'update']);
    expect(on('campaign_recipients')).toEqual(['update']);
    expect(on('events')).toEqual(['insert']);
    expect(publishCalls).toEqual([ids.flatMap((id) => steps.map((s) => `${id}:${s.status}`))]);

    for (const [i, id] of ids.entries()) {
      const at = (ms: number) => new Date(acceptedAt.getTime() + i + ms);
      const events = (await eventsOf(db, tenantId, 'message.status')).filter((e) => e.data.message_id === id);
      expect(events.map((e) => [e.data.status, e.data.status_at]).sort((a, b) => String(a[1]).localeCompare(String(b[1])))).toEqual([
        ['sent', at(0).toISOString()],
        ['delivered', at(100).toISOString()],
        ['read', at(300).toISOString()],
      ]);
      const expected = i === 2 ? new Date(acceptedAt.getTime() + 4_000) : at(300);
      expect(await outboundMessagesCollection(db).findOne({ _id: id })).toMatchObject({ status: 'read', status_at: expected });
      expect(await stagingCollections(db).recipients.findOne({ _id: recipients[i]! })).toMatchObject({ state: 'read', state_at: expected, message_id: id });
    }
  });

  it('records statuses falling due later together too, moving the pending documents on in one write, and deleting them in one', async () => {
    const tenantId = uniqueName('ws');
    const ids = ['wamid.SIMLATER1', 'wamid.SIMLATER2'];
    const acceptedAt = new Date();
    for (const id of ids) await campaignMessage(db, tenantId, id, acceptedAt);
    commands.clear();
    const steps = [
      { status: 'sent' as const, afterMs: 0 },
      { status: 'delivered' as const, afterMs: 300 },
    ];
    await Promise.all(ids.map((messageId) => scheduler.schedule({ tenantId, messageId, acceptedAt, steps, failure: null })));
    await allDone(ids);

    expect(on('whatsapp_simulated_statuses')).toEqual(['insert', 'update', 'delete']);
    // Already `sent`: the message is not written for it (forward only), its recipient is.
    expect(on('outbound_messages')).toEqual(['find', 'find', 'update']);
    expect(on('campaign_recipients')).toEqual(['update', 'update']);
    // Two passes, one per moment; within a pass the messages come in the order their timers fired.
    expect(publishCalls.map((call) => [...call].sort())).toEqual([ids.map((id) => `${id}:sent`), ids.map((id) => `${id}:delivered`)]);
    for (const id of ids) {
      expect(await outboundMessagesCollection(db).findOne({ _id: id })).toMatchObject({ status: 'delivered', status_at: new Date(acceptedAt.getTime() + 300) });
    }
  });

  it('a sweep takes over several late messages and records them in one pass', async () => {
    const tenantId = uniqueName('ws');
    const long = Date.now() - STATUS_SWEEP_GRACE_MS - 5_000;
    const at = (ms: number) => new Date(long + ms);
    const ids = ['wamid.SIMSWEPT1', 'wamid.SIMSWEPT2', 'wamid.SIMSWEPT3'];
    for (const id of ids) await campaignMessage(db, tenantId, id, at(0));
    // Their process died before recording any: failed ones report their reason.
    const failure = { code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' };
    await pendingStatusesCollection(db).insertMany(
      ids.map((id) => ({
        _id: id,
        tenant_id: tenantId,
        steps: [
          { status: 'sent' as const, due_at: at(0) },
          { status: 'failed' as const, due_at: at(100) },
        ],
        next: 0,
        due_at: at(0),
        failure,
      })),
    );
    commands.clear();
    expect(await scheduler.sweepOnce()).toBe(3);
    await allDone(ids);
    expect(on('whatsapp_simulated_statuses')).toEqual(['find', 'delete']);
    expect(on('outbound_messages')).toEqual(['find', 'update']);
    expect(on('campaign_recipients')).toEqual(['update']);
    expect(publishCalls).toEqual([ids.flatMap((id) => [`${id}:sent`, `${id}:failed`])]);
    for (const id of ids) {
      const events = (await eventsOf(db, tenantId, 'message.status')).filter((e) => e.data.message_id === id);
      expect(Object.fromEntries(events.map((e) => [e.data.status, [e.data.status_at, e.data.error ?? null]]))).toEqual({
        sent: [at(0).toISOString(), null],
        failed: [at(100).toISOString(), failure],
      });
      expect(await stagingCollections(db).recipients.findOne({ _id: `cmp_${id}:0` })).toMatchObject({ state: 'failed', state_at: at(100) });
    }
  });

  it('a message scheduled again (a retried accept) is neither stored nor reported twice', async () => {
    const tenantId = uniqueName('ws');
    const id = 'wamid.SIMAGAIN';
    await campaignMessage(db, tenantId, id, new Date());
    const input = { tenantId, messageId: id, acceptedAt: new Date(), steps: [{ status: 'sent' as const, afterMs: 0 }, { status: 'delivered' as const, afterMs: 200 }], failure: null };
    await scheduler.schedule(input);
    await scheduler.schedule(input);
    await allDone([id]);
    expect(publishCalls.flat()).toEqual([`${id}:sent`, `${id}:delivered`]);
    expect(await eventsOf(db, tenantId, 'message.status')).toHaveLength(2);
  });
});
