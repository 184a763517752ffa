import { DataTable } from './DataTable';
import { Said } from './Said';

/** One excluded person as evaluate names them: a contact by id, an uploaded list's person by the file's row. */
export interface ExcludedRow {
  reason: string;
  contact_id?: string;
  row?: number;
  field?: string;
}

/** The rows evaluate left out (up to 200), each with its reason: what an operator fixes in the file or the contacts. */
export function ExcludedRows({ rows, total }: { rows: ExcludedRow[]; total: number }) {
  if (rows.length === 0) return null;
  return (
    <details class="excluded-rows">
      <summary>
        Who was left out{total > rows.length ? ` (the first ${rows.length} of ${total})` : ` (${rows.length})`}
      </summary>
      <DataTable
        caption="People left out and why"
        columns={[
          { label: rows[0]!.row !== undefined ? 'Row' : 'Contact', cell: (r) => r.row ?? r.contact_id, cellProps: (r) => ({ class: r.row !== undefined ? 'num' : undefined }) },
          {
            label: 'Reason',
            cell: (r) => (
              <>
                <Said kind="exclusion" code={r.reason} />
                {r.field ? (
                  <>
                    {' '}
                    (<code>{`{{${r.field}}}`}</code>)
                  </>
                ) : null}
              </>
            ),
          },
        ]}
        rows={rows}
        rowKey={(_, i) => i}
        rowProps={(r) => ({ 'data-reason': r.reason })}
      />
    </details>
  );
}
