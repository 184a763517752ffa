import type { Db } from 'mongodb';
import { dailyBudgetUsage, liveCallCount, reserveDailyBudget } from '../../../src/calls/admission';
import { callCollections, utcDay, type CallDoc } from '../../../src/calls/callStore';
import { collections } from '../../../src/db/collections';
import { findCampaign, type CampaignDoc } from '../../../src/campaigns/campaign';
import { CALL_PLACE_POLL_MS, campaignRunWorkflowId, type VoiceCampaignRunState } from '../../../src/campaigns/contracts';
import { controlCampaign } from '../../../src/campaigns/control';
import { campaignCallProgress, campaignCounters } from '../../../src/campaigns/progress';
import { nextOpenTime } from '../../../src/domain/sendWindow';
import { readRecipientBatch, type CampaignRecipientDoc } from '../../../src/campaigns/staging';
import { contactCollections } from '../../../src/contacts/contacts';
import { eventsCollection } from '../../../src/events/eventStore';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { DROPS_AFTER_FIRST_ANSWER, insertContacts, insertVoiceCampaignDraft, scriptCallee, type VoiceDraftOptions } from '../../support/campaigns';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { useTimeSkippingEnv } from '../../support/timeSkipping';
import type { TestWorker } from '../../support/worker';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/** The workflow tasks' own time on a loaded machine, well under the 10 s between two looks of the run (CALL_PLACE_POLL_MS). */
const TASKS_SLACK_MS = 5_000;

/**
 * A call campaign's run on the time-skipping server, with the real activities against
 * FerretDB, the real call workflow and the scripted simulated callee: the 10:00–19:00 call
 * window, pacing under the workspace's ten live calls, the one call-back and the merging of
 * a person's calls.
 */
