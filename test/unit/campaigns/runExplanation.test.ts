import type { CampaignDoc, CampaignSchedule } from '../../../src/campaigns/campaign';
import { ZERO_CALL_PROGRESS } from '../../../src/campaigns/voice/callProgress';
import { campaignEta } from '../../../src/campaigns/estimate';
import { explainCampaignRun, runWaitsUntil, windowClosedNotice, type ExplainInput } from '../../../src/campaigns/runExplanation';
import { formatZonedTime } from '../../../src/campaigns/zonedText';

// 20:23 in Kolkata: after the 10:00–19:00 calling window and inside the 09:00–21:00 send window.
const EVENING = new Date('2026-11-25T14:53:00Z');
// 10:00 in Kolkata.
const MORNING = new Date('2026-11-26T04:30:00Z');
const DOCS = 'https://docs.orchestrator.dev/campaigns#';

const schedule = (overrides: Partial<CampaignSchedule> = {}): CampaignSchedule => ({
  start_at: null,
  timezone: 'Asia/Kolkata',
  throttle_per_minute: 60,
  send_window_start_hour: 9,
  send_window_end_hour: 21,
  requested_start_hour: null,
  requested_end_hour: null,
  ...overrides,
});
const counters = (over: Partial<CampaignDoc['counters']> = {}) => ({ sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, ...over });

function whatsapp(over: Partial<ExplainInput> & { status?: CampaignDoc['status']; queued?: number; recipients?: number; sched?: Partial<CampaignSchedule> } = {}): ExplainInput {
  const { status = 'running', queued = 300, recipients = 400, sched = {}, ...rest } = over;
  return {
    campaign: { status, channel: 'whatsapp', recipients, schedule: schedule(sched), completed_at: null },
    states: { queued, sent: recipients - queued },
    counters: counters({ sent: recipients - queued }),
    run: { held: null, phase: 'sending' },
    workspaceZone: 'Asia/Kolkata',
    now: MORNING,
    ...rest,
  };
}

function voice(over: Partial<ExplainInput> & { status?: CampaignDoc['status']; queued?: number; calling?: number; sched?: Partial<CampaignSchedule> } = {}): ExplainInput {
  const { status = 'running', queued = 30, calling = 0, sched = {}, ...rest } = over;
  return {
    campaign: { status, channel: 'voice', recipients: 30, schedule: schedule({ throttle_per_minute: 10, send_window_start_hour: 10, send_window_end_hour: 19, ...sched }), completed_at: null },
    states: { queued, calling, called: 30 - queued - calling },
    counters: counters(),
    calls: { ...ZERO_CALL_PROGRESS },
    run: { held: null, phase: 'sending', active: 0, callBacksOwed: 0, waitingForPlace: false, waitingForOwnWindow: 0 },
    workspaceZone: 'Asia/Kolkata',
    now: EVENING,
    ...rest,
  };
}

