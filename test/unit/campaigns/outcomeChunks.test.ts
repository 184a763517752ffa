import type { CallResult, Capture, Disposition } from '../../../src/calls/types';
import { pendingResult } from '../../../src/calls/types';
import { mergeCalls, type FinishedCall, type MergedOutcome } from '../../../src/campaigns/voice/mergedOutcome';
import { OUTCOME_CHUNK, chunkTally, mergeParts, outcomeChunkOf, partOf, tallyRows } from '../../../src/campaigns/voice/outcomes/chunks';
import { OutcomeReportBuilder, TEXT_SAMPLES, type OutcomeRow, type OutcomeTally } from '../../../src/campaigns/voice/outcomes/report';
import { csvColumns, csvHead, csvRowsText, csvRow } from '../../../src/campaigns/voice/outcomes/csv';
import { stringify } from 'csv-stringify';
import { VOICE_TEST_CAPTURE } from '../../support/campaigns';

const capture: Capture = {
  goal: null,
  fields: [
    { key: 'ok', label: 'Is it fine', type: 'yes_no', hint: null, options: [], required: true, display: 'auto' },
    { key: 'slot', label: 'Slot', type: 'choice', hint: null, options: ['Morning', 'Evening'], required: false, display: 'auto' },
    { key: 'count', label: 'How many', type: 'number', hint: null, options: [], required: false, display: 'auto' },
    { key: 'stars', label: 'Stars', type: 'rating', hint: null, options: [], required: false, display: 'auto' },
    { key: 'day', label: 'Day', type: 'date', hint: null, options: [], required: false, display: 'auto' },
    { key: 'notes', label: 'Notes', type: 'text', hint: null, options: [], required: false, display: 'auto' },
  ],
  success: { field: 'ok', equals: 'yes' },
};

const outcome = (position: number, fields: MergedOutcome['fields'], disposition: MergedOutcome['disposition']): MergedOutcome => ({
  disposition,
  goal_met: 'unclear',
  success: fields.ok === true,
  summary: null,
  sentiment: null,
  next_step: 'none',
  next_step_reason: null,
  fields,
  evidence: {},
  captured: Object.keys(fields).length,
  expected: capture.fields.length,
  missing_required: fields.ok === undefined ? ['ok'] : [],
  call_id: `call_${position}`,
});

/** A varied person: every kind of answer, some unanswered, some failed or skipped, some still queued. */
function row(position: number): OutcomeRow {
  const base = { position, contact_id: `cnt_${position}`, name: `P ${position}`, to: '+919800000000' };
  if (position % 11 === 5) return { ...base, state: 'queued', calls: [], outcome: null };
  if (position % 13 === 7) return { ...base, state: 'skipped', calls: [], outcome: null };
  const placed = new Date(Date.UTC(2026, 0, 1, 10 + (position % 3), position % 60));
  const answered = position % 4 !== 0;
  const disposition: Disposition = !answered ? 'unanswered' : position % 3 === 0 ? 'partial' : 'completed';
  const calls = [{ call_id: `call_${position}`, kind: 'first' as const, placed_at: placed, answered, ended_at: null, disposition, result_state: 'ready' as const }];
  if (!answered) return { ...base, state: 'called', calls, outcome: outcome(position, {}, 'unanswered') };
  const fields: MergedOutcome['fields'] = { ok: position % 2 === 0, slot: position % 5 === 0 ? 'Evening' : 'Morning', count: (position * 7) % 23, stars: (position % 5) + 1, day: `2026-01-0${(position % 3) + 1}` };
  if (position % 6 === 1) fields.notes = `note ${position}`;
  return { ...base, state: 'called', calls, outcome: outcome(position, fields, disposition) };
}

const AT = new Date(Date.UTC(2026, 0, 2));
const campaign = { _id: 'cmp_x', status: 'completed' };

/** The report as the chunks give it: each chunk's tally, in position order, then the positions no chunk holds. */
function fromTallies(tallies: OutcomeTally[], recipients: number) {
  const report = new OutcomeReportBuilder(capture);
  for (const tally of tallies) report.absorb(tally);
  report.addUntouched(recipients - report.recipients);
  return report.build(campaign, AT);
}

function personByPerson(rows: OutcomeRow[]) {
  const report = new OutcomeReportBuilder(capture);
  for (const r of rows) report.add(r);
  return report.build(campaign, AT);
}

