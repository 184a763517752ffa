import { randomBytes } from 'node:crypto';
import { createDuesActivities } from '../../../activities/dues';
import type { Db } from 'mongodb';
import { collections } from '../../../src/db/collections';
import { dueChaseWorkflowId, duesCycleStateQuery, duesCycleWorkflowId, type DueChaseState } from '../../../src/dues/contracts';
import { addDays, dueDateOf, zoneDate } from '../../../src/dues/cycle';
import { changeSubscriber, closeDue, recordPayment } from '../../../src/dues/dueActions';
import { duesSettingsSchema, writeDuesSettings } from '../../../src/dues/settings';
import { duesCollections, type DueDoc, type SubscriberDoc, type SubscriberInput } from '../../../src/dues/store';
import { createSubscriber } from '../../../src/dues/subscribers';
import type { EventPublisher } from '../../../src/events/publisher';
import type { SendAttempt, SendRequest, WhatsAppProvider } from '../../../src/messaging/whatsAppSender';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { SimulatedPaymentLinkProvider } from '../../../src/providers/payments/simulator';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { eventsOf, eventually } from '../../support/messaging';
import { useTimeSkippingEnv } from '../../support/timeSkipping';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const DAY = 86_400_000;
/**
 * How long after its planned time a step's effect may be stamped. While the step's activity is
 * outstanding the test server skips no time, so its clock moves at wall-clock speed: a few ms
 * idle, seconds under CPU load (2.1 s seen). Planned times are whole hours apart, so a minute
 * still tells the right hour from a wrong one.
 */
const STAMP_SLACK_MS = 60_000;

/** Records each template sent, with the workflow clock at the time (the send is inside a step's activity). */
class RecordingProvider implements WhatsAppProvider {
  readonly name = 'simulator' as const;
  readonly sent: { to: string; template: string; body: string[]; dueId: string | null; atMs: number }[] = [];
  constructor(private readonly clock: () => Promise<number>) {}
  async send(request: SendRequest): Promise<SendAttempt> {
    const message = request.message;
    if (message.type === 'template') {
      this.sent.push({ to: request.to, template: message.name, body: message.body, dueId: message.buttons[0]?.values[0] ?? null, atMs: await this.clock() });
    }
    return { ok: true, messageId: `wamid.TEST${randomBytes(12).toString('hex').toUpperCase()}` };
  }
}

/**
 * The dues workflows on the time-skipping server, with the real activities against FerretDB:
 * the chase (reminder, follow-ups, declined; stopped by a payment, a waiver, a cancellation;
 * held to the window) and a year of cycles for every cycle unit, paused and cancelled.
 */
