import type { Capture, CaptureField, CallResult, NextStep, Reading } from './types';
import { pendingResult } from './types';

/**
 * Turns what a reader proposed into the call's `result` (api-core §2 Result, §3 Result
 * state): answers are typed per field and dropped when they do not fit, the success rule is
 * applied here rather than trusted to the reader, and `completed` is refused while a
 * required answer is missing. Pure: the same reading always gives the same result.
 */

/** The longest `text` answer kept; a longer one is cut, not dropped (the answer is there). */
export const MAX_TEXT_ANSWER_CHARS = 500;

export type FieldValue = string | boolean | number | string[];

/** Dispositions the service decides from the line alone, without reading a transcript. */
export type DecidedDisposition = 'unanswered' | 'no_conversation';

const YES_WORDS = new Set(['yes', 'true']);
const NO_WORDS = new Set(['no', 'false']);
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const NUMBER_PATTERN = /^[-+]?(\d+(\.\d+)?|\.\d+)$/;

function nonBlank(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const trimmed = raw.trim();
  return trimmed === '' ? undefined : trimmed;
}

function matchOption(options: string[], raw: unknown): string | undefined {
  const text = nonBlank(raw)?.toLowerCase();
  if (text === undefined) return undefined;
  return options.find((o) => o.toLowerCase() === text);
}

function numberFrom(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  const text = nonBlank(raw);
  if (text === undefined || !NUMBER_PATTERN.test(text)) return undefined;
  const value = Number(text);
  // `-0` would print as `0` anyway; normalise so equality checks see one zero.
  return Number.isFinite(value) ? value + 0 : undefined;
}

/** A real calendar date: `2025-02-30` and `2025-13-01` do not fit. */
export function isCalendarDate(text: string): boolean {
  const m = DATE_PATTERN.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Cuts on a code point boundary so an emoji is never split in half. */
function cutText(text: string): string {
  const points = Array.from(text);
  return points.length <= MAX_TEXT_ANSWER_CHARS ? text : points.slice(0, MAX_TEXT_ANSWER_CHARS).join('').trimEnd();
}

/**
 * A raw answer typed as the field's type (api-core §2, value per type), or `undefined` when
 * it does not fit (the field is then unanswered). Blank strings never fit.
 */
export function coerceAnswer(field: CaptureField, raw: unknown): FieldValue | undefined {
  switch (field.type) {
    case 'text': {
      const text = nonBlank(raw);
      return text === undefined ? undefined : cutText(text);
    }
    case 'yes_no': {
      if (typeof raw === 'boolean') return raw;
      const word = nonBlank(raw)?.toLowerCase();
      if (word === undefined) return undefined;
      if (YES_WORDS.has(word)) return true;
      if (NO_WORDS.has(word)) return false;
      return undefined;
    }
    case 'choice':
      return matchOption(field.options, raw);
    case 'multi_choice': {
      // One option sent on its own counts as a list of one.
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : null;
      if (items === null) return undefined;
      const chosen = new Set(items.map((item) => matchOption(field.options, item)).filter((o) => o !== undefined));
      // In the capture's option order, so the same answers always read the same.
      const answer = field.options.filter((o) => chosen.has(o));
      return answer.length === 0 ? undefined : answer;
    }
    case 'number':
      return numberFrom(raw);
    case 'rating': {
      const value = numberFrom(raw);
      return value !== undefined && Number.isInteger(value) && value >= 1 && value <= 5 ? value : undefined;
    }
    case 'date': {
      const text = nonBlank(raw);
      return text !== undefined && isCalendarDate(text) ? text : undefined;
    }
  }
}

/** Every answer that fits, by key, in capture order; unanswered keys are absent. */
export function typedFields(capture: Capture | null, answers: Record<string, unknown>): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {};
  for (const field of capture?.fields ?? []) {
    if (!Object.prototype.hasOwnProperty.call(answers, field.key)) continue;
    const value = coerceAnswer(field, answers[field.key]);
    if (value !== undefined) fields[field.key] = value;
  }
  return fields;
}

