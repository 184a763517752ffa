import { askingTurns, normalise, replyAfter } from './transcriptAnswers';
import type { FieldValue } from './result';
import type { Capture, TranscriptTurn } from './types';

/**
 * Where each captured answer came from (issue 15, beyond the contract): the person's words
 * and the transcript turn they start at. Found the way a person checking the answer would:
 * the reply to the agent's question about the field, else the first thing the person said
 * that holds the answer's text. Independent of the reader, so every reading gets it; an
 * answer with neither has no evidence (never a guess).
 */

export interface FieldEvidence {
  /** What the person said, up to `EVIDENCE_QUOTE_MAX_CHARS`. */
  quote: string;
  /** Index of the transcript turn the quote starts at (from 0). */
  turn: number;
}

export const EVIDENCE_QUOTE_MAX_CHARS = 300;

function cut(text: string): string {
  const points = Array.from(text.trim());
  return points.length <= EVIDENCE_QUOTE_MAX_CHARS ? text.trim() : `${points.slice(0, EVIDENCE_QUOTE_MAX_CHARS - 1).join('')}…`;
}

function answerWords(value: FieldValue): string[] {
  if (Array.isArray(value)) return value.map((v) => normalise(v));
  if (typeof value === 'string') return [normalise(value)];
  return [];
}

export function fieldEvidence(capture: Capture | null, transcript: readonly TranscriptTurn[], fields: Record<string, FieldValue>): Record<string, FieldEvidence> {
  const turns = [...transcript];
  const asked = askingTurns(capture, turns);
  const out: Record<string, FieldEvidence> = {};
  for (const field of capture?.fields ?? []) {
    const value = fields[field.key];
    if (value === undefined) continue;
    const questions = asked.get(field.key) ?? [];
    const replied = questions.map((q) => ({ turn: q.index + 1, reply: replyAfter(turns, q.index) })).find((r) => r.reply !== null);
    if (replied) {
      out[field.key] = { quote: cut(replied.reply!), turn: replied.turn };
      continue;
    }
    const words = answerWords(value);
    const turn = words.length === 0 ? -1 : turns.findIndex((t) => t.role === 'user' && words.some((w) => w !== '' && normalise(t.text).includes(w)));
    if (turn >= 0) out[field.key] = { quote: cut(turns[turn]!.text), turn };
  }
  return out;
}
