import { Refusal } from '../domain/refusal';
import { docsFor, type Finding, type FindingCode } from './evaluationFindings';
import type { StatusRefusalReason } from './status';

/**
 * Why a campaign request was refused (campaigns-tickets-dues §4): a draft's rule
 * (`template_not_found`, `invalid_argument`, `unknown_variable`), a stale version
 * (`version_conflict`, also a launch whose audience count changed), or a guardrail of a
 * launch or a control (the status, the workspace's standing, a finding that blocks).
 * `api/refusals.ts` gives each its code; the domain names no HTTP status.
 */
export type CampaignRefusalReason =
  | 'template_not_found'
  | 'invalid_argument'
  | 'unknown_variable'
  | 'version_conflict'
  | StatusRefusalReason
  | 'workspace_suspended'
  | 'channel_dormant'
  | 'allowance_exhausted'
  | FindingCode;

export class CampaignRefusal extends Refusal<CampaignRefusalReason> {
  override readonly name = 'CampaignRefusal';
}

/** A guardrail: the reason, where it is documented, how to fix it (and, from a launch's evaluation, every finding). */
export const guardrail = (reason: Exclude<CampaignRefusalReason, 'version_conflict'>, message: string, fix: string, extra: { findings?: Finding[] } = {}): CampaignRefusal =>
  new CampaignRefusal(reason, message, { docs: docsFor(reason), fix, ...extra });

/** The request named a version the campaign has moved past. */
export const versionConflict = (current: number, expected: number): CampaignRefusal =>
  new CampaignRefusal('version_conflict', `This campaign is at version ${current}, not ${expected}; read it again.`, { current_version: current });