function chunked(rows: OutcomeRow[]): OutcomeTally[] {
  const byChunk = new Map<number, OutcomeRow[]>();
  for (const r of rows) byChunk.set(outcomeChunkOf(r.position), [...(byChunk.get(outcomeChunkOf(r.position)) ?? []), r]);
  return [...byChunk.keys()].sort((a, b) => a - b).map((k) => tallyRows(byChunk.get(k)!, capture));
}

describe('outcome chunks and their tallies', () => {
  const rows = Array.from({ length: 2 * OUTCOME_CHUNK + 37 }, (_, p) => row(p));

  it('adding up the chunks’ tallies gives the report read person by person, exactly', () => {
    const expected = personByPerson(rows);
    expect(fromTallies(chunked(rows), rows.length)).toEqual(expected);
    // The text samples are the first ones by position even though they come from several chunks' tallies.
    const notes = expected.fields.find((f) => f.key === 'notes')!;
    expect(notes.summary).toEqual({ kind: 'samples', samples: rows.filter((r) => r.outcome?.fields.notes).slice(0, TEXT_SAMPLES).map((r) => ({ position: r.position, value: r.outcome!.fields.notes })) });
  });

  it('counts people no chunk holds as staged and outstanding (never counted: queued, never called)', () => {
    const counted = rows.slice(0, OUTCOME_CHUNK);
    const untouched = Array.from({ length: OUTCOME_CHUNK + 37 }, (_, i) => ({ position: OUTCOME_CHUNK + i, contact_id: 'c', name: null, to: '+91', state: 'queued' as const, calls: [], outcome: null }));
    expect(fromTallies(chunked(counted), rows.length)).toEqual(personByPerson([...counted, ...untouched]));
  });

  it('a chunk’s tally from its parts (count chunks of 100) is the tally of its rows', () => {
    const chunk = rows.slice(0, OUTCOME_CHUNK);
    const parts = [0, 1, 2, 3, 4].map((p) => partOf(p, chunk.slice(p * 100, (p + 1) * 100), capture));
    expect(chunkTally(parts, capture)).toEqual(tallyRows(chunk, capture));
    expect(parts.map((p) => p.rows)).toEqual([100, 100, 100, 100, 100]);
  });

  it('is idempotent: folding the same people again (a retried step) counts each once', () => {
    const chunk = rows.slice(0, OUTCOME_CHUNK);
    const parts = [0, 1, 2, 3, 4].map((p) => partOf(p, chunk.slice(p * 100, (p + 1) * 100), capture));
    const again = mergeParts(mergeParts(parts, [partOf(2, chunk.slice(200, 300), capture)]), [partOf(2, chunk.slice(200, 300), capture)]);
    expect(again).toEqual(parts);
    expect(chunkTally(again, capture)).toEqual(tallyRows(chunk, capture));
  });

  it('a person folded again with a new outcome replaces their part: the tally moves, nothing is counted twice', () => {
    const chunk = rows.slice(0, 200);
    const changed: OutcomeRow = { ...chunk[103]!, outcome: outcome(103, { ok: true, slot: 'Evening' }, 'completed') };
    const after = [...chunk.slice(0, 103), changed, ...chunk.slice(104)];
    const parts = mergeParts([partOf(0, chunk.slice(0, 100), capture), partOf(1, chunk.slice(100), capture)], [partOf(1, after.slice(100), capture)]);
    const tally = chunkTally(parts, capture);
    expect(tally.totals.recipients).toBe(200);
    expect(tally).toEqual(tallyRows(after, capture));
    expect(fromTallies([tally], 200)).toEqual(personByPerson(after));
  });

  it('stores no answer as a field name (answers may hold dots or start with $)', () => {
    const odd: OutcomeRow = { ...rows[1]!, outcome: outcome(1, { ok: true, slot: '$Mr. Smith', day: '2026.01.01' }, 'completed') };
    const tally = tallyRows([odd], capture);
    const names = (value: unknown): string[] =>
      value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value).flatMap(([k, v]) => [k, ...names(v)]) : Array.isArray(value) ? value.flatMap(names) : [];
    expect(names(tally).filter((k) => k.includes('.') || k.startsWith('$'))).toEqual([]);
    expect(fromTallies([tally], 1)).toEqual(personByPerson([odd]));
  });
});