describe('explainCampaignRun: each state says what the run is doing and why', () => {
  it('a WhatsApp campaign sending: throttle, window, remaining and the finish in the workspace zone', () => {
    const e = explainCampaignRun(whatsapp());
    expect(e).toEqual({
      state: 'sending',
      headline: 'Sending: up to 60 messages a minute, 09:00–21:00 in Asia/Kolkata; 300 of 400 people still to send to.',
      // 300 at one a second from 10:00: the last goes 299 s later, 10:04:59.
      details: ['At the throttle the last message goes about 10:04 today (Asia/Kolkata).'],
      held_reason: null,
      fix: null,
      docs: null,
      time_zone: 'Asia/Kolkata',
      window: { start_hour: 9, end_hour: 21, time_zone: 'Asia/Kolkata', per_recipient_zone: false, open: true, opens_at: null },
      throttle_per_minute: 60,
      remaining: 300,
      eta: '2026-11-26T04:34:59.000Z',
      call_backs_owed: null,
    });
  });

  it('a voice campaign launched at 20:23 IST waits for its calling window: when it opens, in the workspace zone', () => {
    const e = explainCampaignRun(voice());
    expect(e.state).toBe('waiting_for_window');
    expect(e.headline).toBe('Waiting for the calling window: calls go 10:00–19:00 in Asia/Kolkata; it opens 10:00 tomorrow (Asia/Kolkata).');
    expect(e.details).toEqual([
      '30 people still to call, up to 10 calls a minute, 10:00–19:00 in Asia/Kolkata.',
      'At the throttle the last call goes about 10:02 tomorrow (Asia/Kolkata); calls that run long or a full set of live calls make it later.',
    ]);
    expect(e.window).toEqual({ start_hour: 10, end_hour: 19, time_zone: 'Asia/Kolkata', per_recipient_zone: false, open: false, opens_at: '2026-11-26T04:30:00.000Z' });
    // 30 at one every 6 s from the opening: the last 29 × 6 s = 174 s after 10:00.
    expect(e.eta).toBe('2026-11-26T04:32:54.000Z');
    // The run's own count of call-backs owed; none once finished.
    expect(e.call_backs_owed).toBe(0);
    expect(explainCampaignRun(voice({ run: null })).call_backs_owed).toBeNull();
    expect(explainCampaignRun(voice({ status: 'completed', queued: 0, run: null })).call_backs_owed).toBe(0);
  });

  it('writes times in the workspace zone when the campaign has another', () => {
    const e = explainCampaignRun(voice({ workspaceZone: 'UTC' }));
    expect(e.headline).toBe('Waiting for the calling window: calls go 10:00–19:00 in Asia/Kolkata; it opens 04:30 tomorrow (UTC).');
    expect(e.time_zone).toBe('UTC');
  });

  it('held: the run’s reason, what fixes it and where it is documented', () => {
    const e = explainCampaignRun(whatsapp({ run: { held: 'workspace_suspended', phase: 'sending' } }));
    expect(e).toMatchObject({
      state: 'held',
      headline: 'Held: the workspace is suspended for billing.',
      details: ['300 people still to send to; nothing goes out until this is fixed.'],
      held_reason: 'workspace_suspended',
      fix: 'Pay the open invoice; the run looks again every 5 minutes.',
      docs: `${DOCS}workspace-suspended`,
      eta: null,
    });
    expect(explainCampaignRun(whatsapp({ run: { held: 'allowance_exhausted', phase: 'sending' } })).fix).toBe(
      'Buy prepaid credits or wait for the monthly allowance; the run looks again every 5 minutes.',
    );
    const budget = explainCampaignRun(voice({ now: MORNING, run: { held: 'daily_call_budget', phase: 'sending' } }));
    expect([budget.headline, budget.fix]).toEqual(["Held: today's call budget is spent.", 'Calls resume after midnight UTC; raise the daily call budget to go on sooner.']);
  });

  it('paused: nothing more goes out, how many are left, and Resume', () => {
    const e = explainCampaignRun(whatsapp({ status: 'paused', run: null }));
    expect([e.state, e.headline, e.fix, e.eta]).toEqual(['paused', 'Paused: nothing more goes out; 300 people still to send to.', 'Resume to carry on from where it stopped; nobody is sent to twice.', null]);
  });

  it('settling: every message out (or the run says so), the last statuses being counted', () => {
    expect(explainCampaignRun(whatsapp({ queued: 0 })).headline).toBe('Settling: every message has gone out; the last statuses are being counted before it completes.');
    expect(explainCampaignRun(whatsapp({ run: { held: null, phase: 'settling' } })).state).toBe('settling');
    const calls = explainCampaignRun(voice({ now: MORNING, queued: 0, calling: 2, run: { held: null, phase: 'sending', callBacksOwed: 1 } }));
    expect([calls.state, calls.headline, calls.details]).toEqual([
      'settling',
      'Settling: everyone has been dialled; waiting for 2 calls to finish or be called back.',
      ['1 call-back is owed; they go inside the calling window.'],
    ]);
  });

  it('a voice campaign calling says when every live-call place is taken and how many calls are under way', () => {
    const e = explainCampaignRun(voice({ now: MORNING, queued: 20, calling: 3, run: { held: null, phase: 'sending', waitingForPlace: true } }));
    expect(e.state).toBe('sending');
    expect(e.headline).toBe('Calling: up to 10 calls a minute, 10:00–19:00 in Asia/Kolkata; 20 of 30 people still to call.');
    expect(e.details.slice(1)).toEqual(['Every live-call place of the workspace is taken; the next call goes as soon as one is free.', '3 calls are in progress or owed a call-back.']);
  });

  it('scheduled: when it starts, and the window when it is shut at the start', () => {
    const start = new Date('2026-11-26T16:30:00Z'); // 22:00 in Kolkata, after the send window
    const e = explainCampaignRun(whatsapp({ status: 'scheduled', queued: 400, sched: { start_at: start }, run: { held: null, phase: 'waiting' } }));
    expect(e.state).toBe('scheduled');
    expect(e.headline).toBe('Scheduled: starts 22:00 today (Asia/Kolkata).');
    expect(e.details[0]).toBe('The send window (09:00–21:00 in Asia/Kolkata) is shut then, so the first message goes at 09:00 tomorrow (Asia/Kolkata).');
    expect(e.window.opens_at).toBe('2026-11-27T03:30:00.000Z');
  });

  it('draft and the finished states', () => {
    expect(explainCampaignRun(whatsapp({ status: 'draft', run: null })).headline).toBe('Draft: nothing goes out until it is launched.');
    const done = whatsapp({ status: 'completed', queued: 0, run: null });
    done.campaign.completed_at = new Date('2026-11-26T09:30:00Z');
    done.counters = counters({ sent: 400, delivered: 390, read: 200, failed: 3 });
    expect(explainCampaignRun(done).headline).toBe('Completed 15:00 today (Asia/Kolkata): 400 sent, 390 delivered, 200 read, 3 failed, 0 skipped.');
    const called = voice({ status: 'completed', queued: 0, run: null });
    called.calls = { ...ZERO_CALL_PROGRESS, dialled: 30, answered: 21, completed: 18 };
    expect(explainCampaignRun(called).headline).toBe('Completed: 30 people dialled, 21 answered, 18 completed.');
    expect(explainCampaignRun(whatsapp({ status: 'cancelled', queued: 0, run: null })).state).toBe('cancelled');
    expect(explainCampaignRun(whatsapp({ status: 'failed', run: null })).fix).toBe('Create a new campaign for the people not reached (the recipients list shows who they are).');
  });
});

