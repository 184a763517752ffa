import { ActivityFailure, ApplicationFailure, patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { CampaignActivities } from '../../activities/campaigns';
import {
  CAMPAIGN_BATCH_MAX,
  CAMPAIGN_BATCH_SPAN_MS,
  CAMPAIGN_CATCH_UP_MS,
  CAMPAIGN_HOLD_POLL_MS,
  CAMPAIGN_RUN_MAX_HISTORY_EVENTS,
  CAMPAIGN_SETTLE_DELAYS_MS,
  type CampaignRunInput,
  type CampaignRunState,
} from '../../src/campaigns/contracts';
import { CAMPAIGN_BATCH, CAMPAIGN_STEP } from './activityOptions';
import { handleRunControls, startWhenDue, waitUntil, waitWhilePaused } from './campaignControls';
import { continueAsNewIfDue } from '../continueAsNew';
import { workflowNowIso } from '../time';
import { showStatus } from '../visibility';

const { sendCampaignBatch } = proxyActivities<CampaignActivities>(CAMPAIGN_BATCH);
const { handOverLateRecounts, moveCampaign, recountCampaign, skipOutstanding } = proxyActivities<CampaignActivities>(CAMPAIGN_STEP);

/**
 * Runs that took this marker wait for the throttle's next slot before a batch even when a
 * pause cut the wait short; earlier histories sent at once after a resume, and replay so.
 */
const RESUME_KEEPS_THROTTLE_PATCH = 'campaign-resume-keeps-throttle';

/**
 * Issue 27: runs that took this marker hand their late recounts to the workers' pass and end
 * when the campaign does; earlier histories count them here for a day, and replay so.
 */
const LATE_RECOUNTS_OUTSIDE_PATCH = 'campaign-late-recounts-outside-run';

/**
 * Issue 28: runs that took this marker plan a batch from where the throttle's plan is, up to
 * `CAMPAIGN_CATCH_UP_MS` in the past (the slot timer's and the workflow task's delay), and the
 * batch catches that up (src/campaigns/whatsapp/throttle.ts). Earlier runs planned from the workflow
 * task's time, so each late batch moved the plan later for good.
 */
const CATCH_UP_PATCH = 'campaign-batch-catch-up';

/**
 * One campaign's run (campaigns-tickets-dues §3, §4; workflow id = campaign id). Waits for a
 * future `start_at`, then works through the staged recipients by position in batches of
 * about `CAMPAIGN_BATCH_SPAN_MS` at the throttle: each batch an activity that paces its sends
 * against the times planned here, sends through the record-first send use case (so a retried
 * batch skips who was sent) and says where it stopped. The window and the throttle are
 * workflow time (timers), so the time-skipping server tests a night's wait at once. A held
 * workspace (suspended, or out of conversations) is looked at again every
 * `CAMPAIGN_HOLD_POLL_MS`. Pause, resume and cancel are updates; cancel skips everyone left.
 * Once every recipient is final the campaign completes and the run ends; the late statuses
 * that still come are counted by the workers' pass (src/campaigns/whatsapp/lateRecounts.ts). The
 * history continues as new with the cursor carried.
 */
export async function campaignRun(input: CampaignRunInput): Promise<CampaignRunState> {
  try {
    return await runCampaign(input);
  } catch (err) {
    // An activity that could not finish (its retries ran out, or a record is missing) stops
    // the run for good: the campaign is `failed` (with `campaign.ended`), not left `running`.
    if (!(err instanceof ActivityFailure)) throw err;
    await moveCampaign({ campaignId: input.campaignId, tenantId: input.tenantId, trigger: 'fail', at: workflowNowIso() });
    showStatus('failed');
    throw ApplicationFailure.nonRetryable(`campaign ${input.campaignId} failed: ${err.cause?.message ?? err.message}`, 'CampaignRunFailed');
  }
}

async function runCampaign(input: CampaignRunInput): Promise<CampaignRunState> {
  const run = { ...input };
  let held: string | null = null;
  let phase: CampaignRunState['phase'] = run.started ? 'sending' : 'waiting';
  const state = (): CampaignRunState => ({ control: run.control, cursor: run.cursor, recipients: run.recipients, held, phase });

  handleRunControls(run, state, () => phase);

  const ids = { campaignId: run.campaignId, tenantId: run.tenantId };
  const carry = (): [CampaignRunInput] => [{ ...run }];
  const maxHistoryEvents = run.maxHistoryEvents ?? CAMPAIGN_RUN_MAX_HISTORY_EVENTS;

  await startWhenDue(run);
  phase = 'sending';

  while (run.control !== 'cancelled') {
    await continueAsNewIfDue<typeof campaignRun>(carry, { maxHistoryEvents });
    if (run.cursor >= run.recipients) {
      // Everyone is final; a campaign paused at that moment completes once resumed (or is cancelled).
      if (run.control === 'paused') {
        await waitWhilePaused(run);
        continue;
      }
      break;
    }
    if (run.control === 'paused') {
      await waitWhilePaused(run);
      continue;
    }
    // Only a plan already under way is caught up on: a run's first batch starts now.
    const catchUpFrom = (run.nextSendAtMs ?? null) !== null && patched(CATCH_UP_PATCH) ? Date.now() - CAMPAIGN_CATCH_UP_MS : Date.now();
    const plannedStartMs = Math.max(run.nextSendAtMs ?? 0, catchUpFrom);
    // A pause (or a pause and resume) ends the wait for the next slot early; a batch sends its
    // first recipient at once, so the slot is waited for here, never skipped.
    if (plannedStartMs > Date.now() && patched(RESUME_KEEPS_THROTTLE_PATCH)) {
      await waitUntil(run, plannedStartMs);
      continue;
    }
    const spacing = 60_000 / run.throttlePerMinute;
    const result = await sendCampaignBatch({
      ...ids,
      from: run.cursor,
      recipients: run.recipients,
      max: Math.max(1, Math.min(CAMPAIGN_BATCH_MAX, Math.floor(CAMPAIGN_BATCH_SPAN_MS / spacing))),
      plannedStartMs,
      throttlePerMinute: run.throttlePerMinute,
    });
    run.cursor = result.next;
    if (result.kind === 'held') {
      held = result.reason;
      run.nextSendAtMs = Date.now() + CAMPAIGN_HOLD_POLL_MS;
    } else {
      held = null;
      run.nextSendAtMs = result.kind === 'closed' ? result.opensAtMs : result.nextSendAtMs;
    }
    await waitUntil(run, run.nextSendAtMs);
  }

  if (run.control === 'cancelled') {
    while (run.cursor < run.recipients) {
      run.cursor = await skipOutstanding({ ...ids, from: run.cursor, recipients: run.recipients, at: workflowNowIso() });
      await continueAsNewIfDue<typeof campaignRun>(carry, { maxHistoryEvents });
    }
  }
  phase = 'settling';
  await recountCampaign({ ...ids, recipients: run.recipients, chunks: 'all', at: workflowNowIso() });
  if (run.control !== 'cancelled') {
    await moveCampaign({ ...ids, trigger: 'complete', at: workflowNowIso() });
    showStatus('completed');
  }
  // Late statuses (delivered, read) keep moving recipients; the counters follow for a day.
  if (patched(LATE_RECOUNTS_OUTSIDE_PATCH)) {
    await handOverLateRecounts({ ...ids, recipients: run.recipients, at: workflowNowIso() });
    return state();
  }
  for (const delay of CAMPAIGN_SETTLE_DELAYS_MS) {
    await sleep(delay);
    await recountCampaign({ ...ids, recipients: run.recipients, chunks: 'movable', at: workflowNowIso() });
  }
  return state();
}
