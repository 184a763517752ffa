import { coerceAnswer } from './result';
import type { Capture, CaptureField, TranscriptTurn } from './types';
import { escapeRegExp } from '../domain/regExp';

/**
 * How the simulated reader finds answers in a transcript's text: the agent asks each field
 * by its label, and what the person says next (until someone else speaks) is the answer,
 * parsed by the field's type. Plain text only; nothing structured rides along.
 */

/** Lowercase, straight apostrophes, single spaces: the form every matcher below reads. */
export function normalise(text: string): string {
  return text.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'").replace(/\s+/g, ' ').trim();
}


/** A phrase standing as whole words: "no" is not found in "know" or "nose". */
function wordPattern(phrase: string): string {
  return `(?<![\\p{L}\\p{N}'])${escapeRegExp(phrase)}(?![\\p{L}\\p{N}'])`;
}

/**
 * The alternation of a phrase list, longest first, compiled once per list: the word lists
 * and each capture's labels are asked about for every reply of every call read.
 */
const compiled = new Map<string, RegExp>();
function phrasePattern(phrases: string[]): RegExp {
  const key = phrases.join('\u0000');
  let pattern = compiled.get(key);
  if (!pattern) {
    const ordered = [...phrases].sort((a, b) => b.length - a.length);
    pattern = new RegExp(ordered.map(wordPattern).join('|'), 'u');
    if (compiled.size >= 1_000) compiled.clear();
    compiled.set(key, pattern);
  }
  return pattern;
}

/** The first of several phrases to appear in the text, by position; longer phrases win a tie. */
function firstPhrase(text: string, phrases: string[]): { phrase: string; index: number } | null {
  const m = phrasePattern(phrases).exec(text);
  return m ? { phrase: m[0], index: m.index } : null;
}

export function mentions(text: string, phrases: string[]): boolean {
  return firstPhrase(normalise(text), phrases) !== null;
}

/** A label as an agent would say it: the trailing question mark or colon is optional. */
function spokenLabel(label: string): string {
  return normalise(label).replace(/[\s?:.!]+$/, '');
}

export interface AskingTurn {
  index: number;
  /** A question mark follows the label in that turn: a real question, not a passing mention. */
  question: boolean;
}

/** For each field, the agent turns that mention its label, in transcript order. */
export function askingTurns(capture: Capture | null, transcript: TranscriptTurn[]): Map<string, AskingTurn[]> {
  const fields = capture?.fields ?? [];
  const asked = new Map<string, AskingTurn[]>(fields.map((f) => [f.key, []]));
  // Fields sharing one spoken label are asked in capture order: each mention goes to the
  // first of them not yet asked (else it is a re-ask of the last one asked).
  const groups = new Map<string, CaptureField[]>();
  for (const field of fields) {
    const label = spokenLabel(field.label);
    if (label) groups.set(label, [...(groups.get(label) ?? []), field]);
  }
  // Longest labels first, and each mention is blanked out once claimed, so "Name" is not
  // found inside "Company name".
  const labels = [...groups.keys()].sort((a, b) => b.length - a.length);
  transcript.forEach((turn, index) => {
    if (turn.role !== 'model') return;
    const said = normalise(turn.text);
    let text = said;
    for (const label of labels) {
      const m = new RegExp(wordPattern(label), 'u').exec(text);
      if (!m) continue;
      text = text.replace(new RegExp(wordPattern(label), 'gu'), (found) => ' '.repeat(found.length));
      const group = groups.get(label)!;
      const target = group.find((f) => asked.get(f.key)!.length === 0) ?? [...group].reverse().find((f) => asked.get(f.key)!.length > 0)!;
      asked.get(target.key)!.push({ index, question: said.includes('?', m.index) });
    }
  });
  return asked;
}

/** What the person said right after turn `index`, until the agent or a team member speaks. */
export function replyAfter(transcript: TranscriptTurn[], index: number): string | null {
  const parts: string[] = [];
  for (let i = index + 1; i < transcript.length && transcript[i]!.role === 'user'; i++) parts.push(transcript[i]!.text.trim());
  const reply = parts.filter(Boolean).join(' ');
  return reply === '' ? null : reply;
}

const YES = ['yes', 'yeah', 'yep', 'yup', 'yes please', 'sure', 'of course', 'correct', 'right', 'absolutely', 'definitely', 'certainly', 'ok', 'okay', 'i do', 'i will', 'i would', 'i am', "i'm in", 'i have', 'i can', 'affirmative'];
const NO = ['no', 'nope', 'nah', 'not really', 'never', "don't", 'do not', "i don't", "i won't", 'i will not', "i'm not", 'i am not', "i haven't", "i can't", 'cannot', 'negative', 'not at all'];
const UNSURE = ['not sure', "i'm not sure", "don't know", 'do not know', "i don't know", 'no idea', 'maybe', 'perhaps', 'unsure', 'not certain', "can't say"];

function yesNo(text: string): boolean | undefined {
  const all = [...YES, ...NO, ...UNSURE];
  const first = firstPhrase(text, all);
  if (!first) return undefined;
  if (UNSURE.includes(first.phrase)) return undefined;
  return YES.includes(first.phrase);
}

