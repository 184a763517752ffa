import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Db } from 'mongodb';
import { createActivities } from '../../../activities';
import { campaignCollections, findCampaign, type CampaignDoc } from '../../../src/campaigns/campaign';
import { CAMPAIGN_BATCH_MAX, campaignRunStateQuery, campaignRunWorkflowId, type CampaignRunState } from '../../../src/campaigns/contracts';
import { controlCampaign, type ControlAction } from '../../../src/campaigns/control';
import { campaignCounters } from '../../../src/campaigns/progress';
import { readRecipientBatch } from '../../../src/campaigns/staging';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, zoneOpenAt, type DraftOptions } from '../../support/campaigns';
import { openTestDb, testConfig, testServers, uniqueName } from '../../support/env';
import { eventsOf } from '../../support/messaging';
import { createTimeSkippingEnv } from '../../support/timeSkipping';
import { createTestWorkspace, suspend, type TestWorkspace } from '../../support/workspaces';

/** The workflow tasks' own time on a loaded machine: well under a minute between two sends at 1 a minute. */
const TASKS_SLACK_MS = 5_000;

/**
 * The campaign run on the time-skipping server, with the real activities against FerretDB and
 * a provider that counts sends: the scheduled start, the send window (a night's wait, a
 * narrowed window), the throttle's spacing, pause, resume and cancel in each state, the
 * suspension hold, and continue-as-new with a large audience.
 */
