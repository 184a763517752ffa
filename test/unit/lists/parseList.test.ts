import { decodeUtf8, detectDelimiter, normaliseColumnName, parseList } from '../../../src/lists/parseList';
import { LIST_LIMITS } from '../../../src/lists/limits';
import { chunkRows } from '../../../src/lists/listStore';

describe('normaliseColumnName', () => {
  it('lower-cases and joins words with one underscore', () => {
    expect(normaliseColumnName(' First  Name ')).toBe('first_name');
    expect(normaliseColumnName('due-date')).toBe('due_date');
    expect(normaliseColumnName('Plan_2')).toBe('plan_2');
  });

  it('refuses a header that does not start with a letter, underscores too (issue 32)', () => {
    expect(normaliseColumnName('__proto__')).toBeNull();
    expect(normaliseColumnName('__phone__')).toBeNull();
    expect(normaliseColumnName('_name')).toBeNull();
    expect(normaliseColumnName(' name_ ')).toBe('name');
  });

  it('refuses what it would have to drop or guess', () => {
    expect(normaliseColumnName('città')).toBeNull();
    expect(normaliseColumnName('e.mail')).toBeNull();
    expect(normaliseColumnName('2nd phone')).toBeNull();
    expect(normaliseColumnName('')).toBeNull();
    expect(normaliseColumnName('x'.repeat(LIST_LIMITS.columnNameMaxChars + 1))).toBeNull();
  });
});

describe('decodeUtf8 and detectDelimiter', () => {
  it('drops the byte-order mark and refuses bytes that are not UTF-8', () => {
    expect(decodeUtf8(Buffer.from('\uFEFFphone,name\n', 'utf8'))).toBe('phone,name\n');
    expect(decodeUtf8(Buffer.from([0x70, 0x68, 0xe9, 0x0a]))).toBeNull();
  });

  it('reads the header line for comma, semicolon or tab', () => {
    expect(detectDelimiter('phone;name;city\n1,2;3')).toBe(';');
    expect(detectDelimiter('phone\tname\n')).toBe('\t');
    expect(detectDelimiter('phone,name\n')).toBe(',');
    expect(detectDelimiter('phone\n')).toBe(',');
  });
});

