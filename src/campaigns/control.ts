import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../db/collections';
import type { EventPublisher } from '../events/publisher';
import { startWorkflow } from '../temporal/startWorkflow';
import { findCampaign, type CampaignDoc } from './campaign';
import {
  campaignRunDefinition,
  campaignRunWorkflowId,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  voiceCampaignRunDefinition,
  type CampaignRunInput,
  type RunControl,
  type VoiceCampaignRunInput,
} from './contracts';
import { evaluateCampaign, type Evaluation } from './evaluate';
import { docsFor, type Finding } from './findings';
import { checkLaunch, type LaunchRefusal } from './launchChecks';
import { stageRecipients } from './staging';
import { transition } from './status';
import { claimNextVersion, isAbandoned, writeClaimedVersion, type CampaignVersionDoc } from './versions';

/**
 * Launch, pause, resume and cancel (campaigns-tickets-dues §3, §4): the checks, then a claim
 * of the next version (one winner among parallel requests), then the claim's effect on the
 * run (start it, or one of its updates), then the campaign record. A process that dies after
 * its claim leaves it for the next request, which redoes the effect and writes it once the
 * claim's lease has passed (every effect is safe to repeat: staging pins once, the run's id is
 * the campaign id, and the updates set a state).
 */

export type ControlAction = 'launch' | 'pause' | 'resume' | 'cancel';

export interface ControlDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  events: EventPublisher;
  now: () => Date;
}

export interface ControlRequest {
  expected_version: number;
  /** Launch only. */
  confirm_recipients?: number | null;
}

/** A launch notice: not a refusal, shown with the launched campaign (`allowance_spill`). */
export type Notice = Finding;

export type ControlResult =
  | { kind: 'done'; campaign: CampaignDoc; notices: Notice[] }
  | { kind: 'not_found' }
  | { kind: 'refused'; refusal: LaunchRefusal };

const conflict = (current: number, expected: number): ControlResult => ({
  kind: 'refused',
  refusal: {
    kind: 'version_conflict',
    status: 409,
    message: `This campaign is at version ${current}, not ${expected}; read it again.`,
    details: { reason: 'version_conflict', current_version: current },
  },
});

const guardrail = (reason: string, message: string, fix: string): ControlResult => ({
  kind: 'refused',
  refusal: { kind: 'guardrail', status: 412, message, details: { reason, docs: docsFor(reason), fix } },
});

const updateFor = { paused: pauseCampaignUpdate, running: resumeCampaignUpdate, cancelled: cancelCampaignUpdate } as const;

/** The run's input when it starts from the staged audience (a first launch, or a run that was lost). */
function runInput(campaign: CampaignDoc, recipients: number, control: RunControl): CampaignRunInput {
  return {
    campaignId: campaign._id,
    tenantId: campaign.tenant_id,
    recipients,
    startAt: campaign.schedule.start_at?.toISOString() ?? null,
    throttlePerMinute: campaign.schedule.throttle_per_minute,
    control,
    cursor: 0,
    started: false,
    nextSendAtMs: null,
  };
}

/** A call campaign's run input: the same start, nothing awaited yet. */
function voiceRunInput(campaign: CampaignDoc, recipients: number, control: RunControl): VoiceCampaignRunInput {
  const { nextSendAtMs: _unused, ...common } = runInput(campaign, recipients, control);
  return { ...common, active: [], callBacks: [], nextPlaceAtMs: null };
}

/** Starts the campaign's run: the call run for a voice campaign, else the message run. */
function startRun(deps: ControlDeps, campaign: CampaignDoc, recipients: number, control: RunControl) {
  const workflowId = campaignRunWorkflowId(campaign._id);
  return campaign.channel === 'voice'
    ? startWorkflow(deps.temporal, voiceCampaignRunDefinition, { workflowId, taskQueue: deps.taskQueue, args: [voiceRunInput(campaign, recipients, control)] })
    : startWorkflow(deps.temporal, campaignRunDefinition, { workflowId, taskQueue: deps.taskQueue, args: [runInput(campaign, recipients, control)] });
}

/**
 * Puts the run in `control`: the update on a run that exists, else a new run from position 0
 * (the send intents skip whoever was sent). A validator's refusal (the run has finished
 * sending and counts late statuses) is not the caller's error: the record is written anyway.
 */
