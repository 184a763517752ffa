import type { CampaignStatus } from './campaign';

/**
 * Every move of a campaign's `status` (campaigns-tickets-dues §3), in one function. The
 * contract fixes launch (from `draft` or `paused`, else `campaign_frozen`), pause of a
 * sending campaign and cancel of an unfinished one; the rest is chosen in docs/decisions/README.md
 * ("Campaigns"): which states pause and cancel accept, and the automatic moves.
 */

export type CampaignTrigger =
  /** `startsLater`: `start_at` is still in the future. */
  | { kind: 'launch'; startsLater: boolean }
  | { kind: 'resume'; startsLater: boolean }
  | { kind: 'pause' }
  | { kind: 'cancel' }
  /** Automatic: the scheduled start came. */
  | { kind: 'start' }
  /** Automatic: every recipient reached a final state. */
  | { kind: 'complete' }
  /** Automatic: an unrecoverable failure. */
  | { kind: 'fail' }
  /** Console: hide a finished campaign from the default list. */
  | { kind: 'archive' };

export type StatusRefusalReason = 'campaign_frozen' | 'campaign_not_launched' | 'campaign_not_finished';

export type Transition =
  | { kind: 'moved'; to: CampaignStatus; completes: boolean }
  /** Asked for what already holds (pause a paused campaign): nothing changes, no new version. */
  | { kind: 'unchanged' }
  | { kind: 'refused'; reason: StatusRefusalReason; message: string };

/** States nothing moves out of, except archiving. */
export const FINISHED: readonly CampaignStatus[] = ['completed', 'failed', 'cancelled', 'archived'];
const SENDING: readonly CampaignStatus[] = ['scheduled', 'running'];

const moved = (to: CampaignStatus, completes = false): Transition => ({ kind: 'moved', to, completes });
const refused = (reason: StatusRefusalReason, message: string): Transition => ({ kind: 'refused', reason, message });
const frozen = (status: CampaignStatus, action: string) =>
  refused('campaign_frozen', `This campaign is ${status}; it cannot be ${action}.`);

export function transition(status: CampaignStatus, trigger: CampaignTrigger): Transition {
  const sendingState = (startsLater: boolean) => moved(startsLater ? 'scheduled' : 'running');
  switch (trigger.kind) {
    case 'launch':
      if (status === 'draft' || status === 'paused') return sendingState(trigger.startsLater);
      return refused('campaign_frozen', `This campaign is ${status}; only a draft or a paused campaign can be launched.`);
    case 'resume':
      if (status === 'paused') return sendingState(trigger.startsLater);
      if (SENDING.includes(status)) return { kind: 'unchanged' };
      if (status === 'draft') return refused('campaign_not_launched', 'This campaign is a draft; launch it instead.');
      return frozen(status, 'resumed');
    case 'pause':
      if (SENDING.includes(status)) return moved('paused');
      if (status === 'paused') return { kind: 'unchanged' };
      if (status === 'draft') return refused('campaign_not_launched', 'This campaign is a draft; there is nothing to pause.');
      return frozen(status, 'paused');
    case 'cancel':
      if (status === 'cancelled') return { kind: 'unchanged' };
      if (FINISHED.includes(status)) return frozen(status, 'cancelled');
      return moved('cancelled', true);
    case 'start':
      if (status === 'scheduled') return moved('running');
      if (status === 'running') return { kind: 'unchanged' };
      return frozen(status, 'started');
    case 'complete':
      if (status === 'running') return moved('completed', true);
      if (status === 'completed') return { kind: 'unchanged' };
      return frozen(status, 'completed');
    case 'fail':
      if (status === 'failed') return { kind: 'unchanged' };
      if (FINISHED.includes(status) || status === 'draft') return frozen(status, 'failed');
      return moved('failed', true);
    case 'archive':
      if (status === 'archived') return { kind: 'unchanged' };
      if (status === 'completed' || status === 'failed' || status === 'cancelled') return moved('archived');
      return refused('campaign_not_finished', `This campaign is ${status}; only a finished campaign can be archived.`);
  }
}
