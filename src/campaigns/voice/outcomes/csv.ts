import { stringify } from 'csv-stringify/sync';
import type { FieldValue, Capture } from '../../../calls';
import type { OutcomeRow } from './report';

/**
 * GET …/outcomes.csv (campaigns-tickets-dues §4): one row per person in audience order, one
 * column per capture field key, then (beyond the contract) each field's evidence: the quote
 * and the transcript turn it starts at. Written by csv-stringify (quoting, CRLF-safe), UTF-8
 * with a BOM so spreadsheets read accents, and every text cell that a spreadsheet would run
 * as a formula (`=`, `+`, `-`, `@`, tab, carriage return first) is prefixed with `'`; plain
 * numbers such as `+15551234567` or `-3` are left as they are.
 */

export const FIXED_COLUMNS = [
  'position',
  'contact_id',
  'name',
  'to',
  'state',
  'disposition',
  'goal_met',
  'success',
  'sentiment',
  'next_step',
  'summary',
  'calls',
  'call_ids',
] as const;

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** A cell a spreadsheet shows as text, never runs. */
export function guardCell(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
}

function cell(value: FieldValue | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return guardCell(value.join('; '));
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return guardCell(String(value));
}

export function csvColumns(capture: Capture | null): string[] {
  const keys = (capture?.fields ?? []).map((f) => f.key);
  return [...FIXED_COLUMNS, ...keys, ...keys.flatMap((k) => [`evidence:${k}`, `evidence_turn:${k}`])];
}

export function csvRow(doc: OutcomeRow, capture: Capture | null): string[] {
  const o = doc.outcome ?? null;
  const calls = doc.calls ?? [];
  const keys = (capture?.fields ?? []).map((f) => f.key);
  return [
    String(doc.position),
    cell(doc.contact_id),
    cell(doc.name),
    cell(doc.to),
    cell(doc.state),
    cell(o?.disposition),
    cell(o?.goal_met),
    cell(o?.success),
    cell(o?.sentiment),
    cell(o?.next_step),
    cell(o?.summary),
    String(calls.length),
    cell(calls.map((c) => c.call_id).join(' ')),
    ...keys.map((k) => cell(o?.fields[k])),
    ...keys.flatMap((k) => {
      const e = o?.evidence[k];
      return e ? [cell(e.quote), String(e.turn)] : ['', ''];
    }),
  ];
}

/** The file's start as the writer gives it: the BOM and the header record. */
export function csvHead(capture: Capture | null): string {
  return stringify([], { bom: true, header: true, columns: csvColumns(capture), record_delimiter: 'windows' });
}

/**
 * Rows as the writer would write them after the header (each record ends with CRLF), so a
 * file is `csvHead` followed by the rows' texts in position order, byte for byte what
 * csv-stringify's streaming writer gives with the same options. The run keeps each outcome chunk's rows written this way
 * (chunks.ts), so the CSV route sends text instead of decoding every person's fields.
 */
export function csvRowsText(rows: readonly OutcomeRow[], capture: Capture | null): string {
  return stringify(rows.map((row) => csvRow(row, capture)), { record_delimiter: 'windows' });
}
