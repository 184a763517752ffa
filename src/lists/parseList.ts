import { CsvError, parse } from 'csv-parse/sync';
import { LIST_LIMITS } from './limits';

/**
 * An uploaded list's file (docs/campaigns.md "Uploaded lists"): UTF-8 CSV with a header row,
 * read by csv-parse. Pure, so every rule is unit-tested. The header's names become the
 * columns, normalised into the names `{{variables}}` use; the phone column is `phone` unless
 * the upload names another. A file that breaks a rule is refused whole with the row and
 * column at fault: a list is either stored as the operator sees it or not at all. Whether
 * each row can be reached (its number, opt-outs, duplicates) is decided at evaluate, with
 * the contact audiences' rules (src/campaigns/audience.ts).
 */

export const LIST_REFUSALS = [
  'invalid_encoding',
  'invalid_csv',
  'empty_list',
  'invalid_column_name',
  'duplicate_column',
  'too_many_columns',
  'no_phone_column',
  'too_many_rows',
  'cell_too_long',
] as const;
export type ListRefusalReason = (typeof LIST_REFUSALS)[number];

export interface ListRefusal {
  reason: ListRefusalReason;
  message: string;
  /** The file's line where the row at fault starts (the header is line 1). */
  row?: number;
  /** The column at fault, as the header names it. */
  column?: string;
}

export interface ParsedRow {
  /** The file's line where the row starts: the header is line 1 (the spreadsheet's row number when no cell holds a line break). */
  line: number;
  /** One per column, trimmed; a short row is padded with empty cells. */
  cells: string[];
}

export interface ParsedList {
  /** The header as written. */
  headers: string[];
  /** The normalised names, in the header's order. */
  columns: string[];
  phoneColumn: string;
  rows: ParsedRow[];
}

export type ParseOutcome = { ok: true; list: ParsedList } | { ok: false; refusal: ListRefusal };

/** Names a column may not take: `{{all}}` is every detail of a person in a call's texts. */
const RESERVED = new Set(['all']);
/** Letters, digits, spaces, `_` and `-`: anything else would have to be dropped or guessed. */
const HEADER_CHARS = /^[A-Za-z0-9 _-]+$/;
const COLUMN_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * `First name` → `first_name`: lower case, each run of spaces, `_` and `-` one underscore,
 * none at the end. Null when the header has another character or does not start with a
 * letter (`__proto__` is refused, not read as `proto`: a name the operator did not write).
 */
