/**
 * A call campaign's progress (issue 15), counted per person from their recipient documents:
 * `dialled` (at least one call placed), `answered` (a call was answered), `conversation` (the
 * person spoke), `completed` (the merged outcome is `completed`), `call_backs` (call-backs
 * placed), `live` (a call placed and not yet folded in, or a call-back owed). Apart from
 * progress.ts so the outcome report can count the same way without importing the recount, and
 * apart from callProgress.ts so the channel registry names the shape without reaching staging.
 */
export const CALL_PROGRESS_NAMES = ['dialled', 'answered', 'conversation', 'completed', 'call_backs', 'live'] as const;
export type CallProgress = Record<(typeof CALL_PROGRESS_NAMES)[number], number>;

export const ZERO_CALL_PROGRESS: CallProgress = { dialled: 0, answered: 0, conversation: 0, completed: 0, call_backs: 0, live: 0 };