async function steerRun(deps: ControlDeps, campaign: CampaignDoc, recipients: number, control: RunControl, fresh: boolean): Promise<void> {
  const workflowId = campaignRunWorkflowId(campaign._id);
  if (fresh) {
    try {
      await startRun(deps, campaign, recipients, control);
      return;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
  }
  try {
    await deps.temporal.workflow.getHandle(workflowId).executeUpdate(updateFor[control]);
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) return;
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    await startRun(deps, campaign, recipients, control).catch(
      (startErr: unknown) => {
        if (!(startErr instanceof WorkflowExecutionAlreadyStartedError)) throw startErr;
      },
    );
  }
}

const CONTROL_OF: Record<ControlAction, RunControl> = { launch: 'running', resume: 'running', pause: 'paused', cancel: 'cancelled' };

/**
 * A claim's effect and its write. For a launch the audience is staged first (once: a
 * relaunch of a paused campaign, or a second try, finds the pin) and the staged count,
 * exclusions and consent pin are written with the status.
 */
async function applyClaim(
  deps: ControlDeps,
  campaign: CampaignDoc,
  workspace: WorkspaceDoc,
  claim: CampaignVersionDoc,
  evaluation: Evaluation | null,
): Promise<CampaignDoc> {
  const action = claim.trigger as ControlAction;
  let extra: Record<string, unknown> = {};
  let recipients = campaign.recipients;
  if (action === 'launch') {
    const pin = await stageRecipients(deps.db, { campaign, workspace, at: claim.created_at, ...(evaluation ? { evaluation } : {}) });
    recipients = pin.recipients;
    extra = {
      recipients: pin.recipients,
      excluded: pin.excluded,
      consent: campaign.consent ? { ...campaign.consent, pin: { pinned_at: pin.pinned_at, recipients: pin.recipients, checksum: pin.checksum } } : null,
    };
  }
  // A draft has no run to stop.
  if (!(action === 'cancel' && campaign.status === 'draft')) {
    await steerRun(deps, campaign, recipients, CONTROL_OF[action], action === 'launch' && campaign.status === 'draft');
  }
  const written = await writeClaimedVersion(deps.db, claim, extra);
  if (!written) throw new Error(`campaign ${campaign._id} moved past version ${claim.version - 1} while its claim for ${claim.version} was held`);
  return written;
}

/** The data of `campaign.launched` (docs/decisions.md). */
export function launchedEventData(campaign: CampaignDoc, notices: Notice[]): Record<string, unknown> {
  return {
    campaign_id: campaign._id,
    name: campaign.name,
    channel: campaign.channel,
    type: campaign.type,
    status: campaign.status,
    version: campaign.version,
    recipients: campaign.recipients,
    excluded: campaign.excluded,
    consent_basis: campaign.consent?.basis ?? null,
    checksum: campaign.consent?.pin?.checksum ?? null,
    start_at: campaign.schedule.start_at?.toISOString() ?? null,
    launched_at: campaign.launched_at?.toISOString() ?? null,
    notices: notices.map((n) => n.code),
  };
}

/**
 * The `allowance_spill` notice: more recipients than included conversations left, so the
 * rest are paid from prepaid credits (and, past those, the run holds with
 * `allowance_exhausted` until more are bought).
 */
export function allowanceNotices(workspace: WorkspaceDoc, recipients: number): Notice[] {
  const included = Math.max(0, workspace.plan.conversations_included - workspace.plan.conversations_used);
  if (recipients <= included) return [];
  const spill = recipients - included;
  const short = Math.max(0, spill - workspace.plan.prepaid_credits);
  return [
    {
      code: 'allowance_spill' as Finding['code'],
      severity: 'info',
      message:
        `${spill} of ${recipients} messages go beyond the plan's ${included} remaining conversations and use prepaid credits` +
        (short > 0 ? `; ${short} more than the credits cover, so the campaign will hold until credits are added.` : '.'),
      fix: short > 0 ? 'Buy prepaid credits before the campaign reaches them.' : 'Nothing to do; check the credit balance.',
      docs: docsFor('allowance_spill'),
      count: spill,
    },
  ];
}

/** Finishes a claim whose writer died (its lease passed), so the campaign can move on. */
async function finishAbandoned(deps: ControlDeps, campaign: CampaignDoc, workspace: WorkspaceDoc, winner: CampaignVersionDoc | null): Promise<void> {
  if (!winner || !isAbandoned(winner, campaign, deps.now())) return;
  if (winner.trigger === 'start' || winner.trigger === 'complete') await writeClaimedVersion(deps.db, winner);
  else await applyClaim(deps, campaign, workspace, winner, null);
}

