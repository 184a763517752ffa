import { DataTable } from './DataTable';

/** One excluded person as evaluate names them: a contact by id, an uploaded list's person by the file's row. */
export interface ExcludedRow {
  reason: string;
  contact_id?: string;
  row?: number;
  field?: string;
}

const REASONS: Record<string, string> = {
  invalid_destination: 'no usable phone number',
  duplicate_recipient: 'listed twice (same contact or number)',
  suppressed: 'opted out',
  missing_variable: 'a variable has no value',
  country_not_allowed: 'calls to this country are not enabled',
  channel_consent_missing: 'no consent for the channel',
};

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
                {REASONS[r.reason] ?? r.reason}
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
