import { applySuccessRule, type FieldValue, type FieldEvidence, type Capture, type CallLearning, type CallResult, type Disposition } from '../../calls';

/**
 * A call campaign's outcome per person, merged across their calls (campaigns-tickets-dues §4
 * GET …/outcomes): a dropped first call plus a completing call-back make one complete record;
 * a later unanswered call never replaces earlier learning; a `completed` record stays
 * completed. And the one call-back (`call_back_incomplete`): when a call ended partway with
 * required answers missing, once per person, carrying the answers so far. Pure: the run's
 * activity applies these to the recipient it alone writes.
 */

/** One call placed to a person, as their recipient keeps it. */
export interface RecipientCall {
  call_id: string;
  kind: 'first' | 'call_back';
  placed_at: Date;
  /** Null until the call's result is in. */
  answered: boolean | null;
  ended_at: Date | null;
  disposition: Disposition | null;
  result_state: CallResult['state'];
}

/**
 * What the person's calls learnt, merged (the one call-result shape, `CallLearning`; its
 * `disposition` null only while nothing is known: the only reading failed), with where each
 * answer came from.
 */
export interface MergedOutcome extends CallLearning {
  /** Answers by key across the person's calls; an unanswered field is absent. */
  fields: Record<string, FieldValue>;
  /** Each answer's evidence, with the call it came from. */
  evidence: Record<string, FieldEvidence & { call_id: string }>;
  /** The call whose reading the record's disposition and summary come from. */
  call_id: string;
}

/** Dispositions decided without a conversation: nothing was learnt on the call. */
const NOTHING_LEARNT: ReadonlySet<Disposition> = new Set(['unanswered', 'no_conversation']);

/** True when the record holds anything the person said. */
export function holdsLearning(outcome: MergedOutcome | null): boolean {
  if (!outcome) return false;
  return outcome.captured > 0 || (outcome.disposition !== null && !NOTHING_LEARNT.has(outcome.disposition));
}

export interface FinishedCall {
  call_id: string;
  result: CallResult;
  evidence: Record<string, FieldEvidence>;
}

function requiredMissing(capture: Capture | null, fields: Record<string, FieldValue>): string[] {
  return (capture?.fields ?? []).filter((f) => f.required && fields[f.key] === undefined).map((f) => f.key);
}

/** The record from one call alone. */
function fromCall(call: FinishedCall, capture: Capture | null): MergedOutcome {
  const r = call.result;
  const evidence = Object.fromEntries(Object.entries(call.evidence).map(([key, e]) => [key, { ...e, call_id: call.call_id }]));
  const missing = requiredMissing(capture, r.fields);
  const disposition = r.state !== 'ready' ? null : r.disposition === 'completed' && missing.length > 0 ? 'partial' : r.disposition;
  return {
    disposition,
    goal_met: r.goal_met,
    success: r.success,
    summary: r.summary,
    sentiment: r.sentiment,
    next_step: r.next_step,
    next_step_reason: r.next_step_reason,
    fields: { ...r.fields },
    evidence,
    captured: Object.keys(r.fields).length,
    expected: capture?.fields.length ?? 0,
    missing_required: missing,
    call_id: call.call_id,
  };
}

/**
 * Folds a finished call into the person's record. `capture` is the campaign's (a call-back's
 * own capture asks only what was missing, so its answers are keyed the same way).
 */
export function mergeOutcome(previous: MergedOutcome | null, call: FinishedCall, capture: Capture | null): MergedOutcome {
  if (previous?.disposition === 'completed') return previous;
  const current = fromCall(call, capture);
  const learnt = holdsLearning(current);
  if (!previous) return current;
  if (!learnt) return holdsLearning(previous) ? previous : current;
  // This call taught something: its reading leads, and the answers of both calls add up
  // (an answer given again replaces the earlier one: the person's latest word).
  const fields = { ...previous.fields, ...current.fields };
  const evidence = { ...previous.evidence, ...current.evidence };
  const missing = requiredMissing(capture, fields);
  // The call's own disposition (a call-back is judged on the questions it asked), then the rule across the calls.
  let disposition = call.result.disposition;
  // `completed` is never set while a required answer is missing across the calls.
  if (disposition === 'completed' && missing.length > 0) disposition = 'partial';
  return {
    ...current,
    disposition,
    success: applySuccessRule(capture, fields),
    fields,
    evidence,
    captured: Object.keys(fields).length,
    missing_required: missing,
  };
}

/**
 * The person's record from all their finished calls, in the order they were placed: the same
 * as folding each in as it ended, and what a re-read of one of them recomputes (the call's
 * reading is replaced; the rules across the calls still hold).
 */
export function mergeCalls(calls: readonly FinishedCall[], capture: Capture | null): MergedOutcome | null {
  return calls.reduce<MergedOutcome | null>((merged, call) => mergeOutcome(merged, call, capture), null);
}

/** Dispositions of a call that ended partway through the questions. */
const ENDED_PARTWAY: ReadonlySet<Disposition> = new Set(['partial', 'hung_up_early']);

/**
 * Whether the person is owed their call-back: the campaign asks for call-backs, none was
 * placed yet, the last call was a conversation that ended partway, and a required answer is
 * still missing across the calls. A person who asked to be called back, refused, or was not
 * reached gets none (the contract's call-back is for interrupted conversations).
 */
export function owesCallBack(input: { callBackIncomplete: boolean; calls: readonly RecipientCall[]; outcome: MergedOutcome; last: FinishedCall }): boolean {
  if (!input.callBackIncomplete) return false;
  if (input.calls.some((c) => c.kind === 'call_back')) return false;
  const last = input.last.result.disposition;
  if (input.last.result.state !== 'ready' || last === null || !ENDED_PARTWAY.has(last)) return false;
  return input.outcome.disposition !== 'completed' && input.outcome.missing_required.length > 0;
}

/**
 * The call-back's capture: the campaign's goal, and only the fields not yet answered, in
 * their order; the success rule stays when its field is still asked.
 */
export function callBackCapture(capture: Capture | null, outcome: MergedOutcome): Capture | null {
  if (!capture) return null;
  const fields = capture.fields.filter((f) => outcome.fields[f.key] === undefined);
  const success = capture.success && fields.some((f) => f.key === capture.success!.field) ? capture.success : null;
  return { goal: capture.goal, fields, success };
}

/** What was already said, as the call's `details` (label to answer): the agent confirms rather than asks again. */
export function answersSoFar(capture: Capture | null, outcome: MergedOutcome): Record<string, string | number | boolean> {
  const details: Record<string, string | number | boolean> = {};
  for (const field of capture?.fields ?? []) {
    const value = outcome.fields[field.key];
    if (value === undefined) continue;
    details[`Already answered: ${field.label}`] = Array.isArray(value) ? value.join(', ') : value;
  }
  return details;
}