describe('windowClosedNotice: launch says when the window is shut', () => {
  const campaign = (channel: 'whatsapp' | 'voice', sched: Partial<CampaignSchedule> = {}) => ({
    channel,
    recipients: 30,
    schedule: schedule(channel === 'voice' ? { send_window_start_hour: 10, send_window_end_hour: 19, ...sched } : sched),
  });
  it('a call campaign launched at 20:23 IST: the first call at 10:00 tomorrow', () => {
    expect(windowClosedNotice(campaign('voice'), 'Asia/Kolkata', EVENING)).toEqual({
      code: 'window_closed',
      severity: 'info',
      message: 'The calling window (10:00–19:00 in Asia/Kolkata) is shut now; the first call goes at 10:00 tomorrow (Asia/Kolkata).',
      fix: 'Nothing to do: the campaign waits for the window. Pause or cancel it if it should not go then.',
      docs: `${DOCS}window-closed`,
      count: 30,
    });
  });
  it('none inside the window, nor for calls held to each person’s own zone', () => {
    expect(windowClosedNotice(campaign('whatsapp'), 'Asia/Kolkata', EVENING)).toBeNull();
    expect(windowClosedNotice(campaign('voice', { recipient_time_zone: true }), 'Asia/Kolkata', EVENING)).toBeNull();
  });
  it('a scheduled start outside the window names the start and the opening', () => {
    const notice = windowClosedNotice(campaign('whatsapp', { start_at: new Date('2026-11-26T16:30:00Z') }), 'Asia/Kolkata', MORNING);
    expect(notice?.message).toBe('The send window (09:00–21:00 in Asia/Kolkata) is shut at the scheduled start, 22:00 today (Asia/Kolkata); the first message goes at 09:00 tomorrow (Asia/Kolkata).');
  });
});

