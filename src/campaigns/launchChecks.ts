import type { WorkspaceDoc } from '../db/collections';
import type { CampaignDoc } from './campaign';
import { campaignChannel } from './channels';
import type { Evaluation } from './evaluate';
import { CampaignRefusal, guardrail as guardrailRefusal, versionConflict } from './refusal';
import { transition } from './status';

/**
 * The launch checks (campaigns-tickets-dues §4 POST …/launch), in the contract's order, the
 * first refusal ending them: the version, (1) `campaign_frozen`, standing
 * (`workspace_suspended`), (2) `channel_dormant`, (3) `allowance_exhausted`, (4) every
 * evaluate check (the first `block` finding), (5) `confirm_recipients`. The audience is
 * evaluated only once the checks before it pass. Nothing here writes; a refusal is a
 * `CampaignRefusal` (src/campaigns/refusal.ts), which the API answers by its one table.
 */

export interface LaunchRequest {
  expected_version: number;
  confirm_recipients: number | null;
}

export type LaunchCheck = { ok: true; evaluation: Evaluation | null; to: 'running' | 'scheduled' } | { ok: false; refusal: CampaignRefusal };

const refused = (refusal: CampaignRefusal): LaunchCheck => ({ ok: false, refusal });
const guardrail = (...args: Parameters<typeof guardrailRefusal>): LaunchCheck => refused(guardrailRefusal(...args));

export async function checkLaunch(input: {
  campaign: CampaignDoc;
  workspace: WorkspaceDoc;
  request: LaunchRequest;
  now: Date;
  /** Runs the evaluate computation; called only when checks 1 to 3 pass. */
  evaluate: () => Promise<Evaluation>;
}): Promise<LaunchCheck> {
  const { campaign, workspace, request } = input;
  if (request.expected_version !== campaign.version) return refused(versionConflict(campaign.version, request.expected_version));
  const startsLater = campaign.schedule.start_at !== null && campaign.schedule.start_at.getTime() > input.now.getTime();
  const move = transition(campaign.status, { kind: 'launch', startsLater });
  if (move.kind !== 'moved') {
    const message = move.kind === 'refused' ? move.message : `This campaign is ${campaign.status}.`;
    return guardrail('campaign_frozen', message, 'Create a new campaign; only a draft or a paused campaign can be launched.');
  }
  if (workspace.suspended) {
    return guardrail('workspace_suspended', 'This workspace is suspended for billing; nothing was launched.', 'Pay the open invoice; launching works again once billing is restored.');
  }
  const channel = campaignChannel(campaign.channel);
  if (!channel.planIncludes(workspace.plan)) {
    return guardrail('channel_dormant', `The plan no longer includes ${channel.planFeature}.`, `Add ${channel.planFeature} to the plan.`);
  }
  // Each channel spends its own allowance (conversations, voice minutes): the contract's step 3.
  const spent = channel.allowanceRefusal(workspace);
  if (spent) return guardrail('allowance_exhausted', spent.message, spent.fix);
  // A paused campaign resumes its staged recipients: the audience is not rebuilt, and the
  // count to confirm is the staged one.
  const evaluation = campaign.status === 'paused' ? null : await input.evaluate();
  const findings = evaluation?.result.findings ?? [];
  const block = findings.find((f) => f.severity === 'block');
  if (block) return guardrail(block.code, block.message, block.fix, { findings });
  const eligible = evaluation ? evaluation.result.eligible : campaign.recipients;
  if (request.confirm_recipients !== null && request.confirm_recipients !== eligible) {
    // The count confirmed is a version of the audience: the contract answers it as one.
    return refused(
      new CampaignRefusal('version_conflict', `The audience is now ${eligible} people, not ${request.confirm_recipients}; evaluate again and confirm the new count.`, {
        eligible,
        confirm_recipients: request.confirm_recipients,
      }),
    );
  }
  return { ok: true, evaluation, to: move.to as 'running' | 'scheduled' };
}
