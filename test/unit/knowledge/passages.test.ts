import { KNOWLEDGE_LIMITS as L } from '../../../src/knowledge/limits';
import { splitIntoPassages } from '../../../src/knowledge/passages';
import { faqSections, markdownSections, readDocument } from '../../../src/knowledge/readDocument';
import type { Db } from 'mongodb';
import { uploadKnowledgeDocument } from '../../../src/knowledge/knowledgeActions';
import { KnowledgeRefusal } from '../../../src/knowledge/refusal';
import { makePdf } from '../../support/pdf';

const refusalOf = async (run: () => unknown): Promise<{ reason: string; message: string; details: Record<string, unknown> }> => {
  try {
    await run();
  } catch (err) {
    if (err instanceof KnowledgeRefusal) return { reason: err.reason, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('expected a KnowledgeRefusal');
};

describe('markdown sections', () => {
  it('cuts at headings and titles each section by the headings above it', () => {
    const sections = markdownSections(['Intro line.', '# Returns', 'Within 30 days.', '## Refunds', 'Paid back in 5 days.', '# Shipping', '```', '# not a heading', '```'].join('\n'));
    expect(sections).toEqual([
      { title: null, text: 'Intro line.' },
      { title: 'Returns', text: 'Within 30 days.' },
      { title: 'Returns › Refunds', text: 'Paid back in 5 days.' },
      { title: 'Shipping', text: '```\n# not a heading\n```' },
    ]);
  });
});

describe('splitting into passages', () => {
  it('packs whole paragraphs up to the target, keeping title and page', () => {
    const para = (n: number) => `Paragraph ${n} ${'word '.repeat(60).trim()}.`; // about 313 characters
    const passages = splitIntoPassages([{ title: 'Policy', text: [1, 2, 3, 4, 5].map(para).join('\n\n'), page: 2 }]);
    expect(passages.map((p) => p.text.split('\n\n').map((t) => t.slice(0, 11)))).toEqual([
      ['Paragraph 1', 'Paragraph 2'],
      ['Paragraph 3', 'Paragraph 4'],
      ['Paragraph 5'],
    ]);
    expect(passages.map((p) => [p.n, p.title, p.page])).toEqual([
      [0, 'Policy', 2],
      [1, 'Policy', 2],
      [2, 'Policy', 2],
    ]);
  });

  it('cuts a paragraph longer than the maximum at sentence ends, and a sentence longer still at spaces', () => {
    const sentence = `${'lorem '.repeat(40).trim()}.`; // 240 characters
    const long = Array.from({ length: 10 }, () => sentence).join(' ');
    const endless = 'x'.repeat(10) + ' ' + 'y '.repeat(1500);
    const passages = splitIntoPassages([{ title: null, text: `${long}\n\n${endless}` }]);
    for (const p of passages) expect(p.text.length).toBeLessThanOrEqual(L.passageMaxChars);
    // The sentences' passages end at a full stop.
    expect(passages.filter((p) => p.text.includes('lorem')).every((p) => p.text.endsWith('.'))).toBe(true);
    // Nothing is lost: every word is in some passage.
    expect(passages.map((p) => p.text).join(' ').split(/\s+/).filter((w) => w === 'y').length).toBe(1500);
  });

  it('keeps an FAQ row whole as one passage titled by its question', () => {
    const passages = splitIntoPassages(faqSections('question,answer\nHow long do refunds take?,Five working days.\n"Do you ship abroad?","Yes, to 20 countries."\n'));
    expect(passages).toEqual([
      { n: 0, title: 'How long do refunds take?', text: 'Five working days.' },
      { n: 1, title: 'Do you ship abroad?', text: 'Yes, to 20 countries.' },
    ]);
  });

  it(`refuses a document of more than ${L.maxPassagesPerDocument} passages`, async () => {
    const rows = Array.from({ length: L.maxPassagesPerDocument + 1 }, (_, i) => `Question ${i}?,Answer ${i}.`);
    expect(await refusalOf(() => splitIntoPassages(faqSections(`question,answer\n${rows.join('\n')}`)))).toEqual({
      reason: 'too_many_passages',
      message: `The document is too long: it would make more than ${L.maxPassagesPerDocument} passages. Split it into several documents.`,
      details: { limit: L.maxPassagesPerDocument },
    });
    expect(splitIntoPassages(faqSections(`question,answer\n${rows.slice(1).join('\n')}`))).toHaveLength(L.maxPassagesPerDocument);
  });
});

describe('reading a document', () => {
  it('reads a real PDF page by page (pdf-parse over a PDF written byte by byte)', async () => {
    const pdf = makePdf([['Warranty terms', 'Every kettle has a two year warranty.'], ['Spare parts ship within a week.']]);
    expect(await readDocument('pdf', pdf)).toEqual([
      { title: null, text: 'Warranty terms\nEvery kettle has a two year warranty.', page: 1 },
      { title: null, text: 'Spare parts ship within a week.', page: 2 },
    ]);
  });

  it('refuses what it cannot read, saying why', async () => {
    expect(await refusalOf(() => readDocument('pdf', Buffer.from('%PDF-1.4 not really')))).toMatchObject({ reason: 'invalid_pdf' });
    expect(await refusalOf(() => readDocument('text', Buffer.from([0xff, 0xfe, 0x41])))).toEqual({ reason: 'invalid_encoding', message: 'The document is not UTF-8 text.', details: {} });
    expect(await refusalOf(() => readDocument('markdown', Buffer.from('  \n\n ')))).toEqual({ reason: 'empty_document', message: 'The document has no text.', details: {} });
    expect(await refusalOf(() => readDocument('pdf', makePdf([[]])))).toEqual({
      reason: 'empty_document',
      message: 'The PDF has no text to search (a scanned PDF needs its text recognised first).',
      details: {},
    });
    expect(await refusalOf(() => readDocument('faq_csv', Buffer.from('q,a\nx,y')))).toEqual({
      reason: 'invalid_faq_csv',
      message: 'An FAQ file needs a header row with the columns question and answer.',
      details: {},
    });
    expect(await refusalOf(() => readDocument('faq_csv', Buffer.from('Question,Answer\nFine?,Yes.\nNo answer here?,\n')))).toEqual({
      reason: 'invalid_faq_csv',
      message: 'Line 3 has no answer.',
      details: { row: 3 },
    });
  });
});

describe('an upload over the size limit', () => {
  it('is refused before the file is read or anything is written', async () => {
    // No database: the size is the first check, so nothing may reach it.
    const db = new Proxy({}, { get: () => { throw new Error('the database was used'); } }) as unknown as Db;
    const bytes = Buffer.alloc(L.maxDocumentBytes + 1, 0x61);
    expect(await refusalOf(() => uploadKnowledgeDocument(db, { tenantId: 'ws_1', name: 'Big', fileName: null, format: 'text', bytes, now: new Date() }))).toEqual({
      reason: 'document_too_large',
      message: `A document may have at most ${L.maxDocumentBytes} bytes.`,
      details: { limit: L.maxDocumentBytes },
    });
  });
});
