import { KNOWLEDGE_LIMITS as L } from './limits';
import { KnowledgeRefusal } from './refusal';
import type { Section } from './readDocument';

/**
 * Sections cut into passages, the unit the index finds and the model is shown. A passage is
 * whole paragraphs packed up to `passageTargetChars`; a paragraph longer than
 * `passageMaxChars` is cut at sentence ends, and a sentence longer still at spaces (then
 * anywhere), so no passage passes the maximum and none ends mid-word when it can help it.
 * Each keeps its section's title and page, which the answer cites.
 */

export interface Passage {
  /** From 0, in document order. */
  n: number;
  title: string | null;
  text: string;
  page?: number;
}

/** `text` cut into pieces of at most `max` characters, at the last space before the limit where there is one. */
function cutAtSpaces(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const at = space > max / 2 ? space : max;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** A paragraph as pieces no longer than the maximum: whole sentences where they fit. */
function paragraphPieces(paragraph: string): string[] {
  if (paragraph.length <= L.passageMaxChars) return [paragraph];
  const sentences = paragraph.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [paragraph];
  return packed(sentences.flatMap((s) => cutAtSpaces(s, L.passageMaxChars)), ' ');
}

/** Pieces joined in order while the result stays within the target (a piece alone may reach the maximum). */
function packed(pieces: string[], joiner: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of pieces) {
    const piece = raw.trim();
    if (!piece) continue;
    if (current && current.length + joiner.length + piece.length > L.passageTargetChars) {
      out.push(current);
      current = '';
    }
    current = current ? `${current}${joiner}${piece}` : piece;
  }
  if (current) out.push(current);
  return out;
}

export function splitIntoPassages(sections: readonly Section[]): Passage[] {
  const passages: Passage[] = [];
  for (const section of sections) {
    const texts = section.whole
      ? [section.text]
      : packed(
          section.text
            .split(/\n\s*\n/)
            .map((p) => p.replace(/[ \t]*\n[ \t]*/g, '\n').trim())
            .flatMap(paragraphPieces),
          '\n\n',
        );
    for (const text of texts) {
      passages.push({ n: passages.length, title: section.title, text, ...(section.page !== undefined ? { page: section.page } : {}) });
      if (passages.length > L.maxPassagesPerDocument) {
        throw new KnowledgeRefusal('too_many_passages', `The document is too long: it would make more than ${L.maxPassagesPerDocument} passages. Split it into several documents.`, {
          limit: L.maxPassagesPerDocument,
        });
      }
    }
  }
  return passages;
}
