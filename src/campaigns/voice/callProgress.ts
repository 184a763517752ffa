import type { CampaignRecipientDoc } from '../staging';

export { CALL_PROGRESS_NAMES, ZERO_CALL_PROGRESS, type CallProgress } from './callCounts';
import type { CallProgress } from './callCounts';

const SILENT = new Set(['unanswered', 'no_conversation', null, undefined]);

/** One person's contribution to the call progress. */
export function callProgressOf(doc: Pick<CampaignRecipientDoc, 'calls' | 'outcome' | 'state'>): CallProgress {
  const calls = doc.calls ?? [];
  return {
    dialled: calls.length > 0 ? 1 : 0,
    answered: calls.some((c) => c.answered === true) ? 1 : 0,
    conversation: calls.some((c) => !SILENT.has(c.disposition)) ? 1 : 0,
    completed: doc.outcome?.disposition === 'completed' ? 1 : 0,
    call_backs: calls.filter((c) => c.kind === 'call_back').length,
    live: doc.state === 'calling' ? 1 : 0,
  };
}