describe('the CSV text kept per chunk', () => {
  it('is, after the head, byte for byte what csv-stringify’s streaming writer gives for the same rows', async () => {
    const odd = (position: number, name: string, notes: string): OutcomeRow => ({ ...row(1), position, name, outcome: outcome(position, { ok: true, notes }, 'completed') });
    const rows = [odd(0, '=SUM(A1:A9)', '@cmd'), odd(1, 'Zoë "Z", Jr.', 'line one\r\nline two'), row(2), row(4), odd(5, '+919812345678', '-3')];
    const writer = stringify({ bom: true, header: true, columns: csvColumns(capture), record_delimiter: 'windows' });
    const chunks: string[] = [];
    writer.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    const ended = new Promise((resolve) => writer.on('end', resolve));
    for (const r of rows) writer.write(csvRow(r, capture));
    writer.end();
    await ended;
    expect(csvHead(capture) + csvRowsText(rows.slice(0, 2), capture) + csvRowsText(rows.slice(2), capture)).toBe(chunks.join(''));
    expect(csvRowsText([], capture)).toBe('');
  });
});

describe('a re-read recomputes the merged outcome from the calls as they now read (the merge rules hold)', () => {
  const ready = (over: Partial<CallResult>): CallResult => ({ ...pendingResult(), state: 'ready', goal_met: 'unclear', sentiment: 'neutral', next_step: 'none', expected: 3, read_at: '2026-01-01T10:00:00Z', ...over });
  const call = (id: string, over: Partial<CallResult>): FinishedCall => ({ call_id: id, result: ready(over), evidence: {} });
  const dropped = call('call_1', { disposition: 'hung_up_early', fields: { address_ok: true }, summary: 'Dropped.' });
  const completing = call('call_2', { disposition: 'completed', fields: { slot: 'Evening' }, summary: 'Finished.' });

  it('a dropped first call re-read with other answers: the completing call-back keeps the record completed, its answers lead', () => {
    const reread = call('call_1', { disposition: 'partial', fields: { address_ok: false, slot: 'Morning' }, summary: 'Re-read.' });
    const merged = mergeCalls([reread, completing], VOICE_TEST_CAPTURE)!;
    expect(merged).toMatchObject({ disposition: 'completed', fields: { address_ok: false, slot: 'Evening' }, missing_required: [], call_id: 'call_2', summary: 'Finished.' });
  });

  it('a call-back re-read as unanswered never replaces what the first call taught', () => {
    const silent = call('call_2', { disposition: 'no_conversation', fields: {} });
    expect(mergeCalls([dropped, silent], VOICE_TEST_CAPTURE)).toEqual(mergeCalls([dropped], VOICE_TEST_CAPTURE));
  });

  it('a record completed by one call stays completed whatever a re-read of a later call says', () => {
    const done = call('call_1', { disposition: 'completed', fields: { address_ok: true, slot: 'Morning' } });
    const laterReread = call('call_2', { disposition: 'partial', fields: { slot: 'Evening' } });
    expect(mergeCalls([done, laterReread], VOICE_TEST_CAPTURE)).toEqual(mergeCalls([done], VOICE_TEST_CAPTURE));
    expect(mergeCalls([done, laterReread], VOICE_TEST_CAPTURE)!.disposition).toBe('completed');
  });

  it('a dropped call re-read as complete completes the record; its chunk tally follows', () => {
    const rereadComplete = call('call_1', { disposition: 'completed', fields: { address_ok: true, slot: 'Morning', notes: 'Ring' } });
    const before = mergeCalls([dropped], VOICE_TEST_CAPTURE)!;
    const after = mergeCalls([rereadComplete], VOICE_TEST_CAPTURE)!;
    expect(before.disposition).toBe('hung_up_early');
    expect(after.disposition).toBe('completed');
    const person = (o: MergedOutcome): OutcomeRow => ({ position: 0, contact_id: 'c', name: null, to: '+91', state: 'called', calls: [{ call_id: 'call_1', kind: 'first', placed_at: new Date(0), answered: true, ended_at: null, disposition: o.disposition, result_state: 'ready' }], outcome: o });
    const tally = chunkTally(mergeParts([partOf(0, [person(before)], VOICE_TEST_CAPTURE)], [partOf(0, [person(after)], VOICE_TEST_CAPTURE)]), VOICE_TEST_CAPTURE);
    expect(tally.dispositions).toMatchObject({ completed: 1, hung_up_early: 0 });
    expect(tally.totals).toMatchObject({ recipients: 1, completed: 1 });
  });
});