export function normaliseColumnName(header: string): string | null {
  const trimmed = header.trim();
  if (!HEADER_CHARS.test(trimmed) || !/^[A-Za-z]/.test(trimmed)) return null;
  const name = trimmed
    .toLowerCase()
    .replace(/[\s_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return COLUMN_NAME.test(name) && name.length <= LIST_LIMITS.columnNameMaxChars ? name : null;
}

/** The bytes as UTF-8 text without its byte-order mark (Excel's "CSV UTF-8" writes one); null when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.startsWith('\uFEFF') ? text.slice(1) : text;
  } catch {
    return null;
  }
}

/** Comma, semicolon (spreadsheets in many locales) or tab: whichever the header line holds most of; comma on a tie. */
export function detectDelimiter(text: string): ',' | ';' | '\t' {
  const end = text.search(/\r?\n/);
  const header = end === -1 ? text : text.slice(0, end);
  const count = (c: string) => header.split(c).length - 1;
  const candidates = [',', ';', '\t'] as const;
  let best: ',' | ';' | '\t' = ',';
  for (const c of candidates) if (count(c) > count(best)) best = c;
  return best;
}

const refuse = (reason: ListRefusalReason, message: string, extra: { row?: number; column?: string } = {}): ParseOutcome => ({
  ok: false,
  refusal: { reason, message, ...extra },
});

function headerRefusal(headers: string[], phoneColumn: string): { columns: string[] } | ParseOutcome {
  if (headers.length > LIST_LIMITS.maxColumns) {
    return refuse('too_many_columns', `The header names ${headers.length} columns; a list has at most ${LIST_LIMITS.maxColumns}.`, { row: 1 });
  }
  const columns: string[] = [];
  for (const [i, header] of headers.entries()) {
    const name = normaliseColumnName(header);
    if (name === null || RESERVED.has(name)) {
      const why =
        name !== null
          ? `"${name}" is reserved ({{all}} is every detail of a person)`
          : `a column name starts with a letter and holds only letters A to Z, digits, spaces, "_" and "-", up to ${LIST_LIMITS.columnNameMaxChars} characters`;
      return refuse('invalid_column_name', `Column ${i + 1} ("${header}") cannot name a variable: ${why}.`, { row: 1, column: header });
    }
    const earlier = columns.indexOf(name);
    if (earlier !== -1) {
      return refuse('duplicate_column', `Columns ${earlier + 1} ("${headers[earlier]}") and ${i + 1} ("${header}") both read as {{${name}}}.`, { row: 1, column: header });
    }
    columns.push(name);
  }
  if (!columns.includes(phoneColumn)) {
    return refuse('no_phone_column', `No column is named "${phoneColumn}"; the columns are ${columns.join(', ')}. Name the phone column "phone", or say which column holds the numbers.`, {
      row: 1,
    });
  }
  return { columns };
}

/**
 * A NUL is no character of a CSV text: a file holding one is UTF-16 or not text at all, and
 * the byte would be stored and sent as it is. Answers the line it is on, or null.
 */
function lineOfNul(text: string): number | null {
  const at = text.indexOf('\0');
  return at === -1 ? null : text.slice(0, at).split('\n').length;
}

/** Line breaks inside a row's cells: the row started that many lines before csv-parse's line count. */
const breaksIn = (cells: readonly string[]) => cells.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0);

/**
 * The list in `text` (already decoded), or why it is refused. `phoneColumn` is a column name
 * (normalised like the header's); omitted, `phone`.
 */
export function parseList(text: string, options: { phoneColumn?: string | null } = {}): ParseOutcome {
  const phoneColumn = normaliseColumnName(options.phoneColumn ?? 'phone') ?? (options.phoneColumn ?? '').trim();
  const nulAt = lineOfNul(text);
  if (nulAt !== null) {
    return refuse('invalid_encoding', `Line ${nulAt} holds a NUL character: the file is not CSV text. Save it as CSV UTF-8.`, { row: nulAt });
  }
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      delimiter: detectDelimiter(text),
      trim: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      relax_column_count: true,
      info: true,
      max_record_size: LIST_LIMITS.maxColumns * (LIST_LIMITS.cellMaxChars + 3) + 1_000,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const line = (err as CsvError & { lines?: number }).lines;
    return refuse('invalid_csv', `The file is not readable CSV${line ? ` at line ${line}` : ''}: ${err.message}`, line ? { row: line } : {});
  }
  const [header, ...body] = records;
  if (!header) return refuse('empty_list', 'The file is empty: it needs a header row and a row per person.');
  const headers = header.record;
  const checked = headerRefusal(headers, phoneColumn);
  if ('ok' in checked) return checked;
  const { columns } = checked;
  if (body.length > LIST_LIMITS.maxRows) {
    return refuse('too_many_rows', `The file has ${body.length} rows; a list holds at most ${LIST_LIMITS.maxRows}. Split it into several lists.`);
  }
  const rows: ParsedRow[] = [];
  for (const { record, info } of body) {
    const line = info.lines - breaksIn(record);
    // csv-parse trims around quotes only: `"\tAsha"` keeps its tab, and every cell is trimmed.
    let cells = record.map((cell) => cell.trim());
    if (cells.every((c) => c === '')) continue;
    if (cells.length > columns.length) {
      // A spreadsheet's trailing empty cells are nothing; a value past the header has no column to go in.
      if (cells.slice(columns.length).some((c) => c !== '')) {
        return refuse('invalid_csv', `Row ${line} has ${cells.length} cells but the header names ${columns.length} columns.`, { row: line });
      }
      cells = cells.slice(0, columns.length);
    }
    for (const [i, cell] of cells.entries()) {
      if (cell.length > LIST_LIMITS.cellMaxChars) {
        return refuse('cell_too_long', `Row ${line}, column "${headers[i]}": ${cell.length} characters; a cell holds at most ${LIST_LIMITS.cellMaxChars}.`, { row: line, column: headers[i]! });
      }
    }
    while (cells.length < columns.length) cells = [...cells, ''];
    rows.push({ line, cells });
  }
  // No body, or only rows empty once trimmed.
  if (rows.length === 0) return refuse('empty_list', 'The file has a header but no rows.', { row: 1 });
  return { ok: true, list: { headers, columns, phoneColumn, rows } };
}
