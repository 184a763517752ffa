import { proxyActivities } from '@temporalio/workflow';
import type { CampaignActivities } from '../activities/campaigns';
import type { VoiceCampaignActivities } from '../activities/voiceCampaigns';
import {
  CALL_HOLD_POLL_MS,
  CALL_PLACE_POLL_MS,
  CALL_STEP_MAX,
  CALL_STEP_SPAN_MS,
  CAMPAIGN_RUN_MAX_HISTORY_EVENTS,
  type VoiceCampaignRunInput,
  type VoiceCampaignRunState,
} from '../src/campaigns/contracts';
import { CAMPAIGN_BATCH, CAMPAIGN_STEP } from './activityOptions';
import { handleRunControls, startWhenDue, waitUntil, waitWhilePaused } from './campaignControls';
import { continueAsNewIfDue } from './continueAsNew';
import { workflowNowIso } from './time';

const { stepVoiceCampaign } = proxyActivities<VoiceCampaignActivities>(CAMPAIGN_BATCH);
const { moveCampaign, recountCampaign, skipOutstanding } = proxyActivities<CampaignActivities>(CAMPAIGN_STEP);

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
 * are awaited), not by a signal per call: the same look finds a free live-call place, which a
 * call of another kind frees without telling the campaign. When every live-call place is
 * taken it waits and looks again; no person fails for it. Held refusals (suspended, wallet
 * empty, …) are looked at again every `CALL_HOLD_POLL_MS`, the daily budget at 00:00 UTC.
 */
export async function voiceCampaignRun(input: VoiceCampaignRunInput): Promise<VoiceCampaignRunState> {
  const run = { ...input, active: [...input.active], callBacks: [...input.callBacks] };
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
  });
  handleRunControls(run, state, () => phase);

  const ids = { campaignId: run.campaignId, tenantId: run.tenantId };
  const carry = (): [VoiceCampaignRunInput] => [{ ...run }];
  const maxHistoryEvents = run.maxHistoryEvents ?? CAMPAIGN_RUN_MAX_HISTORY_EVENTS;

  await startWhenDue(run);
  phase = 'sending';

  const spacing = 60_000 / run.throttlePerMinute;
  const perStep = Math.max(1, Math.min(CALL_STEP_MAX, Math.floor(CALL_STEP_SPAN_MS / spacing)));
  while (run.control !== 'cancelled') {
    await continueAsNewIfDue<typeof voiceCampaignRun>(carry, { maxHistoryEvents });
    const done = run.cursor >= run.recipients && run.active.length === 0 && run.callBacks.length === 0;
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
    const step = await stepVoiceCampaign({
      ...ids,
      recipients: run.recipients,
      cursor: run.cursor,
      active: run.active,
      dueCallBacks: due,
      max: placing ? perStep : 0,
      nowMs,
      throttlePerMinute: run.throttlePerMinute,
    });
    run.cursor = step.cursor;
    run.active = step.active;
    const settledCallBacks = new Set(step.placedCallBacks);
    const known = new Set(run.callBacks.map((c) => c.position));
    run.callBacks = [...run.callBacks.filter((c) => !settledCallBacks.has(c.position)), ...step.newCallBacks.filter((c) => !known.has(c.position))];
    held = step.held;
    waitingForPlace = step.waitingForPlace;

    // When to look again: at the throttle's next place, or when the window opens, a place may
    // free up, a call-back falls due, or a hold may lift; and while calls are awaited, at the poll.
    let nextPlace: number;
    if (step.held === 'daily_call_budget') nextPlace = nextUtcMidnight(nowMs);
    else if (step.held) nextPlace = nowMs + CALL_HOLD_POLL_MS;
    else if (step.opensAtMs !== null) nextPlace = step.opensAtMs;
    else if (step.waitingForPlace) nextPlace = nowMs + CALL_PLACE_POLL_MS;
    else nextPlace = Math.max(step.nextPlaceAtMs, nowMs + spacing);
    if (placing || step.opensAtMs !== null || step.held) run.nextPlaceAtMs = nextPlace;
    const morePlacing = run.control === 'running' && (run.cursor < run.recipients || run.callBacks.length > 0);
    const placeAt = morePlacing ? Math.max(run.nextPlaceAtMs ?? nowMs, Math.min(...(run.cursor < run.recipients ? [nowMs] : []), ...run.callBacks.map((c) => c.dueAtMs))) : Infinity;
    const pollAt = run.active.length > 0 ? nowMs + CALL_PLACE_POLL_MS : Infinity;
    const wakeAt = Math.min(placeAt, pollAt);
    if (Number.isFinite(wakeAt)) await waitUntil(run, wakeAt);
  }

  if (run.control === 'cancelled') {
    while (run.cursor < run.recipients) {
      run.cursor = await skipOutstanding({ ...ids, from: run.cursor, recipients: run.recipients, at: workflowNowIso() });
      await continueAsNewIfDue<typeof voiceCampaignRun>(carry, { maxHistoryEvents });
    }
    // Calls already placed finish and are folded in; owed call-backs are dropped.
    const drop = run.callBacks.map((c) => c.position);
    run.callBacks = [];
    for (let first = true; first || run.active.length > 0; first = false) {
      if (!first) await waitUntil(run, Date.now() + CALL_PLACE_POLL_MS);
      const step = await stepVoiceCampaign({ ...ids, recipients: run.recipients, cursor: run.cursor, active: run.active, dueCallBacks: [], max: 0, nowMs: Date.now(), throttlePerMinute: run.throttlePerMinute, dropCallBacks: first ? drop : [] });
      run.active = step.active;
      // A call-back owed by a call folded in after the cancel is dropped too.
      if (step.newCallBacks.length > 0) {
        await stepVoiceCampaign({ ...ids, recipients: run.recipients, cursor: run.cursor, active: [], dueCallBacks: [], max: 0, nowMs: Date.now(), throttlePerMinute: run.throttlePerMinute, dropCallBacks: step.newCallBacks.map((c) => c.position) });
      }
    }
  }
  phase = 'settling';
  await recountCampaign({ ...ids, recipients: run.recipients, chunks: 'all', at: workflowNowIso() });
  if (run.control !== 'cancelled') await moveCampaign({ ...ids, trigger: 'complete', at: workflowNowIso() });
  return state();
}
