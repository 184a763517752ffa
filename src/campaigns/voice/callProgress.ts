import type { CampaignRecipientDoc } from '../staging';

/**
 * A call campaign's progress (issue 15), counted per person from their recipient documents:
 * `dialled` (at least one call placed), `answered` (a call was answered), `conversation` (the
 * person spoke), `completed` (the merged outcome is `completed`), `call_backs` (call-backs
 * placed), `live` (a call placed and not yet folded in, or a call-back owed). Apart from
 * progress.ts so the outcome report can count the same way without importing the recount.
 */
export const CALL_PROGRESS_NAMES = ['dialled', 'answered', 'conversation', 'completed', 'call_backs', 'live'] as const;
export type CallProgress = Record<(typeof CALL_PROGRESS_NAMES)[number], number>;

export const ZERO_CALL_PROGRESS: CallProgress = { dialled: 0, answered: 0, conversation: 0, completed: 0, call_backs: 0, live: 0 };

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
