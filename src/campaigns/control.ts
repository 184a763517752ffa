import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../db/collections';
import type { EventPublisher } from '../events';
import { visibilityOptions } from '../temporal/searchAttributes';
import { findCampaign, type CampaignDoc } from './campaign';
import { campaignChannel } from './channels';
import {
  campaignRunWorkflowId,
  CAMPAIGN_CANCEL_SETTLE_POLL_MS,
  CAMPAIGN_CANCEL_SETTLE_WAIT_MS,
  cancelCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  type RunControl,
  type RunInputBase,
} from './contracts';
import type { AudienceCache } from './audienceCache';
import { evaluateCampaign, type Evaluation } from './evaluate';
import { docsFor, type Finding } from './evaluationFindings';
import { campaignCounts, countedEveryone } from './progress';
import { windowClosedNotice } from './runExplanation';
import { checkLaunch } from './launchChecks';
import { guardrail as guardrailRefusal, versionConflict, type CampaignRefusal } from './refusal';
import { stageRecipients } from './staging';
import { transition, type StatusRefusalReason } from './status';
import { claimNextVersion, isAbandoned, writeClaimedVersion, type CampaignVersionDoc } from './versions';

/**
 * Launch, pause, resume and cancel (campaigns-tickets-dues §3, §4): the checks, then a claim
 * of the next version (one winner among parallel requests), then the claim's effect on the
 * run (start it, or one of its updates), then the campaign record. A process that dies after
 * its claim leaves it for the next request, which redoes the effect and writes it once the
 * claim's lease has passed (every effect is safe to repeat: staging pins once, the run's id is
 * the campaign id, and the updates set a state).
 */

export type ControlAction = 'launch' | 'pause' | 'resume' | 'cancel' | 'archive';

export interface ControlDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  events: EventPublisher;
  now: () => Date;
  /** The API process's resolved audiences: a launch reuses its evaluate's (audienceCache.ts). */
  audiences?: AudienceCache;
  /** How long a cancel waits for the run's final count (`CAMPAIGN_CANCEL_SETTLE_WAIT_MS`). */
  cancelSettleWaitMs?: number;
}

export interface ControlRequest {
  /** Archive takes none: a finished campaign changes in no other way (docs/decisions/README.md). */
  expected_version?: number;
  /** Launch only. */
  confirm_recipients?: number | null;
}

/** A launch notice: not a refusal, shown with the launched campaign (`allowance_spill`, `window_closed`). */
export type Notice = Omit<Finding, 'code'> & { code: Finding['code'] | 'allowance_spill' | 'window_closed' };

export type ControlResult =
  | { kind: 'done'; campaign: CampaignDoc; notices: Notice[] }
  | { kind: 'not_found' }
  | { kind: 'refused'; refusal: CampaignRefusal };

const conflict = (current: number, expected: number): ControlResult => ({ kind: 'refused', refusal: versionConflict(current, expected) });

const guardrail = (...args: Parameters<typeof guardrailRefusal>): ControlResult => ({ kind: 'refused', refusal: guardrailRefusal(...args) });

const REFUSAL_FIX: Record<StatusRefusalReason, string> = {
  campaign_not_launched: 'Launch the campaign first.',
  campaign_frozen: 'A finished campaign cannot change; create a new one.',
  campaign_not_finished: 'Wait until the campaign completes, or cancel it first.',
};

const updateFor = { paused: pauseCampaignUpdate, running: resumeCampaignUpdate, cancelled: cancelCampaignUpdate } as const;

/** Where every run starts from the staged audience (a first launch, or a run that was lost). */
function runInputBase(campaign: CampaignDoc, recipients: number, control: RunControl): RunInputBase {
  return {
    campaignId: campaign._id,
    tenantId: campaign.tenant_id,
    recipients,
    startAt: campaign.schedule.start_at?.toISOString() ?? null,
    throttlePerMinute: campaign.schedule.throttle_per_minute,
    control,
    cursor: 0,
    started: false,
  };
}


/**
 * The status a run starts with in the Temporal UI (the run upserts it as it moves): as the
 * claim being written will set it — paused, cancelled, or scheduled until its start time.
 */
function startStatus(campaign: CampaignDoc, control: RunControl, now: Date): CampaignDoc['status'] {
  if (control !== 'running') return control;
  return campaign.status !== 'running' && campaign.schedule.start_at && campaign.schedule.start_at > now ? 'scheduled' : 'running';
}