describe('the call campaign run (time-skipping)', () => {
  const { env, startWorker } = useTimeSkippingEnv();
  let db: Db;
  let drop: () => Promise<void>;
  let worker: TestWorker;
  let events: ReturnType<typeof buildActivityDeps>['events'];
  const taskQueue = uniqueName('voice-campaigns');

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    // The callee as a workflow: its ring and talk timers are the ones this server skips.
    const deps = buildActivityDeps({ db, temporal: env.client, taskQueue, voiceSimulator: { mode: 'workflow' } }, { pace: () => Promise.resolve() });
    events = deps.events;
    worker = await startWorker({ taskQueue, deps });
  });

  afterAll(async () => {
    await worker?.close();
    await drop?.();
  });

  const envNow = async () => new Date(await env.currentTimeMs());
  async function utcAt(days: number, hours: number, minutes = 0): Promise<Date> {
    const now = await envNow();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days, hours, minutes));
  }

  /** A workspace of its own per test: the live-call places and daily usage are the workspace's. */
  async function draft(ws: TestWorkspace, count: number, options: Omit<VoiceDraftOptions, 'contactIds' | 'agentId'>) {
    const people = await insertContacts(db, ws.workspaceId, count);
    const campaign = await insertVoiceCampaignDraft(db, ws.workspaceId, {
      ...options,
      contactIds: people.map((p) => p._id),
      agentId: ws.agentId,
      schedule: { timezone: 'UTC', ...options.schedule },
    });
    return { campaign, people };
  }

  async function launch(campaign: CampaignDoc) {
    const now = await envNow();
    const result = await controlCampaign(
      { db, temporal: env.client, taskQueue, events, now: () => now },
      { tenantId: campaign.tenant_id, campaignId: campaign._id, action: 'launch', request: { expected_version: 1 } },
    );
    if (result.kind !== 'done') throw new Error(`launch: ${JSON.stringify(result)}`);
    return result.campaign;
  }

  const dayAfter = (d: Date, hour: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1, hour));
  const handle = (c: CampaignDoc) => env.client.workflow.getHandle(campaignRunWorkflowId(c._id));
  const finished = (c: CampaignDoc) => handle(c).result() as Promise<VoiceCampaignRunState>;
  const recipients = (c: CampaignDoc, n: number) => readRecipientBatch(db, c._id, 0, n);
  const callDoc = async (id: string) => (await callCollections(db).calls.findOne({ _id: id }))!;
  const placedAt = (r: CampaignRecipientDoc, n = 0) => new Date(r.calls![n]!.placed_at).getTime();
  /**
   * A call is placed at its planned time, or within the workflow tasks' time after it: the
   * time-skipping server moves the clock on while a loaded worker runs them (1.7 s seen on two
   * CPU burners), so the bound tells the planned moment from the next slot, look or window.
   */
  const expectSoonAfter = (at: number, planned: Date) => {
    expect(at).toBeGreaterThanOrEqual(planned.getTime());
    expect(at - planned.getTime()).toBeLessThan(TASKS_SLACK_MS);
  };

  it('holds calls to 10:00–19:00 whatever the schedule asks: a launch at 19:30 calls at 10:00 the next day', async () => {
    const ws = await createTestWorkspace(db);
    const startAt = await utcAt(1, 19, 30);
    const { campaign } = await draft(ws, 2, { schedule: { start_at: startAt, throttle_per_minute: 60, send_window_start_hour: 9, send_window_end_hour: 21 } });
    expect(campaign.schedule).toMatchObject({ send_window_start_hour: 10, send_window_end_hour: 19 });
    expect(await launch(campaign)).toMatchObject({ status: 'scheduled', recipients: 2 });
    await finished(campaign);
    const [first, second] = await recipients(campaign, 2);
    const ten = dayAfter(startAt, 10);
    expectSoonAfter(placedAt(first!), ten);
    expect(placedAt(second!) - placedAt(first!)).toBe(1_000);
    expect((await findCampaign(db, ws.workspaceId, campaign._id))!.status).toBe('completed');

    // Campaign calls are calls: through the place-call use case, the person's purpose filled in, call.outcome with campaign_id.
    const call = await callDoc(first!.calls![0]!.call_id);
    expect(call).toMatchObject({ purpose: 'your delivery, Person 0', agent_id: ws.agentId, metadata: { campaign_id: campaign._id, campaign_name: 'Delivery check' } });
    expect(call.capture!.fields.map((f) => f.key)).toEqual(['address_ok', 'slot', 'notes']);
    const outcome = await eventsCollection(db).findOne({ type: 'call.outcome', 'data.call_id': call._id });
    expect(outcome!.data).toMatchObject({ campaign_id: campaign._id, disposition: 'completed' });
    expect(outcome!.data.metadata).toBeUndefined();
  });

  it('a call that would start at 19:00 waits for 10:00 the next day; calls already live finish', async () => {
    const ws = await createTestWorkspace(db);
    const startAt = await utcAt(3, 18, 58);
    const { campaign } = await draft(ws, 3, { schedule: { start_at: startAt, throttle_per_minute: 1 } });
    await launch(campaign);
    await finished(campaign);
    const rs = await recipients(campaign, 3);
    expectSoonAfter(placedAt(rs[0]!), startAt);
    expectSoonAfter(placedAt(rs[1]!), new Date(startAt.getTime() + 60_000));
    expectSoonAfter(placedAt(rs[2]!), dayAfter(startAt, 10));
    expect(rs.map((r) => r.state)).toEqual(['called', 'called', 'called']);
  });

  it('never has more than the workspace’s 10 live calls: the run waits for a free place and fails nobody', async () => {
    const ws = await createTestWorkspace(db);
    const startAt = await utcAt(5, 12);
    const { campaign, people } = await draft(ws, 25, { schedule: { start_at: startAt, throttle_per_minute: 600 } });
    // Every call talks for two minutes.
    for (const p of people) await scriptCallee(db, ws.workspaceId, p.phone!, { talk_seconds: 120, end: 'agent_hangup' });
    await launch(campaign);
    // Watch the workspace's live calls while the run works (the places are unique claims, so
    // this is what the limit means); the calls' own timestamps mix planned and actual times.
    let most = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        most = Math.max(most, await liveCallCount(db, ws.workspaceId));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await finished(campaign);
    watching = false;
    await watcher;
    expect(most).toBe(10);
    const rs = await recipients(campaign, 25);
    expect(rs.every((r) => r.state === 'called' && r.calls!.length === 1)).toBe(true);
    const calls = await Promise.all(rs.map((r) => callDoc(r.calls![0]!.call_id)));
    // Two minutes each, as scripted (the call records its end a workflow task after the line's).
    for (const c of calls as CallDoc[]) {
      expect(c.outcome).toBe('agent_hangup');
      expect(c.duration_seconds).toBeGreaterThanOrEqual(120);
      expect(c.duration_seconds).toBeLessThan(125);
    }
    // Three waves of two-minute calls.
    const last = Math.max(...calls.map((c) => c.created_at.getTime()));
    expect(last - startAt.getTime()).toBeGreaterThanOrEqual(240_000);
    expect(await campaignCounters(db, campaign._id)).toMatchObject({ sent: 25, failed: 0, skipped: 0 });
    expect(await campaignCallProgress(db, campaign._id)).toEqual({ dialled: 25, answered: 25, conversation: 25, completed: 25, call_backs: 0, live: 0 });
  });

  it('call-backs and merging: dropped + completing call-back is one complete record; a later unanswered call keeps what was learnt; never a second call-back; a completed person is not called again', async () => {
    const ws = await createTestWorkspace(db);
    const startAt = await utcAt(6, 12);
    const { campaign, people } = await draft(ws, 4, { schedule: { start_at: startAt, throttle_per_minute: 60 }, callBackIncomplete: true });
    const [dropsThenCompletes, dropsThenUnanswered, , alwaysDrops] = people.map((p) => p.phone!);
    for (const to of [dropsThenCompletes!, dropsThenUnanswered!, alwaysDrops!]) await scriptCallee(db, ws.workspaceId, to, DROPS_AFTER_FIRST_ANSWER);
    await launch(campaign);
    // The first calls are over and read; the call-backs are due ten minutes after.
    await env.sleep(startAt.getTime() - (await env.currentTimeMs()) + 5 * 60_000);
    const early = await recipients(campaign, 4);
    expect(early.map((r) => r.state)).toEqual(['calling', 'calling', 'called', 'calling']);
    expect(early[0]!.outcome).toMatchObject({ disposition: 'hung_up_early', fields: { address_ok: true }, missing_required: ['slot'] });
    expect(early[0]!.call_back_due_at).toBeInstanceOf(Date);
    await scriptCallee(db, ws.workspaceId, dropsThenCompletes!, {});
    await scriptCallee(db, ws.workspaceId, dropsThenUnanswered!, { answer: false });
    await finished(campaign);

    const [a, b, c, d] = await recipients(campaign, 4);
    // A dropped first call plus a completing call-back: one complete record, answers from both calls.
    expect(a!.calls!.map((x) => x.kind)).toEqual(['first', 'call_back']);
    expect(a!.state).toBe('called');
    expect(a!.outcome).toMatchObject({
      disposition: 'completed',
      success: true,
      fields: { address_ok: true, slot: 'Morning', notes: 'That all sounds fine to me, thank you.' },
      captured: 3,
      missing_required: [],
      call_id: a!.calls![1]!.call_id,
    });
    expect(a!.outcome!.evidence.address_ok).toMatchObject({ quote: 'Yes.', call_id: a!.calls![0]!.call_id });
    expect(a!.outcome!.evidence.slot).toMatchObject({ quote: 'Morning.', call_id: a!.calls![1]!.call_id });
    expect(placedAt(a!, 1) - placedAt(a!, 0)).toBeGreaterThanOrEqual(10 * 60_000);
    // The call-back asks only what is missing and carries the answers so far.
    const callBack = await callDoc(a!.calls![1]!.call_id);
    expect(callBack.capture!.fields.map((f) => f.key)).toEqual(['slot', 'notes']);
    expect(callBack.capture!.success).toBeNull();
    expect(callBack.detail_lines).toEqual([{ label: 'Already answered: Is the delivery address correct', value: 'yes' }]);
    expect(callBack.metadata).toEqual({ campaign_id: campaign._id, campaign_name: 'Delivery check', person_name: a!.name });

    // A later unanswered call never replaces earlier learning.
    expect(b!.calls!.map((x) => [x.kind, x.disposition])).toEqual([
      ['first', 'hung_up_early'],
      ['call_back', 'unanswered'],
    ]);
    expect(b!.outcome).toMatchObject({ disposition: 'hung_up_early', fields: { address_ok: true }, call_id: b!.calls![0]!.call_id });

    // A completed record stays completed: one call, no call-back.
    expect(c!.calls!.length).toBe(1);
    expect(c!.outcome).toMatchObject({ disposition: 'completed', captured: 3 });

    // At most one call-back per person, however the call-back ends.
    expect(d!.calls!.map((x) => x.kind)).toEqual(['first', 'call_back']);
    expect(d!.state).toBe('called');
    expect(d!.outcome).toMatchObject({ disposition: 'hung_up_early', fields: { address_ok: true }, missing_required: ['slot'] });

    expect((await findCampaign(db, ws.workspaceId, campaign._id))!.status).toBe('completed');
    expect(await campaignCallProgress(db, campaign._id)).toEqual({ dialled: 4, answered: 4, conversation: 4, completed: 2, call_backs: 3, live: 0 });
  });

  describe('the daily call budget (a plan setting: docs/decisions/README.md)', () => {
    /** A workspace whose budget for the day of `at` is used up by 100 earlier calls. */
    async function spentWorkspace(at: Date, campaignCallsCount: boolean) {
      const ws = await createTestWorkspace(db);
      await collections(db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { 'plan.campaign_calls_use_daily_budget': campaignCallsCount } });
      for (let i = 0; i < 100; i++) expect((await reserveDailyBudget(db, ws.workspaceId, 1, at, `call_earlier${i}`)).ok).toBe(true);
      return ws;
    }

    it('by default campaign calls do not count against it: a spent budget calls anyway, and reserves nothing', async () => {
      const startAt = await utcAt(8, 12);
      const ws = await spentWorkspace(startAt, false);
      const { campaign } = await draft(ws, 2, { schedule: { start_at: startAt } });
      await launch(campaign);
      await finished(campaign);
      const rs = await recipients(campaign, 2);
      expectSoonAfter(placedAt(rs[0]!), startAt);
      expect(rs.map((r) => r.state)).toEqual(['called', 'called']);
      expect(await dailyBudgetUsage(db, ws.workspaceId, utcDay(startAt))).toEqual({ calls: 100, minutes: 100 });
      expect(await callDoc(rs[0]!.calls![0]!.call_id)).toMatchObject({ budget_reserved: false, reserved_minutes: 0 });
    });

    it('when the plan counts them, a spent budget holds the campaign until 00:00 UTC; nobody fails', async () => {
      const startAt = await utcAt(9, 12);
      const ws = await spentWorkspace(startAt, true);
      const { campaign } = await draft(ws, 2, { schedule: { start_at: startAt } });
      await launch(campaign);
      await finished(campaign);
      const rs = await recipients(campaign, 2);
      // Held at 12:00; the budget resets at midnight, but calls wait for the 10:00 window.
      expectSoonAfter(placedAt(rs[0]!), dayAfter(startAt, 10));
      expect(rs.map((r) => r.state)).toEqual(['called', 'called']);
      expect(await dailyBudgetUsage(db, ws.workspaceId, utcDay(dayAfter(startAt, 10)))).toEqual({ calls: 2, minutes: 10 });
    });
  });

  it('pause places nothing new while live calls are still folded in; cancel skips who was never called and keeps the outcomes of live calls', async () => {
    const ws = await createTestWorkspace(db);
    const startAt = await utcAt(10, 12);
    const { campaign, people } = await draft(ws, 12, { schedule: { start_at: startAt, throttle_per_minute: 600 } });
    for (const p of people) await scriptCallee(db, ws.workspaceId, p.phone!, { talk_seconds: 60, end: 'agent_hangup' });
    await launch(campaign);
    const control = async (action: 'pause' | 'cancel') => {
      const current = (await findCampaign(db, ws.workspaceId, campaign._id))!;
      const now = await envNow();
      const result = await controlCampaign({ db, temporal: env.client, taskQueue, events, now: () => now }, { tenantId: ws.workspaceId, campaignId: campaign._id, action, request: { expected_version: current.version } });
      if (result.kind !== 'done') throw new Error(JSON.stringify(result));
      return result.campaign;
    };
    // The first ten are live (the places are full), two wait.
    await env.sleep(startAt.getTime() - (await env.currentTimeMs()) + 30_000);
    expect((await control('pause')).status).toBe('paused');
    await env.sleep(5 * 60_000);
    const paused = await recipients(campaign, 12);
    expect(paused.filter((r) => r.state === 'called')).toHaveLength(10);
    expect(paused.slice(10).map((r) => r.state)).toEqual(['queued', 'queued']);
    expect((await control('cancel')).status).toBe('cancelled');
    await finished(campaign);
    const done = await recipients(campaign, 12);
    expect(done.slice(0, 10).every((r) => r.state === 'called' && r.outcome?.disposition === 'completed')).toBe(true);
    expect(done.slice(10).map((r) => [r.state, r.skip_reason])).toEqual([
      ['skipped', 'cancelled'],
      ['skipped', 'cancelled'],
    ]);
    expect(await campaignCounters(db, campaign._id)).toMatchObject({ sent: 10, skipped: 2 });
  });

  it('without call_back_incomplete an interrupted call is final', async () => {
    const ws = await createTestWorkspace(db);
    const { campaign, people } = await draft(ws, 1, { schedule: { start_at: await utcAt(7, 12) } });
    await scriptCallee(db, ws.workspaceId, people[0]!.phone!, DROPS_AFTER_FIRST_ANSWER);
    await launch(campaign);
    await finished(campaign);
    const [r] = await recipients(campaign, 1);
    expect(r!.calls!.length).toBe(1);
    expect(r).toMatchObject({ state: 'called', outcome: { disposition: 'hung_up_early', fields: { address_ok: true } } });
  });

  it('places the next call as soon as one of its calls ends (the call signals the run), not at its next look', async () => {
    const ws = await createTestWorkspace(db);
    const startAt = await utcAt(11, 12);
    const { campaign, people } = await draft(ws, 11, { schedule: { start_at: startAt, throttle_per_minute: 600 } });
    // Answered at once, three seconds of talk: the eleventh waits for a place.
    for (const p of people) await scriptCallee(db, ws.workspaceId, p.phone!, { ring_seconds: 0, talk_seconds: 3, end: 'agent_hangup' });
    await launch(campaign);
    await finished(campaign);
    const rs = await recipients(campaign, 11);
    expect(rs.every((r) => r.state === 'called')).toBe(true);
    const firstWave = await Promise.all(rs.slice(0, 10).map((r) => callDoc(r.calls![0]!.call_id)));
    const firstEnd = Math.min(...firstWave.map((c) => c.ended_at!.getTime()));
    const eleventh = placedAt(rs[10]!);
    expect(eleventh).toBeGreaterThanOrEqual(firstEnd);
    expect(eleventh - firstEnd).toBeLessThan(TASKS_SLACK_MS);
    expect(eleventh - placedAt(rs[0]!)).toBeLessThan(CALL_PLACE_POLL_MS);
  });

  it('schedule.recipient_time_zone: a person whose own window is shut waits for it while the others are called at once', async () => {
    const ws = await createTestWorkspace(db);
    await collections(db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { calling_country_codes: ['91', '44'] } });
    // 06:00 UTC: 11:30 in Kolkata (open), early morning in London (shut until 10:00 there).
    const startAt = await utcAt(12, 6);
    const { campaign, people } = await draft(ws, 3, { schedule: { start_at: startAt, throttle_per_minute: 60, recipient_time_zone: true } });
    expect(campaign.schedule).toMatchObject({ timezone: 'UTC', recipient_time_zone: true });
    await contactCollections(db).contacts.updateOne({ _id: people[0]!._id }, { $set: { phone: '+442071234567' } });
    await launch(campaign);

    const londonOpens = nextOpenTime(startAt, { startHour: 10, endHour: 19 }, 'Europe/London');
    await env.sleep(londonOpens.getTime() - (await env.currentTimeMs()) - 60_000);
    const before = await recipients(campaign, 3);
    expect(before.map((r) => r.state)).toEqual(['queued', 'called', 'called']);
    expect((await handle(campaign).query('campaignRunState')) as VoiceCampaignRunState).toMatchObject({ waitingForOwnWindow: 1 });

    await finished(campaign);
    const [london, kolkataA, kolkataB] = await recipients(campaign, 3);
    // Kolkata's window is open at 06:00 UTC although the campaign's zone (UTC) is shut.
    expectSoonAfter(placedAt(kolkataA!), startAt);
    expectSoonAfter(placedAt(kolkataB!), new Date(startAt.getTime() + 1_000));
    expectSoonAfter(placedAt(london!), londonOpens);
    expect([london, kolkataA, kolkataB].map((r) => r!.state)).toEqual(['called', 'called', 'called']);
    expect((await findCampaign(db, ws.workspaceId, campaign._id))!.status).toBe('completed');
  });

  it('schedule.recipient_time_zone: cancel skips a person still waiting for their own window', async () => {
    const ws = await createTestWorkspace(db);
    await collections(db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { calling_country_codes: ['91', '44'] } });
    const startAt = await utcAt(13, 6);
    const { campaign, people } = await draft(ws, 2, { schedule: { start_at: startAt, throttle_per_minute: 60, recipient_time_zone: true } });
    await contactCollections(db).contacts.updateOne({ _id: people[0]!._id }, { $set: { phone: '+442071234567' } });
    await launch(campaign);
    await env.sleep(startAt.getTime() - (await env.currentTimeMs()) + 10 * 60_000);
    expect(((await handle(campaign).query('campaignRunState')) as VoiceCampaignRunState).waitingForOwnWindow).toBe(1);
    const current = (await findCampaign(db, ws.workspaceId, campaign._id))!;
    const now = await envNow();
    const cancelled = await controlCampaign({ db, temporal: env.client, taskQueue, events, now: () => now }, { tenantId: ws.workspaceId, campaignId: campaign._id, action: 'cancel', request: { expected_version: current.version } });
    expect(cancelled).toMatchObject({ kind: 'done', campaign: { status: 'cancelled' } });
    await finished(campaign);
    const [london, kolkata] = await recipients(campaign, 2);
    expect([london!.state, london!.skip_reason, london!.calls ?? []]).toEqual(['skipped', 'cancelled', []]);
    expect(kolkata!.state).toBe('called');
    expect(await campaignCounters(db, campaign._id)).toMatchObject({ sent: 1, skipped: 1 });
  });
});