const NUMBER_WORDS: Record<string, number> = {
  none: 0,
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
};

/** The first number said, in digits ("1,200", "-3", "2.5") or as a word ("four"). */
function firstNumber(text: string): number | undefined {
  const words = Object.keys(NUMBER_WORDS).map(wordPattern).join('|');
  const m = new RegExp(`(?<![\\p{L}\\p{N}.])[-+]?\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|(?<![\\p{L}\\p{N}.])[-+]?\\d+(?:\\.\\d+)?|${words}`, 'u').exec(text);
  if (!m) return undefined;
  const word = NUMBER_WORDS[m[0]];
  return word !== undefined ? word : Number(m[0].replace(/,/g, ''));
}

/** Options said in the reply, each with where it was said; longer options claim text first. */
function optionsSaid(text: string, options: string[]): { option: string; index: number }[] {
  let rest = text;
  const found: { option: string; index: number }[] = [];
  for (const option of [...options].sort((a, b) => b.length - a.length)) {
    const m = new RegExp(wordPattern(normalise(option)), 'u').exec(rest);
    if (!m) continue;
    found.push({ option, index: m.index });
    rest = rest.replace(new RegExp(wordPattern(normalise(option)), 'gu'), (s) => ' '.repeat(s.length));
  }
  return found.sort((a, b) => a.index - b.index);
}

const ALL_OPTIONS = ['all of them', 'all of those', 'all of the above', 'every one', 'everything', 'both'];

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * A date said as `YYYY-MM-DD`, or relative to the day the call was answered (UTC): today,
 * tonight, tomorrow, the day after tomorrow, yesterday, or a weekday name (its next
 * occurrence after that day).
 */
function dateSaid(text: string, answeredAt: string): string | undefined {
  const iso = /(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)/.exec(text);
  if (iso) return iso[0];
  const answered = new Date(answeredAt);
  if (Number.isNaN(answered.getTime())) return undefined;
  const day = new Date(Date.UTC(answered.getUTCFullYear(), answered.getUTCMonth(), answered.getUTCDate()));
  const offsets: Record<string, number> = { 'day after tomorrow': 2, tomorrow: 1, today: 0, tonight: 0, yesterday: -1 };
  const first = firstPhrase(text, [...Object.keys(offsets), ...WEEKDAYS]);
  if (!first) return undefined;
  let offset = offsets[first.phrase];
  if (offset === undefined) {
    const ahead = (WEEKDAYS.indexOf(first.phrase) - day.getUTCDay() + 7) % 7;
    offset = ahead === 0 ? 7 : ahead;
  }
  day.setUTCDate(day.getUTCDate() + offset);
  return isoDay(day);
}

/** A raw answer read from the person's reply by the field's type, or undefined when none is there. */
export function parseReply(field: CaptureField, reply: string, answeredAt: string): unknown {
  const text = normalise(reply);
  switch (field.type) {
    case 'text':
      return reply.trim();
    case 'yes_no':
      return yesNo(text);
    case 'choice':
      return optionsSaid(text, field.options)[0]?.option;
    case 'multi_choice': {
      if (firstPhrase(text, ALL_OPTIONS)) return [...field.options];
      const said = new Set(optionsSaid(text, field.options).map((s) => s.option));
      return said.size > 0 ? field.options.filter((o) => said.has(o)) : undefined;
    }
    case 'number':
    case 'rating':
      return firstNumber(text);
    case 'date':
      return dateSaid(text, answeredAt);
  }
}

export interface FieldReading {
  /** Raw answers by key, only for fields an answer was found for. */
  answers: Record<string, unknown>;
  /** Keys asked by the agent with the person still speaking afterwards. */
  covered: Set<string>;
}

/**
 * Each field's answer: the first reply to a turn asking it that parses as the field's type
 * (an agent re-asking after "sorry?" gets a second chance). Turns that put the label as a
 * question come before passing mentions ("I'm calling about your visit"), so a greeting's
 * "hello" is not taken for a text answer.
 */
export function readAnswers(capture: Capture | null, transcript: TranscriptTurn[], answeredAt: string): FieldReading {
  const asked = askingTurns(capture, transcript);
  const lastUserTurn = transcript.map((t) => t.role).lastIndexOf('user');
  const answers: Record<string, unknown> = {};
  const covered = new Set<string>();
  for (const field of capture?.fields ?? []) {
    const turns = asked.get(field.key) ?? [];
    if (turns.length > 0 && turns[0]!.index < lastUserTurn) covered.add(field.key);
    const ranked = [...turns.filter((t) => t.question), ...turns.filter((t) => !t.question)];
    for (const { index } of ranked) {
      const reply = replyAfter(transcript, index);
      if (reply === null) continue;
      const raw = parseReply(field, reply, answeredAt);
      if (raw !== undefined && coerceAnswer(field, raw) !== undefined) {
        answers[field.key] = raw;
        break;
      }
    }
  }
  return { answers, covered };
}
