import { z } from 'zod';
import { CAPTURE_DISPLAYS, CAPTURE_FIELD_TYPES, type Capture, type CaptureDisplay, type CaptureField } from './types';

/**
 * Capture (api-core §2): the request shape, and the rules that turn it into the echoed
 * capture. A capture that breaks a rule is refused as a validation failure pointing at the
 * offending field, and nothing is dialled.
 */

/** The longest capture we hand to the agent, as rendered by `renderCaptureForAgent`. */
export const MAX_CAPTURE_PROMPT_CHARS = 6_000;

/** A capture field key; also how a simulated callee's scripted answers name their fields. */
export const CAPTURE_KEY_PATTERN = /^[a-z][a-z0-9_]{0,39}$/;

export const captureFieldRequest = z.object({
  // normaliseCapture refuses a blank label; the pattern says so in the OpenAPI document.
  label: z.string().max(80).meta({ pattern: '\\S' }),
  key: z.string().regex(CAPTURE_KEY_PATTERN, 'lowercase letters, digits and underscores, starting with a letter, up to 40 characters').optional(),
  type: z.enum(CAPTURE_FIELD_TYPES).default('text'),
  hint: z.string().max(240).nullable().default(null),
  options: z.array(z.string().max(60)).default([]),
  required: z.boolean().default(false),
  // Any string: an unusable display falls back to `auto` instead of failing the call.
  display: z.string().max(40).default('auto'),
});

export const captureRequest = z.object({
  goal: z.string().max(400).nullable().default(null),
  fields: z.array(captureFieldRequest).max(12).default([]),
  success: z.object({ field: z.string().max(40), equals: z.union([z.string().max(60), z.number(), z.boolean()]) }).nullable().default(null),
});

export type CaptureRequest = z.infer<typeof captureRequest>;

export interface CaptureIssue {
  path: (string | number)[];
  message: string;
}

/** `Best time to call?` → `best_time_to_call`; never empty and always starting with a letter. */
export function keyFromLabel(label: string): string {
  const base = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const lettered = /^[a-z]/.test(base) ? base : `field_${base}`.replace(/_+$/, '');
  return lettered.slice(0, 40).replace(/_+$/, '');
}

function withSuffix(base: string, n: number): string {
  const suffix = `_${n}`;
  return `${base.slice(0, 40 - suffix.length)}${suffix}`;
}

/** First spelling wins; `Yes` and `yes ` are one option. */
function mergeOptions(options: string[]): string[] {
  const seen = new Map<string, string>();
  for (const option of options) {
    const trimmed = option.trim();
    if (trimmed && !seen.has(trimmed.toLowerCase())) seen.set(trimmed.toLowerCase(), trimmed);
  }
  return [...seen.values()];
}

function displayOf(value: string): CaptureDisplay {
  return (CAPTURE_DISPLAYS as readonly string[]).includes(value) ? (value as CaptureDisplay) : 'auto';
}

/** What the agent is handed: the goal, then each field with its type, hint and options. */
export function renderCaptureForAgent(capture: Capture): string {
  const lines: string[] = [];
  if (capture.goal) lines.push(`Goal: ${capture.goal}`);
  capture.fields.forEach((field, i) => {
    lines.push(`${i + 1}. ${field.label} [${field.key}; ${field.type}${field.required ? '; required' : ''}]`);
    if (field.hint) lines.push(`   Hint: ${field.hint}`);
    if (field.options.length > 0) lines.push(`   Options: ${field.options.join(' | ')}`);
  });
  if (capture.success) lines.push(`Success when ${capture.success.field} is ${capture.success.equals}.`);
  return lines.join('\n');
}

function successEquals(field: CaptureField, equals: string | number | boolean): string | null {
  const text = String(equals).trim();
  switch (field.type) {
    case 'yes_no': {
      const lower = text.toLowerCase();
      if (lower === 'yes' || lower === 'true') return 'yes';
      if (lower === 'no' || lower === 'false') return 'no';
      return null;
    }
    case 'choice':
    case 'multi_choice':
      return field.options.find((o) => o.toLowerCase() === text.toLowerCase()) ?? null;
    case 'rating':
      return /^[1-5]$/.test(text) ? text : null;
    default:
      return null;
  }
}

/** Applies every capture rule: the echoed capture, or the issues that refuse it. */
export function normaliseCapture(request: CaptureRequest): { capture: Capture; issues: [] } | { capture: null; issues: CaptureIssue[] } {
  const issues: CaptureIssue[] = [];
  const goal = request.goal?.trim() ? request.goal.trim() : null;
  if (!goal && request.fields.length === 0) {
    issues.push({ path: [], message: 'A capture needs a goal, at least one field, or both.' });
  }

  const explicitKeys = new Set(request.fields.flatMap((f) => (f.key ? [f.key] : [])));
  const used = new Set<string>();
  const fields: CaptureField[] = request.fields.map((f, i) => {
    const label = f.label.trim();
    if (!label) issues.push({ path: ['fields', i, 'label'], message: 'A field needs a label.' });
    let key: string;
    if (f.key) {
      key = f.key;
      if (used.has(key)) issues.push({ path: ['fields', i, 'key'], message: `Two fields have the key "${key}".` });
    } else {
      const base = keyFromLabel(label || `field_${i + 1}`);
      key = base;
      for (let n = 2; used.has(key) || explicitKeys.has(key); n++) key = withSuffix(base, n);
    }
    used.add(key);

    const hasOptions = f.type === 'choice' || f.type === 'multi_choice';
    const options = hasOptions ? mergeOptions(f.options) : [];
    if (hasOptions && (options.length < 2 || options.length > 12)) {
      issues.push({
        path: ['fields', i, 'options'],
        message: `A ${f.type} field needs 2 to 12 distinct options (got ${options.length}).`,
      });
    }
    return {
      key,
      label,
      type: f.type,
      hint: f.hint?.trim() ? f.hint.trim() : null,
      options,
      required: f.required,
      display: displayOf(f.display),
    };
  });

  let success: Capture['success'] = null;
  if (request.success) {
    const target = fields.find((f) => f.key === request.success!.field);
    if (!target) {
      issues.push({ path: ['success', 'field'], message: `The success rule names "${request.success.field}", which is not a field of the capture.` });
    } else if (target.type === 'text' || target.type === 'number' || target.type === 'date') {
      issues.push({ path: ['success', 'field'], message: `A ${target.type} field cannot be a success rule.` });
    } else {
      const equals = successEquals(target, request.success.equals);
      if (equals === null) {
        const allowed = target.type === 'yes_no' ? '"yes" or "no"' : target.type === 'rating' ? '1 to 5' : 'one of the options';
        issues.push({ path: ['success', 'equals'], message: `The success rule for "${target.key}" must equal ${allowed}.` });
      } else {
        success = { field: target.key, equals };
      }
    }
  }

  if (issues.length > 0) return { capture: null, issues };
  const capture: Capture = { goal, fields, success };
  const length = renderCaptureForAgent(capture).length;
  if (length > MAX_CAPTURE_PROMPT_CHARS) {
    return {
      capture: null,
      issues: [
        {
          path: [],
          message: `The capture is too long to hand to the agent (${length} characters; at most ${MAX_CAPTURE_PROMPT_CHARS}). Shorten hints, options or labels; nothing is cut.`,
        },
      ],
    };
  }
  return { capture, issues: [] };
}
