/**
 * A strict RFC 4180 reader for tests (no CSV parser is installed): quoted fields, doubled
 * quotes, CRLF or LF records. Throws on a stray quote, so a badly quoted file fails the test.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  let wasQuoted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i += 1;
      } else {
        field += ch;
        i += 1;
      }
      continue;
    }
    if (ch === '"') {
      if (field !== '' || wasQuoted) throw new Error(`stray quote at ${i}`);
      quoted = true;
      wasQuoted = true;
      i += 1;
    } else if (ch === ',') {
      row.push(field);
      field = '';
      wasQuoted = false;
      i += 1;
    } else if (ch === '\r' || ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      wasQuoted = false;
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      if (wasQuoted) throw new Error(`text after a closing quote at ${i}`);
      field += ch;
      i += 1;
    }
  }
  if (quoted) throw new Error('unterminated quote');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Rows as objects keyed by the header row. */
export function csvRecords(text: string): { header: string[]; records: Record<string, string>[] } {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error('empty CSV');
  return { header, records: rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']))) };
}