describe('the campaign run (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let db: Db;
  let drop: () => Promise<void>;
  let worker: Worker;
  let running: Promise<void>;
  let ws: TestWorkspace;
  const provider = new CountingWhatsAppProvider();
  const taskQueue = uniqueName('campaigns');

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
    const deps = buildActivityDeps({ db, temporal: env.client, taskQueue }, { whatsapp: provider, pace: () => Promise.resolve() });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: testServers.workflowBundle() },
      activities: createActivities(deps),
    });
    running = worker.run();
    events = deps.events;
  });
  let events: ReturnType<typeof buildActivityDeps>['events'];

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await drop?.();
  });

  const envNow = async () => new Date(await env.currentTimeMs());
  /** `hours` whole hours from the start of the env's current UTC day, `days` later. */
  async function utcAt(days: number, hours: number, minutes = 0): Promise<Date> {
    const now = await envNow();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days, hours, minutes));
  }

  const dayAfter = (d: Date, hour: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1, hour));

  async function control(campaign: CampaignDoc, action: ControlAction) {
    const current = (await findCampaign(db, campaign.tenant_id, campaign._id))!;
    const now = await envNow();
    const result = await controlCampaign(
      { db, temporal: env.client, taskQueue, events, now: () => now },
      { tenantId: campaign.tenant_id, campaignId: campaign._id, action, request: { expected_version: current.version } },
    );
    if (result.kind !== 'done') throw new Error(`${action}: ${JSON.stringify(result)}`);
    return result.campaign;
  }

  async function draft(count: number, schedule: DraftOptions['schedule']): Promise<CampaignDoc> {
    const people = await insertContacts(db, ws.workspaceId, count);
    return insertCampaignDraft(db, ws.workspaceId, { contactIds: people.map((p) => p._id), schedule: { timezone: 'UTC', ...schedule } });
  }

  const handle = (c: CampaignDoc) => env.client.workflow.getHandle(campaignRunWorkflowId(c._id));
  const result = (c: CampaignDoc) => handle(c).result() as Promise<CampaignRunState>;
  const recipients = (c: CampaignDoc, n: number) => readRecipientBatch(db, c._id, 0, n);
  const stored = async (c: CampaignDoc) => (await findCampaign(db, c.tenant_id, c._id))!;
  /**
   * A send goes at its planned time, or within the workflow task's latency after it: the
   * time-skipping server moves the clock on while a loaded worker runs the tasks (1.7 s seen
   * on two CPU burners), so the bound tells the planned moment from the next slot or window.
   */
  const expectSoonAfter = (at: number, planned: Date) => {
    expect(at).toBeGreaterThanOrEqual(planned.getTime());
    expect(at - planned.getTime()).toBeLessThan(TASKS_SLACK_MS);
  };
  /** Waits (in real time) until the run's query says what `ready` wants. */
  async function until(c: CampaignDoc, ready: (s: CampaignRunState) => boolean): Promise<CampaignRunState> {
    for (let i = 0; i < 600; i++) {
      const s = await handle(c).query(campaignRunStateQuery);
      if (ready(s)) return s;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the run never reached the state');
  }

  it('a launch at 21:30 (after the window closed) waits until 09:00 the next day; scheduled, then running, then completed', async () => {
    const startAt = await utcAt(1, 21, 30);
    const c = await draft(3, { start_at: startAt, throttle_per_minute: 60 });
    const launched = await control(c, 'launch');
    expect(launched).toMatchObject({ status: 'scheduled', version: 2, recipients: 3 });
    expect((await stored(c)).consent?.pin).toMatchObject({ recipients: 3 });
    await result(c);
    const nine = dayAfter(startAt, 9);
    const times = (await recipients(c, 3)).map((r) => r.state_at.getTime());
    expectSoonAfter(times[0]!, nine);
    expect([times[1]! - times[0]!, times[2]! - times[1]!]).toEqual([1_000, 1_000]);
    const done = await stored(c);
    expect(done).toMatchObject({ status: 'completed', version: 4 });
    expect(done.completed_at!.getTime()).toBeGreaterThanOrEqual(nine.getTime());
    expect(await campaignCounters(db, c._id)).toEqual({ sent: 3, delivered: 0, read: 0, failed: 0, skipped: 0 });
  });

  it('a narrowed window (10:00 to 11:00): sends stop at 11:00 and continue at 10:00 the next day', async () => {
    const startAt = await utcAt(2, 10, 58);
    const c = await draft(3, { start_at: startAt, throttle_per_minute: 1, send_window_start_hour: 10, send_window_end_hour: 11 });
    await control(c, 'launch');
    await result(c);
    const times = (await recipients(c, 3)).map((r) => r.state_at.getTime());
    expectSoonAfter(times[0]!, startAt);
    // One a minute: never closer than the spacing (each batch is one send, after a timer).
    expectSoonAfter(times[1]!, new Date(times[0]! + 60_000));
    // 10:59:xx + 1 minute is past 11:00: the third waits for the next day's opening.
    expectSoonAfter(times[2]!, dayAfter(startAt, 10));
  });

  it('spreads sends evenly at the throttle: 600 a minute is one every 100 ms, across batches', async () => {
    const startAt = await utcAt(2, 12);
    const c = await draft(120, { start_at: startAt, throttle_per_minute: 600 });
    await control(c, 'launch');
    await result(c);
    const times = (await recipients(c, 120)).map((r) => r.state_at.getTime());
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // Within a batch (CAMPAIGN_BATCH_MAX at 600 a minute) exactly 100 ms apart; between batches
    // never closer (the next batch starts when the last one's spacing has passed, or later).
    const inBatches = gaps.filter((_, i) => (i + 1) % CAMPAIGN_BATCH_MAX !== 0);
    expect(inBatches).toEqual(Array(119 - Math.floor(119 / CAMPAIGN_BATCH_MAX)).fill(100));
    expect(Math.min(...gaps)).toBe(100);
    expectSoonAfter(times[0]!, startAt);
  });

  it('pause and resume while scheduled: stays scheduled until the start, sends nothing while paused', async () => {
    const startAt = await utcAt(2, 14);
    const c = await draft(2, { start_at: startAt, throttle_per_minute: 60 });
    await control(c, 'launch');
    expect(await control(c, 'pause')).toMatchObject({ status: 'paused', version: 3 });
    await env.sleep(3 * 86_400_000);
    expect((await recipients(c, 2)).map((r) => r.state)).toEqual(['queued', 'queued']);
    expect(await control(c, 'resume')).toMatchObject({ status: 'running', version: 4 });
    await result(c);
    expect((await recipients(c, 2)).map((r) => r.state)).toEqual(['sent', 'sent']);
    expect(await stored(c)).toMatchObject({ status: 'completed', version: 5 });
  });

  it('pause while running holds the rest; resume sends each remaining recipient once', async () => {
    const c = await draftOpenNow(4, { throttle_per_minute: 1 });
    await control(c, 'launch');
    await until(c, (s) => s.cursor >= 1);
    expect(await control(c, 'pause')).toMatchObject({ status: 'paused' });
    await until(c, (s) => s.control === 'paused');
    const sentBefore = (await recipients(c, 4)).filter((r) => r.state === 'sent').length;
    await env.sleep(3_600_000);
    expect((await recipients(c, 4)).filter((r) => r.state === 'sent').length).toBe(sentBefore);
    expect(await control(c, 'resume')).toMatchObject({ status: 'running' });
    await result(c);
    const rs = await recipients(c, 4);
    expect(rs.map((r) => r.state)).toEqual(['sent', 'sent', 'sent', 'sent']);
    for (const r of rs) expect(provider.sends.get(r.to)).toBe(1);
  });

  it('pause and resume pairs never skip the throttle: the next send waits for its slot', async () => {
    const c = await draftOpenNow(3, { throttle_per_minute: 1 });
    await control(c, 'launch');
    await until(c, (s) => s.cursor >= 1);
    const people = await recipients(c, 3);
    const sentTo = () => people.reduce((n, r) => n + (provider.sends.get(r.to) ?? 0), 0);
    expect(sentTo()).toBe(1);
    for (let i = 0; i < 3; i++) {
      await control(c, 'pause');
      await until(c, (s) => s.control === 'paused');
      await control(c, 'resume');
      await until(c, (s) => s.control === 'running');
    }
    // Time on this server stands still until the result is awaited: a slot a minute away
    // cannot have come, so a second send here went out of turn.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(sentTo()).toBe(1);
    await result(c);
    const times = (await recipients(c, 3)).map((r) => r.state_at.getTime());
    // A minute apart, give or take the first send's own lateness on this process's clock.
    for (const gap of [times[1]! - times[0]!, times[2]! - times[1]!]) expect(Math.abs(gap - 60_000)).toBeLessThan(TASKS_SLACK_MS);
    expect(sentTo()).toBe(3);
  });

  it('cancel while running skips everyone outstanding and sets completed_at', async () => {
    const c = await draftOpenNow(5, { throttle_per_minute: 1 });
    await control(c, 'launch');
    await until(c, (s) => s.cursor >= 1);
    const cancelled = await control(c, 'cancel');
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.completed_at).not.toBeNull();
    await until(c, (s) => s.phase === 'settling');
    const rs = await recipients(c, 5);
    const sent = rs.filter((r) => r.state === 'sent').length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(rs.filter((r) => r.state === 'skipped').map((r) => r.skip_reason)).toEqual(Array(5 - sent).fill('cancelled'));
    await result(c);
    expect(await campaignCounters(db, c._id)).toEqual({ sent, delivered: 0, read: 0, failed: 0, skipped: 5 - sent });
    expect(await stored(c)).toMatchObject({ status: 'cancelled' });
  });

  it('cancel while paused and while scheduled: nobody is sent, everyone skipped', async () => {
    for (const pauseFirst of [true, false]) {
      const c = await draft(3, { start_at: await utcAt(1, 15), throttle_per_minute: 60 });
      await control(c, 'launch');
      if (pauseFirst) await control(c, 'pause');
      expect(await control(c, 'cancel')).toMatchObject({ status: 'cancelled' });
      await result(c);
      expect((await recipients(c, 3)).map((r) => [r.state, r.skip_reason])).toEqual(Array(3).fill(['skipped', 'cancelled']));
    }
  });

  it('a suspended workspace holds the run (still running, not failed) and it continues once billing is restored', async () => {
    const c = await draftOpenNow(3, { throttle_per_minute: 1 });
    await control(c, 'launch');
    await until(c, (s) => s.cursor >= 1);
    await suspend(db, ws.workspaceId);
    try {
      await env.sleep(61_000);
      const held = await until(c, (s) => s.held === 'workspace_suspended');
      await env.sleep(6 * 3_600_000);
      expect((await handle(c).query(campaignRunStateQuery)).cursor).toBe(held.cursor);
      expect(await stored(c)).toMatchObject({ status: 'running' });
    } finally {
      await suspend(db, ws.workspaceId, false);
    }
    await result(c);
    expect((await recipients(c, 3)).map((r) => r.state)).toEqual(['sent', 'sent', 'sent']);
    expect(await stored(c)).toMatchObject({ status: 'completed' });
  });

  it('a run whose activity cannot finish marks the campaign failed (completed_at set, campaign.ended) instead of leaving it running', async () => {
    const startAt = await utcAt(1, 12);
    const c = await draft(2, { start_at: startAt, throttle_per_minute: 60 });
    await control(c, 'launch');
    // The record loses what every send needs: the batch activity fails for good (ReadModelMissing).
    await campaignCollections(db).campaigns.updateOne({ _id: c._id }, { $set: { template: null } });
    await expect(result(c)).rejects.toMatchObject({ cause: { type: 'CampaignRunFailed' } });
    const failed = await stored(c);
    expect(failed).toMatchObject({ status: 'failed', version: 4 });
    expect(failed.completed_at!.getTime()).toBeGreaterThanOrEqual(startAt.getTime());
    const ended = (await eventsOf(db, c.tenant_id, 'campaign.ended')).filter((e) => e.data.campaign_id === c._id);
    expect(ended.map((e) => e.data)).toEqual([
      { campaign_id: c._id, name: 'Broadcast', status: 'failed', version: 4, recipients: 2, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, completed_at: failed.completed_at!.toISOString() },
    ]);
  });

  it('continues as new with a large audience (2,000): every recipient sent once, cursor carried, history bounded', async () => {
    // 30 a minute: batches of 5 (CAMPAIGN_BATCH_SPAN_MS), enough of them to need a second run.
    const c = await draftOpenNow(2_000, { throttle_per_minute: 30 });
    const sentBefore = provider.total();
    await control(c, 'launch');
    await result(c);
    expect(provider.total() - sentBefore).toBe(2_000);
    const rs = await readRecipientBatch(db, c._id, 0, 2_000);
    expect(rs.filter((r) => r.state === 'sent')).toHaveLength(2_000);
    for (const r of rs) expect(provider.sends.get(r.to)).toBe(1);
    // Walk the chain of runs back from the last: each held under the limit.
    const runs: number[] = [];
    let runId: string | undefined = (await handle(c).describe()).runId;
    while (runId) {
      const history = await env.client.workflow.getHandle(c._id, runId).fetchHistory();
      runs.unshift(history.events!.length);
      runId = history.events![0]!.workflowExecutionStartedEventAttributes!.continuedExecutionRunId || undefined;
    }
    process.stdout.write(`[campaign run] 2,000 recipients at 30/min: ${runs.length} runs, history events ${JSON.stringify(runs)}, ${runs.reduce((a, b) => a + b, 0)} in all\n`);
    expect(runs.length).toBeGreaterThan(1);
    for (const events of runs) expect(events).toBeLessThan(3_200);
  }, 1_200_000); // about 270 s alone; twice that and more on a loaded 2-core machine

  /**
   * A draft that starts at launch inside its window: time moves only when a test waits on a
   * result or sleeps, so the zone is chosen to make the env's current hour 10:00 to 19:00.
   */
  async function draftOpenNow(count: number, schedule: DraftOptions['schedule']): Promise<CampaignDoc> {
    return draft(count, { ...schedule, timezone: zoneOpenAt(await envNow()) });
  }
});