/** Starts the campaign's run: its channel's run workflow (channels.ts). */
function startRun(deps: ControlDeps, campaign: CampaignDoc, recipients: number, control: RunControl) {
  const workflowId = campaignRunWorkflowId(campaign._id);
  const visibility = visibilityOptions({
    workspaceId: campaign.tenant_id,
    kind: 'campaign',
    id: campaign._id,
    status: startStatus(campaign, control, deps.now()),
    name: campaign.name,
    summary: `${campaignChannel(campaign.channel).label} campaign “${campaign.name}” to ${recipients} ${recipients === 1 ? 'person' : 'people'}`,
  });
  const options = { workflowId, taskQueue: deps.taskQueue, ...visibility };
  return campaignChannel(campaign.channel).startRun(deps.temporal, options, runInputBase(campaign, recipients, control));
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

const CONTROL_OF: Record<Exclude<ControlAction, 'archive'>, RunControl> = { launch: 'running', resume: 'running', pause: 'paused', cancel: 'cancelled' };

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
  // A draft has no run to stop; an archived campaign's run has finished sending.
  if (action !== 'archive' && !(action === 'cancel' && campaign.status === 'draft')) {
    await steerRun(deps, campaign, recipients, CONTROL_OF[action], action === 'launch' && campaign.status === 'draft');
  }
  const written = await writeClaimedVersion(deps.db, claim, extra);
  if (!written) throw new Error(`campaign ${campaign._id} moved past version ${claim.version - 1} while its claim for ${claim.version} was held`);
  return written;
}

/** The data of `campaign.launched` (docs/decisions/README.md). */
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
 * `campaign.paused`, `campaign.resumed` and `campaign.ended` (docs/webhooks.md): once per
 * version that made the move (the dedupe key), so a repeated write or a retried activity
 * never sends one twice. `ended` carries the counters as last counted (late delivery
 * statuses may still move them for a day).
 */
export async function publishLifecycleEvent(events: EventPublisher, campaign: CampaignDoc, at: Date, counters?: CampaignDoc['counters']): Promise<void> {
  const type =
    campaign.status === 'paused'
      ? 'campaign.paused'
      : campaign.status === 'running' || campaign.status === 'scheduled'
        ? 'campaign.resumed'
        : campaign.status === 'completed' || campaign.status === 'failed' || campaign.status === 'cancelled'
          ? 'campaign.ended'
          : null;
  if (!type) return;
  const data: Record<string, unknown> = { campaign_id: campaign._id, name: campaign.name, status: campaign.status, version: campaign.version };
  if (type === 'campaign.ended') {
    Object.assign(data, { recipients: campaign.recipients, ...(counters ?? campaign.counters), completed_at: campaign.completed_at?.toISOString() ?? null });
  }
  await events.publish({ tenantId: campaign.tenant_id, type, dedupeKey: `${type}:${campaign._id}:v${campaign.version}`, createdAt: at, data });
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
      code: 'allowance_spill',
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

/** What a launch answers beside the campaign: the allowance spill, then a shut window. */
function launchNotices(workspace: WorkspaceDoc, campaign: CampaignDoc, now: Date): Notice[] {
  const window = windowClosedNotice(campaign, workspace.timezone, now);
  return [...allowanceNotices(workspace, campaign.recipients), ...(window ? [window] : [])];
}

/**
 * A WhatsApp campaign's cancel waits (a bounded while) for the run to stop its batch, skip
 * everyone outstanding and count them, so the answer and `campaign.ended` carry the final
 * counters (only late statuses move `delivered` and `read` after). Past the bound the counts show the outstanding
 * people as skipped ahead of the run (`countsView`); the batch under way may yet send a few of
 * them. A call campaign's run counts only after its live calls end, so it is not waited for.
 */
async function awaitFinalCount(deps: ControlDeps, campaign: CampaignDoc): Promise<void> {
  if (!campaignChannel(campaign.channel).cancelWaitsForFinalCount) return;
  const until = Date.now() + (deps.cancelSettleWaitMs ?? CAMPAIGN_CANCEL_SETTLE_WAIT_MS);
  while (!(await countedEveryone(deps.db, campaign)) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, CAMPAIGN_CANCEL_SETTLE_POLL_MS));
  }
}

