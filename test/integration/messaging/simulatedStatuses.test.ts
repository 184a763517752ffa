import type { Db } from 'mongodb';
import type { EventDoc } from '../../../src/events/eventStore';
import { createEventPublisher } from '../../../src/events/publisher';
import { pendingStatusesCollection, SimulatedStatusScheduler, STATUS_SWEEP_GRACE_MS } from '../../../src/providers/whatsapp/simulatedStatuses';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { eventsOf, eventually } from '../../support/messaging';

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
