import type { WorkspaceDoc } from '../db/collections';
import { CAMPAIGN_LIMITS } from './limits';

/**
 * A workspace's campaign settings, kept on the workspace document as `campaign_settings`
 * (set in the console); what a schedule leaves out comes from here. Workspaces written
 * before the field existed get the defaults.
 */
export interface CampaignSettings {
  throttle_per_minute: number;
  send_window_start_hour: number;
  send_window_end_hour: number;
  /** Null: the workspace's own zone. */
  timezone: string | null;
  /**
   * The plan's per-campaign recipient limit (`plan_limit`). Defaults to the contract's
   * ceiling, so only a plan that sets a lower one sees `plan_limit`.
   */
  max_recipients_per_campaign: number;
}

export const DEFAULT_CAMPAIGN_SETTINGS: CampaignSettings = {
  throttle_per_minute: CAMPAIGN_LIMITS.defaultThrottlePerMinute,
  send_window_start_hour: CAMPAIGN_LIMITS.sendWindowFloorHour,
  send_window_end_hour: CAMPAIGN_LIMITS.sendWindowCeilingHour,
  timezone: null,
  max_recipients_per_campaign: CAMPAIGN_LIMITS.recipientCeiling,
};

export type WorkspaceWithCampaignSettings = WorkspaceDoc & { campaign_settings?: Partial<CampaignSettings> };

export function campaignSettingsOf(workspace: WorkspaceDoc): CampaignSettings & { timezone: string } {
  const stored = (workspace as WorkspaceWithCampaignSettings).campaign_settings ?? {};
  const settings = { ...DEFAULT_CAMPAIGN_SETTINGS, ...stored };
  return { ...settings, timezone: settings.timezone ?? workspace.timezone };
}
