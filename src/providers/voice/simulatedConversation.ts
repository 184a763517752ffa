import type { DetailLine } from '../../calls/details';
import type { Capture, CaptureField, TranscriptTurn } from '../../calls/types';
import type { CalleeScript } from './simulatorScript';

/**
 * The conversation a simulated callee has with the agent: the fixed outbound opening, the
 * identity check when details were sent, one question per capture field (asked with its
 * label, as a real agent would) and the person's answers, then a goodbye. Turns are
 * `seconds_per_turn` apart (1.5 s by default); the transcript a reader gets is what was said before the line ended.
 */

export interface ConversationInput {
  opening: string;
  purpose: string | null;
  detailLines: DetailLine[];
  capture: Capture | null;
  script: CalleeScript;
}

/** A sensible answer for each type, so an unscripted call fills every field. */
export function defaultAnswer(field: CaptureField): string {
  switch (field.type) {
    case 'yes_no':
      return 'Yes.';
    case 'choice':
      return `${field.options[0]}.`;
    case 'multi_choice':
      return field.options.length > 1 ? `${field.options[0]} and ${field.options[1]}.` : `${field.options[0]}.`;
    case 'number':
      return 'About 2.';
    case 'rating':
      return "I'd give it a 4 out of 5.";
    case 'date':
      return 'Tomorrow works.';
    case 'text':
      return 'That all sounds fine to me, thank you.';
  }
}

/** Ends a line with `mark` unless it already ends a sentence: labels are often written as questions ("Will someone be home?"). */
function sentence(text: string, mark: '?' | '.'): string {
  const trimmed = text.trim();
  return /[?.!]$/.test(trimmed) ? trimmed : `${trimmed}${mark}`;
}

function question(field: CaptureField): string {
  const options = field.options.length > 0 ? ` The options are ${field.options.join(', ')}.` : '';
  return `${sentence(field.label, '?')}${options}`;
}

export function simulatedTurns(input: ConversationInput): TranscriptTurn[] {
  const { script } = input;
  const lines: Omit<TranscriptTurn, 'at_seconds'>[] = [];
  if (script.silent) {
    // Connected, but the person never says a word.
    lines.push({ role: 'model', text: input.opening }, { role: 'model', text: 'Hello, can you hear me?' });
  } else if (script.turns) {
    lines.push(...script.turns);
  } else {
    lines.push({ role: 'model', text: input.opening }, { role: 'user', text: 'Yes, now is fine.' });
    if (input.detailLines.length > 0) {
      const name = input.detailLines.find((l) => /name/i.test(l.label))?.value;
      lines.push(
        { role: 'model', text: name ? `Am I speaking with ${name}?` : 'Can I confirm a few details with you first?' },
        { role: 'user', text: "Yes, that's me." },
      );
    }
    if (input.purpose) {
      lines.push({ role: 'model', text: sentence(`I'm calling about ${input.purpose}`, '.') }, { role: 'user', text: 'Okay, go ahead.' });
    }
    for (const field of input.capture?.fields ?? []) {
      lines.push({ role: 'model', text: question(field) }, { role: 'user', text: script.answers[field.key] ?? defaultAnswer(field) });
    }
    lines.push({ role: 'model', text: 'Thank you for your time. Goodbye!' }, { role: 'user', text: 'Thanks, bye.' });
  }
  const pace = script.seconds_per_turn;
  return lines.map((line, i) => ({ ...line, at_seconds: Math.round((i + 0.5) * pace * 100) / 100 }));
}

/** Connected seconds the whole conversation takes. */
export function conversationSeconds(turns: TranscriptTurn[], secondsPerTurn: number): number {
  return turns.length === 0 ? 4 : Math.ceil(turns[turns.length - 1]!.at_seconds + secondsPerTurn);
}
