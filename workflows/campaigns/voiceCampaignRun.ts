import { proxyActivities, setHandler } from '@temporalio/workflow';
import type { CampaignActivities } from '../../activities/campaigns';
import type { VoiceCampaignActivities } from '../../activities/voiceCampaigns';
import {
  CALL_HOLD_POLL_MS,
  CALL_PLACE_POLL_MS,
  CALL_STEP_MAX,
  CALL_STEP_SPAN_MS,
  CALL_WAITING_MAX,
  CAMPAIGN_RUN_MAX_HISTORY_EVENTS,
  campaignCallEndedSignal,
  type DueCallBack,
  type VoiceCampaignRunInput,
  type VoiceCampaignRunState,
} from '../../src/campaigns/contracts';
import { CAMPAIGN_BATCH, CAMPAIGN_STEP } from './activityOptions';
import { handleRunControls, startWhenDue, waitUntil, waitWhilePaused } from './campaignControls';
import { continueAsNewIfDue } from '../continueAsNew';
import { workflowNowIso } from '../time';
import { showStatus } from '../visibility';

const { stepVoiceCampaign } = proxyActivities<VoiceCampaignActivities>(CAMPAIGN_BATCH);
const { moveCampaign, recountCampaign, skipOutstanding } = proxyActivities<CampaignActivities>(CAMPAIGN_STEP);

/** A list of people owed a call after a step: those it settled out, those it added (or set again) in. */
const settle = (owed: DueCallBack[], settled: number[], added: DueCallBack[]): DueCallBack[] => {
  const gone = new Set(settled);
  const kept = owed.filter((c) => !gone.has(c.position));
  const known = new Set(kept.map((c) => c.position));
  return [...kept, ...added.filter((c) => !known.has(c.position))];
};

const nextUtcMidnight = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
};

/**
 * A call campaign's run (issue 15; workflow id = campaign id): one workflow, and each call is
 * the call workflow POST /calls starts; no workflow per person. It works in steps, each one
 * activity that folds the results of the calls it awaits into the people's merged outcomes
 * and then, inside the 10:00–19:00 window, places calls at the throttle, owed call-backs
 * first. It learns that a call ended by looking (a step every `CALL_PLACE_POLL_MS` while calls
 * are awaited). When every live-call place is taken it waits for one of its calls to end (the
 * call's finish step signals `campaignCallEnded`) or at the latest for the next look, which
 * also finds a place a call of another kind freed; no person fails for it. With the schedule's
 * `recipient_time_zone`, people whose own window is shut wait in `waiting` while others are
 * called. Held refusals (suspended, wallet empty, …) are looked at again every
 * `CALL_HOLD_POLL_MS`, the daily budget at 00:00 UTC.
 */