export async function controlCampaign(
  deps: ControlDeps,
  input: { tenantId: string; campaignId: string; action: ControlAction; request: ControlRequest },
): Promise<ControlResult> {
  const { db } = deps;
  const campaign = await findCampaign(db, input.tenantId, input.campaignId);
  if (!campaign) return { kind: 'not_found' };
  const workspace = await collections(db).workspaces.findOne({ _id: input.tenantId });
  if (!workspace) return { kind: 'not_found' };
  const now = deps.now();
  const { action, request } = input;

  let evaluation: Evaluation | null = null;
  let set: Record<string, unknown>;
  if (action === 'launch') {
    const check = await checkLaunch({
      campaign,
      workspace,
      request: { expected_version: request.expected_version, confirm_recipients: request.confirm_recipients ?? null },
      now,
      evaluate: () => evaluateCampaign(db, campaign, workspace),
    });
    if (!check.ok) return { kind: 'refused', refusal: check.refusal };
    evaluation = check.evaluation;
    set = { status: check.to, launched_at: campaign.launched_at ?? now };
  } else {
    if (request.expected_version !== campaign.version) return conflict(campaign.version, request.expected_version);
    const startsLater = campaign.schedule.start_at !== null && campaign.schedule.start_at.getTime() > now.getTime();
    const move = transition(campaign.status, action === 'resume' ? { kind: 'resume', startsLater } : { kind: action });
    if (move.kind === 'refused') {
      const fix =
        move.reason === 'campaign_not_launched' ? 'Launch the campaign first.' : 'A finished campaign cannot change; create a new one.';
      return guardrail(move.reason, move.message, fix);
    }
    if (move.kind === 'unchanged') return { kind: 'done', campaign, notices: [] };
    if (action === 'resume' && workspace.suspended) {
      return guardrail('workspace_suspended', 'This workspace is suspended for billing; the campaign stays paused.', 'Pay the open invoice; resuming works again once billing is restored.');
    }
    set = { status: move.to, ...(move.completes ? { completed_at: now } : {}) };
  }

  const claimed = await claimNextVersion(db, campaign, action, set, now);
  if (claimed.kind === 'lost') {
    await finishAbandoned(deps, campaign, workspace, claimed.winner);
    const current = await findCampaign(db, input.tenantId, input.campaignId);
    return conflict(Math.max(current?.version ?? 0, campaign.version + 1), request.expected_version);
  }
  const written = await applyClaim(deps, campaign, workspace, claimed.claim, evaluation);
  const notices = action === 'launch' ? allowanceNotices(workspace, written.recipients) : [];
  if (action === 'launch' && campaign.status === 'draft') {
    await deps.events.publish({
      tenantId: written.tenant_id,
      type: 'campaign.launched',
      dedupeKey: `campaign.launched:${written._id}`,
      createdAt: now,
      data: launchedEventData(written, notices),
    });
  }
  return { kind: 'done', campaign: written, notices };
}

/**
 * The run's own moves (`scheduled` → `running` when the start time comes, `running` →
 * `completed` when every recipient is final), claimed like a person's: answers the status
 * after the move, or the status that made it not apply (a pause landed first).
 */
export async function moveCampaignFromRun(
  deps: { db: Db; now: () => Date },
  input: { tenantId: string; campaignId: string; trigger: 'start' | 'complete'; at: Date },
): Promise<CampaignDoc['status'] | null> {
  for (let attempt = 0; ; attempt++) {
    const campaign = await findCampaign(deps.db, input.tenantId, input.campaignId);
    if (!campaign) return null;
    const move = transition(campaign.status, { kind: input.trigger });
    if (move.kind !== 'moved') return campaign.status;
    const set = { status: move.to, ...(move.completes ? { completed_at: input.at } : {}) };
    const claimed = await claimNextVersion(deps.db, campaign, input.trigger, set, input.at);
    if (claimed.kind === 'won') {
      await writeClaimedVersion(deps.db, claimed.claim);
      return move.to;
    }
    // A person's change holds the next version: once written, the move is decided again on it.
    if (claimed.winner && isAbandoned(claimed.winner, campaign, deps.now()) && (claimed.winner.trigger === 'start' || claimed.winner.trigger === 'complete')) {
      await writeClaimedVersion(deps.db, claimed.winner);
    }
    if (attempt > 50) throw new Error(`campaign ${input.campaignId}: version ${campaign.version + 1} is held by an unfinished change`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