/**
 * The success rule on typed fields: null when there is no rule or its field is unanswered
 * (null is not a failure).
 */
export function applySuccessRule(capture: Capture | null, fields: Record<string, FieldValue>): boolean | null {
  const rule = capture?.success;
  if (!rule) return null;
  const field = capture.fields.find((f) => f.key === rule.field);
  const value = fields[rule.field];
  if (!field || value === undefined) return null;
  const equals = rule.equals.trim().toLowerCase();
  switch (field.type) {
    case 'yes_no':
      return typeof value === 'boolean' ? value === (equals === 'yes') : null;
    case 'choice':
      return typeof value === 'string' ? value.toLowerCase() === equals : null;
    case 'multi_choice':
      return Array.isArray(value) ? value.some((v) => v.toLowerCase() === equals) : null;
    case 'rating':
      return typeof value === 'number' ? String(value) === equals : null;
    default:
      // text, number and date fields cannot be success rules; capture validation refuses them.
      return null;
  }
}

function missingRequired(capture: Capture | null, fields: Record<string, FieldValue>): string[] {
  return (capture?.fields ?? []).filter((f) => f.required && fields[f.key] === undefined).map((f) => f.key);
}

/** `next_step_reason` is a short sentence whenever `next_step` is not `none`. */
const DEFAULT_REASONS: Record<Exclude<NextStep, 'none'>, string> = {
  call_back: 'Call again to finish the conversation.',
  send_whatsapp: 'Follow up on WhatsApp.',
  human_follow_up: 'A team member should follow up.',
};

function reasonFor(nextStep: NextStep, reason: string | null): string | null {
  if (nextStep === 'none') return null;
  const text = reason?.trim();
  return text ? text : DEFAULT_REASONS[nextStep];
}

const DECIDED: Record<DecidedDisposition, { summary: string | null; reason: string }> = {
  // api-core §2: summary is null on unanswered calls.
  unanswered: { summary: null, reason: 'The call was not answered.' },
  no_conversation: { summary: 'The call connected but nobody spoke.', reason: 'The call connected but nobody spoke.' },
};

/** A `ready` result from a reading. */
export function buildResult(reading: Reading, capture: Capture | null, readAt: string): CallResult;
/** A `ready` result decided without reading: the call was never answered, or nobody spoke. */
export function buildResult(reading: null, capture: Capture | null, readAt: string, decided: DecidedDisposition): CallResult;
export function buildResult(reading: Reading | null, capture: Capture | null, readAt: string, decided?: DecidedDisposition): CallResult {
  const expected = capture?.fields.length ?? 0;
  if (decided !== undefined) {
    const { summary, reason } = DECIDED[decided];
    return {
      state: 'ready',
      disposition: decided,
      // Nothing was learnt, so the goal was not met; `unclear` is kept for readings that could not tell.
      goal_met: 'no',
      success: null,
      summary,
      sentiment: null,
      next_step: 'call_back',
      next_step_reason: reason,
      fields: {},
      captured: 0,
      expected,
      missing_required: missingRequired(capture, {}),
      read_at: readAt,
    };
  }
  if (reading === null) throw new Error('buildResult needs a reading or a decided disposition');

  const fields = typedFields(capture, reading.answers);
  const missing = missingRequired(capture, fields);
  const disposition = reading.disposition === 'completed' && missing.length > 0 ? 'partial' : reading.disposition;
  const summary = reading.summary.trim();
  return {
    state: 'ready',
    disposition,
    goal_met: reading.goal_met,
    success: applySuccessRule(capture, fields),
    summary: summary === '' ? null : summary,
    sentiment: reading.sentiment,
    next_step: reading.next_step,
    next_step_reason: reasonFor(reading.next_step, reading.next_step_reason),
    fields,
    captured: Object.keys(fields).length,
    expected,
    missing_required: missing,
    read_at: readAt,
  };
}

/**
 * Reading failed after every attempt: the pending shape with state `failed` (nothing was
 * read, so nothing else is known). A console re-read can still make it `ready`.
 */
export function failedResult(): CallResult {
  return { ...pendingResult(), state: 'failed' };
}