export async function voiceCampaignRun(input: VoiceCampaignRunInput): Promise<VoiceCampaignRunState> {
  const run = { ...input, active: [...input.active], callBacks: [...input.callBacks], waiting: [...(input.waiting ?? [])] };
  let held: string | null = null;
  let waitingForPlace = false;
  let phase: VoiceCampaignRunState['phase'] = run.started ? 'sending' : 'waiting';
  const state = (): VoiceCampaignRunState => ({
    control: run.control,
    cursor: run.cursor,
    recipients: run.recipients,
    held,
    phase,
    active: run.active.length,
    callBacksOwed: run.callBacks.length,
    waitingForPlace,
    waitingForOwnWindow: run.waiting.length,
  });
  handleRunControls(run, state, () => phase);
  // One of this run's calls ended since the last step began: its live-call place is free.
  let callEnded = false;
  setHandler(campaignCallEndedSignal, () => {
    callEnded = true;
  });

  const ids = { campaignId: run.campaignId, tenantId: run.tenantId };
  const carry = (): [VoiceCampaignRunInput] => [{ ...run }];
  const maxHistoryEvents = run.maxHistoryEvents ?? CAMPAIGN_RUN_MAX_HISTORY_EVENTS;

  await startWhenDue(run);
  phase = 'sending';

  const spacing = 60_000 / run.throttlePerMinute;
  const perStep = Math.max(1, Math.min(CALL_STEP_MAX, Math.floor(CALL_STEP_SPAN_MS / spacing)));
  while (run.control !== 'cancelled') {
    await continueAsNewIfDue<typeof voiceCampaignRun>(carry, { maxHistoryEvents });
    const done = run.cursor >= run.recipients && run.active.length === 0 && run.callBacks.length === 0 && run.waiting.length === 0;
    if (done && run.control !== 'paused') break;
    const nowMs = Date.now();
    // Paused: calls already placed are still folded in; nothing new is placed.
    const placing = run.control === 'running' && nowMs >= (run.nextPlaceAtMs ?? 0);
    if (!placing && run.active.length === 0) {
      // Running but not yet: the throttle (or a hold, the window) gates every placing until then.
      if (run.control === 'paused') await waitWhilePaused(run);
      else await waitUntil(run, run.nextPlaceAtMs ?? nowMs);
      continue;
    }
    const due = placing ? run.callBacks.filter((c) => c.dueAtMs <= nowMs).map((c) => c.position) : [];
    const dueWaiting = placing ? run.waiting.filter((w) => w.dueAtMs <= nowMs).map((w) => w.position) : [];
    callEnded = false;
    const step = await stepVoiceCampaign({
      ...ids,
      recipients: run.recipients,
      cursor: run.cursor,
      active: run.active,
      dueCallBacks: due,
      max: placing ? perStep : 0,
      nowMs,
      throttlePerMinute: run.throttlePerMinute,
      dueWaiting,
      waitingRoom: CALL_WAITING_MAX - run.waiting.length,
    });
    run.cursor = step.cursor;
    run.active = step.active;
    run.callBacks = settle(run.callBacks, step.placedCallBacks, step.newCallBacks);
    run.waiting = settle(run.waiting, step.settledWaiting ?? [], step.waiting ?? []);
    held = step.held;
    waitingForPlace = step.waitingForPlace;

    // When to look again: at the throttle's next place, or when the window opens, a place may
    // free up, a call-back falls due, or a hold may lift; and while calls are awaited, at the poll.
    let nextPlace: number;
    const throttleNext = Math.max(step.nextPlaceAtMs, nowMs + spacing);
    if (step.held === 'daily_call_budget') nextPlace = nextUtcMidnight(nowMs);
    else if (step.held) nextPlace = nowMs + CALL_HOLD_POLL_MS;
    else if (step.opensAtMs !== null) nextPlace = step.opensAtMs;
    else if (step.waitingForPlace) nextPlace = nowMs + CALL_PLACE_POLL_MS;
    else nextPlace = throttleNext;
    if (placing || step.opensAtMs !== null || step.held) run.nextPlaceAtMs = nextPlace;
    const morePlacing = run.control === 'running' && (run.cursor < run.recipients || run.callBacks.length > 0 || run.waiting.length > 0);
    const cursorAt = run.cursor < run.recipients ? [step.cursorOpensAtMs ?? nowMs] : [];
    const placeAt = morePlacing ? Math.max(run.nextPlaceAtMs ?? nowMs, Math.min(...cursorAt, ...run.callBacks.map((c) => c.dueAtMs), ...run.waiting.map((w) => w.dueAtMs))) : Infinity;
    const pollAt = run.active.length > 0 ? nowMs + CALL_PLACE_POLL_MS : Infinity;
    const wakeAt = Math.min(placeAt, pollAt);
    // Waiting for a place: one of its calls ending frees one, so the run places at once (at
    // the throttle) instead of at the poll. Without a signal this waits exactly as before.
    const placeFreed = () => step.waitingForPlace && !step.held && callEnded && run.control === 'running';
    if (Number.isFinite(wakeAt)) await waitUntil(run, wakeAt, placeFreed);
    if (placeFreed()) {
      run.nextPlaceAtMs = throttleNext;
      await waitUntil(run, throttleNext);
    }
  }

  if (run.control === 'cancelled') {
    while (run.cursor < run.recipients) {
      run.cursor = await skipOutstanding({ ...ids, from: run.cursor, recipients: run.recipients, at: workflowNowIso() });
      await continueAsNewIfDue<typeof voiceCampaignRun>(carry, { maxHistoryEvents });
    }
    // Calls already placed finish and are folded in; owed call-backs are dropped, and people
    // waiting for their own window are skipped.
    const drop = run.callBacks.map((c) => c.position);
    const dropWaiting = run.waiting.map((w) => w.position);
    run.callBacks = [];
    run.waiting = [];
    for (let first = true; first || run.active.length > 0; first = false) {
      if (!first) await waitUntil(run, Date.now() + CALL_PLACE_POLL_MS);
      const step = await stepVoiceCampaign({ ...ids, recipients: run.recipients, cursor: run.cursor, active: run.active, dueCallBacks: [], max: 0, nowMs: Date.now(), throttlePerMinute: run.throttlePerMinute, dropCallBacks: first ? drop : [], ...(first && dropWaiting.length > 0 ? { dropWaiting } : {}) });
      run.active = step.active;
      // A call-back owed by a call folded in after the cancel is dropped too.
      if (step.newCallBacks.length > 0) {
        await stepVoiceCampaign({ ...ids, recipients: run.recipients, cursor: run.cursor, active: [], dueCallBacks: [], max: 0, nowMs: Date.now(), throttlePerMinute: run.throttlePerMinute, dropCallBacks: step.newCallBacks.map((c) => c.position) });
      }
    }
  }
  phase = 'settling';
  await recountCampaign({ ...ids, recipients: run.recipients, chunks: 'all', at: workflowNowIso() });
  if (run.control !== 'cancelled') {
    await moveCampaign({ ...ids, trigger: 'complete', at: workflowNowIso() });
    showStatus('completed');
  }
  return state();
}
