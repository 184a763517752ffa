import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { CampaignActivities } from '../../activities/campaigns';
import {
  campaignRunStateQuery,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  type CampaignRunState,
  type RunControl,
} from '../../src/campaigns/contracts';
import { CAMPAIGN_STEP } from './activityOptions';
import { workflowNowIso } from '../time';
import { refuseArguments } from '../updateValidators';
import { showStatus } from '../visibility';

const { moveCampaign } = proxyActivities<CampaignActivities>(CAMPAIGN_STEP);

/**
 * What a campaign run (WhatsApp or calls) and its controls share: the control a person set
 * and the scheduled start. The helpers here change this object in place, so whatever the run
 * carries into a new run holds their changes.
 */
export interface ControlledRun {
  campaignId: string;
  tenantId: string;
  control: RunControl;
  startAt: string | null;
  started: boolean;
}

/**
 * Pause, resume and cancel as updates (each answers the run's state) and the state query.
 * Validators refuse what the run can no longer do; they never change state.
 */
export function handleRunControls(run: ControlledRun, state: () => CampaignRunState, phase: () => CampaignRunState['phase']): void {
  const steer = (control: RunControl) => () => {
    run.control = control;
    showStatus(controlStatus(run));
    return state();
  };
  const open = (...args: unknown[]) => {
    refuseArguments(...args);
    if (run.control === 'cancelled') throw new Error('This campaign run is cancelled.');
    if (phase() === 'settling') throw new Error('This campaign run has finished sending.');
  };
  setHandler(pauseCampaignUpdate, steer('paused'), { validator: open });
  setHandler(resumeCampaignUpdate, steer('running'), { validator: open });
  setHandler(cancelCampaignUpdate, steer('cancelled'), { validator: open });
  setHandler(campaignRunStateQuery, state);
}

/** The campaign status a control puts the run in (campaign status rules in src/campaigns/status.ts). */
function controlStatus(run: ControlledRun): string {
  if (run.control !== 'running') return run.control;
  return !run.started && run.startAt && Date.parse(run.startAt) > Date.now() ? 'scheduled' : 'running';
}

/** Sleeps until `atMs` unless the control changes first, or `wakeEarly` turns true. */
export async function waitUntil(run: ControlledRun, atMs: number, wakeEarly: () => boolean = () => false): Promise<void> {
  const control = run.control;
  const ms = atMs - Date.now();
  if (ms > 0) await condition(() => run.control !== control || wakeEarly(), ms);
}

/** Waits for a resume (or a cancel). */
export async function waitWhilePaused(run: ControlledRun): Promise<void> {
  await condition(() => run.control !== 'paused');
}

/**
 * Waits for a future `startAt`, then moves the campaign from `scheduled` to `running` and
 * marks the run started. Paused while scheduled: it waits for a resume, then for the start
 * time if still ahead. Returns at once for a run already started, and on a cancel.
 */
export async function startWhenDue(run: ControlledRun): Promise<void> {
  while (!run.started && run.control !== 'cancelled') {
    if (run.control === 'paused') {
      await waitWhilePaused(run);
      continue;
    }
    const startMs = run.startAt ? Date.parse(run.startAt) : 0;
    if (startMs > Date.now()) {
      await waitUntil(run, startMs);
      continue;
    }
    await moveCampaign({ campaignId: run.campaignId, tenantId: run.tenantId, trigger: 'start', at: workflowNowIso() });
    run.started = true;
    showStatus('running');
  }
}