describe('campaignEta: the one finish estimate (console page and campaigns watch)', () => {
  const s = { start_at: null, timezone: 'UTC', send_window_start_hour: 9, send_window_end_hour: 21 };
  it('at the throttle, or at the rate seen when that is lower', () => {
    const now = new Date('2026-11-23T10:00:00Z');
    expect(campaignEta({ remaining: 61, throttlePerMinute: 60, observedPerMinute: null, schedule: s, now })).toEqual({ at: new Date('2026-11-23T10:01:00Z'), perMinute: 60, observed: false });
    expect(campaignEta({ remaining: 61, throttlePerMinute: 60, observedPerMinute: 30, schedule: s, now })).toEqual({ at: new Date('2026-11-23T10:02:00Z'), perMinute: 30, observed: true });
    // A rate seen above the throttle is not believed.
    expect(campaignEta({ remaining: 61, throttlePerMinute: 60, observedPerMinute: 90, schedule: s, now }).perMinute).toBe(60);
  });
  it('from a start still ahead, and across the night when the window shuts first', () => {
    const now = new Date('2026-11-23T20:59:00Z');
    expect(campaignEta({ remaining: 2, throttlePerMinute: 1, observedPerMinute: null, schedule: s, now }).at).toEqual(new Date('2026-11-24T09:00:00Z'));
    const start = new Date('2026-11-24T12:00:00Z');
    expect(campaignEta({ remaining: 1, throttlePerMinute: 1, observedPerMinute: null, schedule: { ...s, start_at: start }, now }).at).toEqual(start);
  });
});

describe('formatZonedTime', () => {
  it('names the day from now in the zone and the zone itself', () => {
    expect(formatZonedTime(MORNING, 'Asia/Kolkata', EVENING)).toBe('10:00 tomorrow (Asia/Kolkata)');
    expect(formatZonedTime(EVENING, 'Asia/Kolkata', EVENING)).toBe('20:23 today (Asia/Kolkata)');
    expect(formatZonedTime(new Date('2026-11-28T04:30:00Z'), 'Asia/Kolkata', EVENING)).toBe('10:00 on Sat 28 Nov (Asia/Kolkata)');
  });
});

/** A launched run waiting for its start or window reads as waiting, not running (issue 35 §6). */
describe('runWaitsUntil', () => {
  const calls = (status: CampaignDoc['status'], sched: Partial<CampaignSchedule> = {}) => ({ status, schedule: schedule({ send_window_start_hour: 10, send_window_end_hour: 19, ...sched }) });

  it('waits for the window to open when launched after it shut', () => {
    expect(runWaitsUntil(calls('running'), EVENING)).toEqual(new Date('2026-11-26T04:30:00Z'));
  });

  it('is not waiting while the window is open', () => {
    expect(runWaitsUntil(calls('running'), MORNING)).toBeNull();
  });

  it('waits for a scheduled start, or the window opening after it, whichever is later', () => {
    const start = new Date('2026-11-26T06:30:00Z'); // 12:00 in Kolkata, inside the window
    expect(runWaitsUntil(calls('scheduled', { start_at: start }), MORNING)).toEqual(start);
    const late = new Date('2026-11-26T16:30:00Z'); // 22:00 in Kolkata, after it
    expect(runWaitsUntil(calls('scheduled', { start_at: late }), MORNING)).toEqual(new Date('2026-11-27T04:30:00Z'));
  });

  it('is null for a campaign not launched or finished, and one held to each person’s zone', () => {
    for (const status of ['draft', 'paused', 'completed', 'cancelled'] as const) expect(runWaitsUntil(calls(status), EVENING)).toBeNull();
    expect(runWaitsUntil(calls('running', { recipient_time_zone: true }), EVENING)).toBeNull();
  });
});
