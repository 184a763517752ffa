import { CsvError, parse } from 'csv-parse/sync';
import { KNOWLEDGE_LIMITS as L } from './limits';
import { readPdfText } from './pdfText';
import { KnowledgeRefusal } from './refusal';

/**
 * An uploaded file read into sections of plain text, each with what locates it for a reader (a
 * Markdown heading, a PDF page, an FAQ's question). The splitter (passages.ts) cuts the
 * sections into passages; nothing here knows about the index.
 */

export const KNOWLEDGE_FORMATS = ['text', 'markdown', 'pdf', 'faq_csv'] as const;
export type KnowledgeFormat = (typeof KNOWLEDGE_FORMATS)[number];

/** The media type each format is uploaded as (the route's body, the CLI and the web page send these). */
export const FORMAT_MEDIA_TYPES: Record<KnowledgeFormat, string> = {
  text: 'text/plain',
  markdown: 'text/markdown',
  pdf: 'application/pdf',
  faq_csv: 'text/csv',
};

export function formatOfMediaType(mediaType: string): KnowledgeFormat | null {
  const bare = mediaType.split(';')[0]!.trim().toLowerCase();
  return KNOWLEDGE_FORMATS.find((format) => FORMAT_MEDIA_TYPES[format] === bare) ?? null;
}

export interface Section {
  /** What a person would call where this text is: a heading path, an FAQ's question. */
  title: string | null;
  text: string;
  /** The PDF page it is on, from 1. */
  page?: number;
  /** An FAQ row is one passage whatever its length (its answer is bounded instead). */
  whole?: boolean;
}

function utf8(bytes: Uint8Array): string {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.startsWith('\uFEFF') ? text.slice(1) : text;
  } catch {
    throw new KnowledgeRefusal('invalid_encoding', 'The document is not UTF-8 text.');
  }
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

/** Markdown cut at its headings; each section titled by the headings above it (`Returns › Refunds`). */
export function markdownSections(text: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let lines: string[] = [];
  let fenced = false;
  const flush = () => {
    const body = lines.join('\n').trim();
    if (body) sections.push({ title: path.filter(Boolean).join(' › ') || null, text: body });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : HEADING.exec(line);
    if (!heading) {
      lines.push(line);
      continue;
    }
    flush();
    const level = heading[1]!.length;
    path.length = level - 1;
    path[level - 1] = heading[2]!;
  }
  flush();
  return sections;
}

/**
 * A CSV of FAQs: a header row naming `question` and `answer` (any case, other columns
 * ignored), then one question per row. Refused whole, with the line at fault, when a row
 * breaks a rule: the operator fixes the file rather than finding an FAQ missing later.
 */
export function faqSections(text: string): Section[] {
  let rows: string[][];
  try {
    rows = parse(text, { relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch (err) {
    const line = err instanceof CsvError ? (err as CsvError & { lines?: number }).lines : undefined;
    throw new KnowledgeRefusal('invalid_faq_csv', `The FAQ file is not valid CSV${line ? ` (line ${line})` : ''}.`, line ? { row: line } : {});
  }
  const header = (rows[0] ?? []).map((cell) => cell.toLowerCase());
  const q = header.indexOf('question');
  const a = header.indexOf('answer');
  if (q < 0 || a < 0) throw new KnowledgeRefusal('invalid_faq_csv', 'An FAQ file needs a header row with the columns question and answer.');
  const sections: Section[] = [];
  rows.slice(1).forEach((row, i) => {
    const line = i + 2;
    const question = row[q] ?? '';
    const answer = row[a] ?? '';
    if (!question && !answer) return;
    if (!question || !answer) throw new KnowledgeRefusal('invalid_faq_csv', `Line ${line} has ${question ? 'no answer' : 'no question'}.`, { row: line });
    if (question.length > L.faqQuestionMaxChars || answer.length > L.faqAnswerMaxChars) {
      throw new KnowledgeRefusal('invalid_faq_csv', `Line ${line} is too long: a question may have ${L.faqQuestionMaxChars} characters and an answer ${L.faqAnswerMaxChars}.`, { row: line });
    }
    sections.push({ title: question, text: answer, whole: true });
  });
  return sections;
}

/** The text of each page (pdfText.ts); an image-only page gives none. */
export async function pdfSections(bytes: Uint8Array): Promise<Section[]> {
  const read = await readPdfText(bytes);
  if (!read.ok) throw new KnowledgeRefusal('invalid_pdf', `The PDF could not be read: ${read.error}`);
  return read.pages.map((page) => ({ title: null, text: page.text.trim(), page: page.num })).filter((section) => section.text.length > 0);
}

/** The file's sections by its format; a KnowledgeRefusal when it cannot be read or holds no text. */
export async function readDocument(format: KnowledgeFormat, bytes: Uint8Array): Promise<Section[]> {
  const sections =
    format === 'pdf'
      ? await pdfSections(bytes)
      : format === 'faq_csv'
        ? faqSections(utf8(bytes))
        : format === 'markdown'
          ? markdownSections(utf8(bytes))
          : [{ title: null, text: utf8(bytes).trim() }].filter((section) => section.text.length > 0);
  if (sections.length === 0) {
    throw new KnowledgeRefusal('empty_document', format === 'pdf' ? 'The PDF has no text to search (a scanned PDF needs its text recognised first).' : 'The document has no text.');
  }
  return sections;
}