/** Finishes a claim whose writer died (its lease passed), so the campaign can move on. */
async function finishAbandoned(deps: ControlDeps, campaign: CampaignDoc, workspace: WorkspaceDoc, winner: CampaignVersionDoc | null): Promise<void> {
  if (!winner || !isAbandoned(winner, campaign, deps.now())) return;
  if (RUN_TRIGGERS.has(winner.trigger)) await writeClaimedVersion(deps.db, winner);
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
      request: { expected_version: request.expected_version ?? 0, confirm_recipients: request.confirm_recipients ?? null },
      now,
      evaluate: () => evaluateCampaign(db, campaign, workspace, { audiences: deps.audiences }),
    });
    if (!check.ok) return { kind: 'refused', refusal: check.refusal };
    evaluation = check.evaluation;
    set = { status: check.to, launched_at: campaign.launched_at ?? now };
  } else {
    if (request.expected_version !== undefined && request.expected_version !== campaign.version) return conflict(campaign.version, request.expected_version);
    const startsLater = campaign.schedule.start_at !== null && campaign.schedule.start_at.getTime() > now.getTime();
    const move = transition(campaign.status, action === 'resume' ? { kind: 'resume', startsLater } : { kind: action });
    if (move.kind === 'refused') return guardrail(move.reason, move.message, REFUSAL_FIX[move.reason]);
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
    return conflict(Math.max(current?.version ?? 0, campaign.version + 1), request.expected_version ?? campaign.version);
  }
  const written = await applyClaim(deps, campaign, workspace, claimed.claim, evaluation);
  if (action === 'cancel' && written.status === 'cancelled') await awaitFinalCount(deps, written);
  const notices = action === 'launch' ? launchNotices(workspace, written, now) : [];
  if (action === 'launch' && campaign.status === 'draft') {
    await deps.events.publish({
      tenantId: written.tenant_id,
      type: 'campaign.launched',
      dedupeKey: `campaign.launched:${written._id}`,
      createdAt: now,
      data: launchedEventData(written, notices),
    });
  } else if (action !== 'archive') {
    await publishLifecycleEvent(deps.events, written, now, action === 'cancel' ? (await campaignCounts(deps.db, written)).counters : undefined);
  }
  return { kind: 'done', campaign: written, notices };
}

/**
 * The run's own moves (`scheduled` → `running` when the start time comes, `running` →
 * `completed` when every recipient is final, → `failed` when the run cannot go on), claimed
 * like a person's: answers the status after the move, or the status that made it not apply
 * (a pause landed first). A completion or failure fires `campaign.ended`, also when an
 * earlier attempt wrote the move and died before publishing (its dedupe key keeps it once).
 */
export async function moveCampaignFromRun(
  deps: { db: Db; now: () => Date; events?: EventPublisher },
  input: { tenantId: string; campaignId: string; trigger: 'start' | 'complete' | 'fail'; at: Date },
): Promise<CampaignDoc['status'] | null> {
  const ended = async (status: CampaignDoc['status']) => {
    if (!deps.events || input.trigger === 'start' || status !== (input.trigger === 'complete' ? 'completed' : 'failed')) return;
    const campaign = await findCampaign(deps.db, input.tenantId, input.campaignId);
    if (campaign) await publishLifecycleEvent(deps.events, campaign, input.at, (await campaignCounts(deps.db, campaign)).counters);
  };
  for (let attempt = 0; ; attempt++) {
    const campaign = await findCampaign(deps.db, input.tenantId, input.campaignId);
    if (!campaign) return null;
    const move = transition(campaign.status, { kind: input.trigger });
    if (move.kind !== 'moved') {
      await ended(campaign.status);
      return campaign.status;
    }
    const set = { status: move.to, ...(move.completes ? { completed_at: input.at } : {}) };
    const claimed = await claimNextVersion(deps.db, campaign, input.trigger, set, input.at);
    if (claimed.kind === 'won') {
      await writeClaimedVersion(deps.db, claimed.claim);
      await ended(move.to);
      return move.to;
    }
    // A person's change holds the next version: once written, the move is decided again on it.
    if (claimed.winner && isAbandoned(claimed.winner, campaign, deps.now()) && RUN_TRIGGERS.has(claimed.winner.trigger)) {
      await writeClaimedVersion(deps.db, claimed.winner);
    }
    if (attempt > 50) throw new Error(`campaign ${input.campaignId}: version ${campaign.version + 1} is held by an unfinished change`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Moves whose claim carries everything to write (no effect on the run to redo). */
const RUN_TRIGGERS: ReadonlySet<string> = new Set(['start', 'complete', 'fail', 'archive']);