describe('parseList', () => {
  it('reads the header into columns and each row with its line in the file', () => {
    const out = parseList('Phone,First Name,City\n+919800000001, Asha ,Pune\n\n"+919800000002","Ravi\nKumar",Delhi\n+919800000003,Meera\n');
    expect(out).toEqual({
      ok: true,
      list: {
        headers: ['Phone', 'First Name', 'City'],
        columns: ['phone', 'first_name', 'city'],
        phoneColumn: 'phone',
        rows: [
          { line: 2, cells: ['+919800000001', 'Asha', 'Pune'] },
          // A blank line is skipped but counted; a cell's line break does not move the row's start.
          { line: 4, cells: ['+919800000002', 'Ravi\nKumar', 'Delhi'] },
          // A short row is padded.
          { line: 6, cells: ['+919800000003', 'Meera', ''] },
        ],
      },
    });
  });

  it('takes the phone column the upload names, normalised like the header', () => {
    const out = parseList('Mobile Number;name\n98000 00001;Asha\n', { phoneColumn: 'Mobile Number' });
    expect(out.ok && out.list.phoneColumn).toBe('mobile_number');
    expect(out.ok && out.list.rows).toEqual([{ line: 2, cells: ['98000 00001', 'Asha'] }]);
  });

  it('drops trailing empty cells and rows with no value at all', () => {
    const out = parseList('phone,name\n+919800000001,Asha,,\n,,\n+919800000002,Ravi\n');
    expect(out.ok && out.list.rows).toEqual([
      { line: 2, cells: ['+919800000001', 'Asha'] },
      { line: 4, cells: ['+919800000002', 'Ravi'] },
    ]);
  });

  it.each([
    ['', { reason: 'empty_list', message: 'The file is empty: it needs a header row and a row per person.' }],
    ['phone,name\n', { reason: 'empty_list', message: 'The file has a header but no rows.', row: 1 }],
    ['name,city\nAsha,Pune\n', { reason: 'no_phone_column', message: 'No column is named "phone"; the columns are name, city. Name the phone column "phone", or say which column holds the numbers.', row: 1 }],
    ['phone,e.mail\n1,2\n', { reason: 'invalid_column_name', row: 1, column: 'e.mail' }],
    ['phone,All\n1,2\n', { reason: 'invalid_column_name', row: 1, column: 'All' }],
    ['phone,,name\n1,2,3\n', { reason: 'invalid_column_name', row: 1, column: '' }],
    ['phone,First Name,first-name\n1,2,3\n', { reason: 'duplicate_column', message: 'Columns 2 ("First Name") and 3 ("first-name") both read as {{first_name}}.', row: 1, column: 'first-name' }],
    ['phone,name\n1,Asha\n2,Ravi,extra\n', { reason: 'invalid_csv', message: 'Row 3 has 3 cells but the header names 2 columns.', row: 3 }],
    ['phone,name\n1,"Asha\n', { reason: 'invalid_csv', row: 2 }],
    [`phone,note\n1,${'x'.repeat(LIST_LIMITS.cellMaxChars + 1)}\n`, { reason: 'cell_too_long', row: 2, column: 'note' }],
  ])('refuses a file whole with the reason and row (case %#)', (text, refusal) => {
    const out = parseList(text);
    expect(out.ok).toBe(false);
    expect(!out.ok && out.refusal).toMatchObject(refusal);
  });

  it('refuses a `__proto__` header instead of reading it as `proto` (issue 32)', () => {
    expect(parseList('phone,__proto__\n1,2\n')).toEqual({
      ok: false,
      refusal: {
        reason: 'invalid_column_name',
        message: 'Column 2 ("__proto__") cannot name a variable: a column name starts with a letter and holds only letters A to Z, digits, spaces, "_" and "-", up to 40 characters.',
        row: 1,
        column: '__proto__',
      },
    });
  });

  it('refuses a file holding a NUL, with its line, instead of storing it (issue 32)', () => {
    expect(parseList('phone,name\n+919800000001,Asha\n+919800000002,Ra\0vi\n')).toEqual({
      ok: false,
      refusal: { reason: 'invalid_encoding', message: 'Line 3 holds a NUL character: the file is not CSV text. Save it as CSV UTF-8.', row: 3 },
    });
  });

  it('trims a quoted cell too: a leading tab or space inside the quotes goes (issue 32)', () => {
    const out = parseList('phone,name,city\n"\t+919800000001","\t Asha ", "Pune\t"\n"\t",""," "\n');
    expect(out).toMatchObject({ ok: true, list: { rows: [{ line: 2, cells: ['+919800000001', 'Asha', 'Pune'] }] } });
    // Rows whose cells are only spaces once trimmed hold no value: none is left, so the list is empty.
    expect(parseList('phone,name\n"\t"," "\n')).toEqual({ ok: false, refusal: { reason: 'empty_list', message: 'The file has a header but no rows.', row: 1 } });
  });

  it('refuses more columns or rows than a list holds', () => {
    const wide = Array.from({ length: LIST_LIMITS.maxColumns + 1 }, (_, i) => (i === 0 ? 'phone' : `c${i}`)).join(',');
    expect(parseList(`${wide}\n1\n`)).toMatchObject({ ok: false, refusal: { reason: 'too_many_columns', row: 1 } });
    const rows = Array.from({ length: LIST_LIMITS.maxRows + 1 }, (_, i) => `+9198${String(i).padStart(8, '0')}`).join('\n');
    expect(parseList(`phone\n${rows}\n`)).toMatchObject({
      ok: false,
      refusal: { reason: 'too_many_rows', message: `The file has ${LIST_LIMITS.maxRows + 1} rows; a list holds at most ${LIST_LIMITS.maxRows}. Split it into several lists.` },
    });
  });
});

describe('chunkRows', () => {
  it('cuts at rowsPerChunk rows, or sooner past chunkMaxBytes', () => {
    const small = Array.from({ length: LIST_LIMITS.rowsPerChunk * 2 + 1 }, (_, i) => ({ line: i + 2, cells: ['+91', 'x'] }));
    expect(chunkRows(small).map((c) => c.length)).toEqual([LIST_LIMITS.rowsPerChunk, LIST_LIMITS.rowsPerChunk, 1]);
    const big = Array.from({ length: 3 }, (_, i) => ({ line: i + 2, cells: ['y'.repeat(LIST_LIMITS.chunkMaxBytes / 2)] }));
    expect(chunkRows(big).map((c) => c.length)).toEqual([1, 1, 1]);
  });
});