describe('the dues chase and cycle (time-skipping)', () => {
  const { env, startWorker } = useTimeSkippingEnv();
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;
  let events: EventPublisher;
  let provider: RecordingProvider;
  const links = new SimulatedPaymentLinkProvider();
  const taskQueue = uniqueName('dues');

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
    await collections(db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { timezone: 'UTC' } });
    provider = new RecordingProvider(() => env.currentTimeMs());
    const deps = buildActivityDeps({ db, temporal: env.client, taskQueue }, { whatsapp: provider, payments: links });
    events = deps.events;
    await startWorker({ taskQueue, deps });
  });
  afterAll(async () => {
    await drop?.();
  });
  // Each test's subscribers are cancelled after it, so their cycles and chases stop raising and sending.
  const created: string[] = [];
  afterEach(async () => {
    for (const id of created.splice(0)) await changeSubscriber({ db, temporal: env.client, events }, ws.workspaceId, id, 'cancel', await envNow());
  });

  const envNow = async () => new Date(await env.currentTimeMs());
  const at = (date: string, hour: number) => Date.parse(`${date}T${String(hour).padStart(2, '0')}:00:00Z`);
  const deps = () => ({ db, events, temporal: env.client, taskQueue });
  let n = 0;
  async function subscribe(input: Partial<SubscriberInput>, on = deps()): Promise<{ subscriber: SubscriberDoc; dues: DueDoc[] }> {
    n += 1;
    const phone = `+9198${String(Date.now() % 10_000).padStart(4, '0')}${String(n).padStart(4, '0')}`;
    const workspace = (await collections(db).workspaces.findOne({ _id: ws.workspaceId }))!;
    const made = await createSubscriber(
      on,
      workspace,
      { name: `Person ${n}`, phone, email: null, plan_name: 'Monthly plan', amount: 1000, cycle_unit: 'monthly', cycle_days: null, due_day: null, start_date: null, ...input },
      await envNow(),
    );
    if (made.kind !== 'created') throw new Error(`not created: ${JSON.stringify(made)}`);
    created.push(made.subscriber._id);
    return { subscriber: made.subscriber, dues: await duesOf(made.subscriber._id) };
  }
  const duesOf = (subscriberId: string) => duesCollections(db).dues.find({ subscriber_id: subscriberId }).sort({ cycle_index: 1 }).toArray();
  /**
   * The cycle's state once it sleeps on a raise still to come (every raise due by now done),
   * asked only when its current run's history ends in that sleep's timer. A query that reaches a
   * run while a workflow task of the run is in flight waits for that task; when the task
   * continues the cycle as new (each raise does), the time-skipping server never answers the
   * query, and it holds the time-skipping lock it took for it: the query and every later sleep
   * in the file hung (CI: the last three tests here, 60 s each).
   */
  const cycleAsleep = (subscriberId: string) =>
    eventually(async () => {
      const handle = env.client.workflow.getHandle(duesCycleWorkflowId(subscriberId));
      if (!(await handle.fetchHistory()).events?.at(-1)?.timerStartedEventAttributes) return null;
      const state = await handle.query(duesCycleStateQuery);
      return state.raiseAtMs !== null && state.raiseAtMs > (await env.currentTimeMs()) && state;
    }, 'the cycle to sleep on its next raise');
  /** Read from the server's record, not a query: waiting for the end must not itself need a worker. */
  const cycleEnded = (subscriberId: string) =>
    eventually(
      async () => (await env.client.workflow.getHandle(duesCycleWorkflowId(subscriberId)).describe()).status.name === 'COMPLETED',
      `the cycle of ${subscriberId} to end`,
      60_000,
    );
  const due = async (id: string) => (await duesCollections(db).dues.findOne({ _id: id }))!;
  const chaseResult = (dueId: string) => env.client.workflow.getHandle(dueChaseWorkflowId(dueId)).result() as Promise<DueChaseState>;
  /** When each message for the due went: the provider reads the clock within the step's activity, just after the step's time. */
  const sentFor = (dueId: string) => provider.sent.filter((s) => s.dueId === dueId);
  const expectTimes = (actual: number[], planned: number[]) => {
    expect(actual).toHaveLength(planned.length);
    actual.forEach((t, i) => {
      expect(t).toBeGreaterThanOrEqual(planned[i]!);
      expect(t - planned[i]!).toBeLessThan(STAMP_SLACK_MS);
    });
  };
  const settings = (value: Record<string, unknown>) => writeDuesSettings(db, ws.workspaceId, duesSettingsSchema.parse(value), new Date());
  /** A due date `days` ahead of the env's current date. */
  const ahead = async (days: number) => addDays(zoneDate(await envNow(), 'UTC'), days);

  it('a whole chase: the reminder 3 days before at 10:00, follow-ups 3 and 4 days later, declined 3 days after with payment.declined', async () => {
    await settings({});
    const dueDate = await ahead(10);
    const { subscriber, dues } = await subscribe({ start_date: dueDate });
    const first = dues[0]!;
    expect(first.next_action_at!.getTime()).toBe(at(addDays(dueDate, -3), 10));
    expect(await chaseResult(first._id)).toEqual({ next: null, nextAtMs: null, ended: 'declined' });
    const sends = sentFor(first._id);
    expectTimes(sends.map((s) => s.atMs), [at(addDays(dueDate, -3), 10), at(dueDate, 10), at(addDays(dueDate, 4), 10)]);
    for (const s of sends) expect(s).toMatchObject({ to: subscriber.phone, template: 'payment_due', body: [subscriber.name, '1,000', expect.stringMatching(/^\d+ \w{3} \d{4}$/)] });
    const ended = await due(first._id);
    expect(ended).toMatchObject({ status: 'declined', reminders_sent: 3, next_action_at: null, failure_reason: null, campaign_id: null });
    expectTimes([ended.last_reminder_at!.getTime()], [at(addDays(dueDate, 4), 10)]);
    const [declined] = (await eventsOf(db, ws.workspaceId, 'payment.declined')).filter((e) => e.data.due_id === first._id);
    expect(declined!.data).toEqual({ due_id: first._id, subscriber_id: subscriber._id, amount: 1000, period: first.period_label });
    expect(declined!.created_at.getTime()).toBe(at(addDays(dueDate, 7), 10));
    const after = (await duesCollections(db).subscribers.findOne({ _id: subscriber._id }))!;
    expect(after.dues_declined).toBe(1);
  });

  it('statuses move scheduled → reminded → followup_1 → followup_2, with reminders_sent and next_action_at current', async () => {
    await settings({ reminder_offset_days: 0, followup_interval_days: [2, 2], decline_after_days: 2, send_hour: 12 });
    const dueDate = await ahead(5);
    const { dues } = await subscribe({ start_date: dueDate });
    const id = dues[0]!._id;
    const seen: [string, number, number | null][] = [];
    for (const days of [5, 7, 9]) {
      await env.sleep(at(addDays(dueDate, days - 5), 13) - (await env.currentTimeMs()));
      const d = await due(id);
      seen.push([d.status, d.reminders_sent, d.next_action_at?.getTime() ?? null]);
    }
    expect(seen).toEqual([
      ['reminded', 1, at(addDays(dueDate, 2), 12)],
      ['followup_1', 2, at(addDays(dueDate, 4), 12)],
      ['followup_2', 3, at(addDays(dueDate, 6), 12)],
    ]);
    expect((await chaseResult(id)).ended).toBe('declined');
  });

  it('a payment mid-chase stops it at once: no more messages, the receipt sent when configured', async () => {
    await settings({ receipt: { enabled: true, template: { name: 'order_update', variables: ['name', 'amount', 'period'], button_variables: [] } } });
    const dueDate = await ahead(10);
    const { subscriber, dues } = await subscribe({ start_date: dueDate });
    const id = dues[0]!._id;
    await env.sleep(at(addDays(dueDate, -2), 0) - (await env.currentTimeMs()));
    expect(await due(id)).toMatchObject({ status: 'reminded', reminders_sent: 1 });
    const before = provider.sent.length;
    const paid = await recordPayment(
      { db, temporal: env.client, events },
      ws.workspaceId,
      id,
      { expectedVersion: 2, amount: null, reference: 'cash', paidAt: await envNow(), source: 'manual', markedBy: 'console', markedByName: 'Operator' },
      await envNow(),
    );
    expect(paid).toMatchObject({ kind: 'paid', due: { status: 'paid', version: 3, paid_amount: 1000 } });
    expect(await chaseResult(id)).toEqual({ next: null, nextAtMs: null, ended: 'stopped' });
    const receipts = provider.sent.slice(before).filter((s) => s.to === subscriber.phone);
    expect(receipts.map((s) => [s.template, s.body])).toEqual([['order_update', [subscriber.name, '1,000', dues[0]!.period_label]]]);
    expect(sentFor(id)).toHaveLength(1);
    const [event] = (await eventsOf(db, ws.workspaceId, 'payment.paid')).filter((e) => e.data.due_id === id);
    expect(event!.data).toMatchObject({ source: 'manual', reference: 'cash' });
    await settings({});
  });

  it('payment-link mode: a link per due in the reminder; a payment by hand cancels the live link', async () => {
    await settings({ collection: { mode: 'payment_link' }, template: { variables: ['name', 'amount', 'pay_to'] } });
    try {
      const dueDate = await ahead(10);
      const { dues } = await subscribe({ start_date: dueDate });
      const id = dues[0]!._id;
      await env.sleep(at(addDays(dueDate, -2), 0) - (await env.currentTimeMs()));
      const linked = await due(id);
      expect(linked).toMatchObject({ collection_mode: 'payment_link', status: 'reminded', payment_link_id: expect.stringMatching(/^plink_sim_/), failure_reason: null });
      expect(sentFor(id).map((s) => s.body[2])).toEqual([linked.payment_link]);
      const paid = await recordPayment(
        { db, temporal: env.client, events },
        ws.workspaceId,
        id,
        { expectedVersion: linked.version, amount: null, reference: 'cash', paidAt: await envNow(), source: 'manual', markedBy: 'console', markedByName: null },
        await envNow(),
      );
      expect(paid.kind).toBe('paid');
      expect((await chaseResult(id)).ended).toBe('stopped');
      expect(links.cancelled).toContain(linked.payment_link_id);
    } finally {
      await settings({});
    }
  });

  it('payment-link mode, a due under Rs 1 (the gateway minimum): no link asked, failure_reason payment_link_below_minimum, the reminder still goes', async () => {
    await settings({ template: { variables: ['name', 'amount', 'pay_to'] } });
    const dueDate = await ahead(10);
    // Accepted where the workspace collects by UPI; the due then marked as raised in link mode (as a settings change before it was raised would).
    const { dues } = await subscribe({ start_date: dueDate, amount: 0.5 });
    const id = dues[0]!._id;
    await duesCollections(db).dues.updateOne({ _id: id }, { $set: { collection_mode: 'payment_link' } });
    await env.sleep(at(addDays(dueDate, -2), 0) - (await env.currentTimeMs()));
    expect(await due(id)).toMatchObject({ status: 'scheduled', payment_link: null, payment_link_id: null, failure_reason: 'payment_link_below_minimum' });
    expect(sentFor(id).map((s) => s.body)).toEqual([[expect.any(String), '0.50', '-']]);
  });

  it.each(['waived', 'cancelled'] as const)('%s from the console mid-chase: the chase stops, nothing more is sent', async (to) => {
    await settings({});
    const dueDate = await ahead(10);
    const { dues } = await subscribe({ start_date: dueDate });
    const id = dues[0]!._id;
    await env.sleep(at(dueDate, 11) - (await env.currentTimeMs()));
    expect(await due(id)).toMatchObject({ status: 'followup_1', reminders_sent: 2 });
    expect(await closeDue({ db, temporal: env.client, events }, ws.workspaceId, id, to, await envNow())).toMatchObject({ kind: 'closed', due: { status: to } });
    expect((await chaseResult(id)).ended).toBe('stopped');
    expect(sentFor(id)).toHaveLength(2);
    expect(await due(id)).toMatchObject({ status: to, next_action_at: null });
  });

  it('messages are held to 09:00–21:00 in the workspace zone: a 23:00 send hour waits until 09:00 the next day', async () => {
    await settings({ send_hour: 23 });
    await collections(db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { timezone: 'Asia/Kolkata' } });
    try {
      const dueDate = await ahead(10);
      const { dues } = await subscribe({ start_date: dueDate });
      await chaseResult(dues[0]!._id);
      // 09:00 in Kolkata is 03:30 UTC, on the day after each planned 23:00.
      expectTimes(
        sentFor(dues[0]!._id).map((s) => s.atMs),
        [`${addDays(dueDate, -2)}T03:30:00Z`, `${addDays(dueDate, 1)}T03:30:00Z`, `${addDays(dueDate, 5)}T03:30:00Z`].map(Date.parse),
      );
    } finally {
      await collections(db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { timezone: 'UTC' } });
      await settings({});
    }
  });

  it('a year of cycles for every cycle unit: each due raised on its date, due_day 31 in February and in 30-day months', async () => {
    // A year with a 28-day February (the env's clock has moved on by earlier tests).
    let year = new Date(await envNow()).getUTCFullYear() + 1;
    if (new Date(Date.UTC(year, 2, 0)).getUTCDate() === 29) year += 1;
    const plans: Partial<SubscriberInput>[] = [
      { cycle_unit: 'weekly', start_date: `${year}-01-05` },
      { cycle_unit: 'monthly', start_date: `${year}-01-31`, due_day: 31 },
      { cycle_unit: 'quarterly', start_date: `${year}-01-15`, due_day: 31 },
      { cycle_unit: 'half_yearly', start_date: `${year}-02-28`, due_day: 31 },
      { cycle_unit: 'yearly', start_date: `${year}-01-10` },
      { cycle_unit: 'custom_days', cycle_days: 45, start_date: `${year}-01-01` },
    ];
    const cycleQueue = uniqueName('dues-cycle');
    // This worker runs until the file's environment closes, as the file's main one does: the
    // time-skipping server skips no time while any task is outstanding, so a worker stopped
    // mid-file with a task still on its queue (a cancel's, not yet taken) would leave every later
    // sleep in the file waiting forever.
    await startWorker({
      taskQueue: cycleQueue,
      workflowsPath: require.resolve('./fixtures/cycleOnly'),
      activities: createDuesActivities({ db, events, temporal: env.client, taskQueue: cycleQueue, whatsapp: provider, deploymentChannels: ['whatsapp'], payments: links }),
    });
    const made: SubscriberDoc[] = [];
    try {
      for (const plan of plans) made.push((await subscribe(plan, { ...deps(), taskQueue: cycleQueue })).subscriber);
      const end = `${year}-12-31`;
      await env.sleep(at(end, 23) - (await env.currentTimeMs()));
      const within = async (s: SubscriberDoc) => (await duesOf(s._id)).filter((d) => d.due_date <= end).map((d) => d.due_date);
      const expected = (s: SubscriberDoc) => {
        const out: string[] = [];
        for (let i = 0; dueDateOf(s, i) <= end; i++) out.push(dueDateOf(s, i));
        return out;
      };
      for (const s of made) expect(await within(s)).toEqual(expected(s));
      expect(await within(made[1]!)).toEqual([
        `${year}-01-31`, `${year}-02-28`, `${year}-03-31`, `${year}-04-30`, `${year}-05-31`, `${year}-06-30`,
        `${year}-07-31`, `${year}-08-31`, `${year}-09-30`, `${year}-10-31`, `${year}-11-30`, `${year}-12-31`,
      ]);
      expect(await within(made[2]!)).toEqual([`${year}-01-15`, `${year}-04-30`, `${year}-07-31`, `${year}-10-31`]);
      expect(await within(made[3]!)).toEqual([`${year}-02-28`, `${year}-08-31`]);
      expect(await within(made[0]!)).toHaveLength(52);
      // Each due was raised the day after the due date two cycles before it (the weekly plan's 10th the day after the 8th's date).
      const weekly = await duesOf(made[0]!._id);
      expectTimes([weekly[9]!.created_at.getTime()], [at(addDays(weekly[7]!.due_date, 1), 0)]);
      const raised = (await eventsOf(db, ws.workspaceId, 'payment.due_created')).filter((e) => e.data.subscriber_id === made[1]!._id);
      expect(raised.length).toBe((await duesOf(made[1]!._id)).length);
    } finally {
      for (const id of created.splice(0)) await changeSubscriber({ db, temporal: env.client, events }, ws.workspaceId, id, 'cancel', await envNow());
    }
    // Cancelled, each cycle ends: nothing of this test's is left running for the next ones.
    for (const s of made) await cycleEnded(s._id);
  }, 180_000);

  it('a backdated start: the two dues at creation, then no cycle whose date has passed, only those from today', async () => {
    const start = await ahead(-70);
    const { subscriber } = await subscribe({ cycle_unit: 'weekly', start_date: start });
    await cycleAsleep(subscriber._id);
    // Two dues falling today or later, as a create raises: today's and next week's.
    expect((await duesOf(subscriber._id)).map((d) => d.due_date)).toEqual([start, addDays(start, 7), addDays(start, 70), addDays(start, 77)]);
  });

  it('a subscriber starting today has the two dues the create raised, not three; the third is raised at 00:00 the next day', async () => {
    const today = await ahead(0);
    const { subscriber } = await subscribe({ amount: 750, start_date: null });
    expect(await cycleAsleep(subscriber._id)).toEqual({ nextIndex: 2, raiseAtMs: at(addDays(today, 1), 0) });
    const first = await duesOf(subscriber._id);
    expect(first.map((d) => d.due_date)).toEqual([today, dueDateOf(subscriber, 1)]);
    expect(await duesCollections(db).subscribers.findOne({ _id: subscriber._id })).toMatchObject({ outstanding_total: 1500, next_due_date: today });

    await env.sleep(at(addDays(today, 1), 1) - (await env.currentTimeMs()));
    const later = await duesOf(subscriber._id);
    expect(later.map((d) => d.due_date)).toEqual([today, dueDateOf(subscriber, 1), dueDateOf(subscriber, 2)]);
    expectTimes([later[2]!.created_at.getTime()], [at(addDays(today, 1), 0)]);
  });

  it('a paused subscriber raises no dues; resumed, it raises again; cancelled, its open dues are cancelled and the cycle ends', async () => {
    const start = await ahead(3);
    const { subscriber, dues } = await subscribe({ cycle_unit: 'weekly', start_date: start });
    const actions = { db, temporal: env.client, events };
    expect(await changeSubscriber(actions, ws.workspaceId, subscriber._id, 'pause', await envNow())).toMatchObject({ kind: 'done', subscriber: { status: 'paused' } });
    await env.sleep(at(addDays(start, 21), 1) - (await env.currentTimeMs()));
    expect((await duesOf(subscriber._id)).map((d) => d._id)).toEqual(dues.map((d) => d._id));

    await changeSubscriber(actions, ws.workspaceId, subscriber._id, 'resume', await envNow());
    await env.sleep(at(addDays(start, 28), 1) - (await env.currentTimeMs()));
    // Cycles 2 to 4 fell due to be raised while paused (each the day after the due two cycles before it): skipped, not owed later.
    // Resumed after the 21st day, the next raise is at 00:00 on the 22nd day: the due of the 35th.
    expect((await duesOf(subscriber._id)).map((d) => d.due_date)).toEqual([start, addDays(start, 7), addDays(start, 35)]);

    expect(await changeSubscriber(actions, ws.workspaceId, subscriber._id, 'cancel', await envNow())).toMatchObject({
      kind: 'done',
      subscriber: { status: 'cancelled', outstanding_total: 0 },
    });
    expect((await duesOf(subscriber._id)).map((d) => d.status)).toEqual(['declined', 'declined', 'cancelled']);
    await env.client.workflow.getHandle(duesCycleWorkflowId(subscriber._id)).result();
    await env.sleep(30 * DAY);
    expect(await duesOf(subscriber._id)).toHaveLength(3);
  });
});
