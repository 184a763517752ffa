import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { usePoll } from '../hooks';
import { When } from './common';
import { DataTable, type Column } from './DataTable';

type ReportRow = Item<'listConsoleCampaignRecipients'>;

const STATES = ['queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'calling', 'called'] as const;
const PAGE = 50;

const COLUMNS: Column<ReportRow>[] = [
  { label: '#', num: true, cell: (r) => r.position + 1 },
  { label: 'Name', rowHeader: true, cell: (r) => r.name ?? '—' },
  { label: 'Phone', cell: (r) => r.to },
  { label: 'Status', cell: (r) => <span class={`status status-${r.state}`}>{r.state}</span> },
  { label: 'What happened', cell: (r) => <span title={r.reason ?? undefined}>{r.status_words}</span> },
  { label: 'When', cell: (r) => <When at={r.state_at} /> },
  {
    label: 'Reply',
    cell: (r) =>
      r.reply ? (
        <span>
          “{r.reply.text}” <span class="muted">(<When at={r.reply.at} />)</span>
        </span>
      ) : (
        '—'
      ),
  },
];

/**
 * The per-person report of a launched campaign: each person with their status, the reason in
 * words (the code in a tooltip), when, and their reply since the launch; filtered by status,
 * paged by the server's cursor, and the same rows as CSV (the export follows the filter).
 */
export function RecipientReport({ ws, campaignId }: { ws: string; campaignId: string }) {
  const [state, setState] = useState('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const path = { workspace_id: ws, campaign_id: campaignId };
  const rows = usePoll(
    async () =>
      unwrap(
        api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/recipients', {
          params: { path, query: { limit: PAGE, ...(state ? { state: state as (typeof STATES)[number] } : {}), ...(cursor ? { cursor } : {}) } },
        }),
      ),
    5_000,
    [ws, campaignId, state, cursor],
  );
  const csv = `/console/v1/workspaces/${encodeURIComponent(ws)}/campaigns/${encodeURIComponent(campaignId)}/recipients.csv${state ? `?state=${state}` : ''}`;
  return (
    <section aria-label="Who was sent what">
      <h2>Report: each person</h2>
      <div class="report-filter">
        <label>
          Status{' '}
          <select
            data-testid="report-state"
            value={state}
            onChange={(e) => {
              setState((e.currentTarget as HTMLSelectElement).value);
              setCursors([undefined]);
            }}
          >
            <option value="">Everyone</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <a class="button" href={csv} download data-testid="report-csv">
          Export CSV{state ? ` (${state})` : ''}
        </a>
      </div>
      {rows.data ? (
        rows.data.items.length === 0 ? (
          <p data-testid="report-empty">{state ? `Nobody ${state} on this page of the audience.` : 'Nobody staged yet.'}</p>
        ) : (
          <DataTable caption="Each person, their status and why" columns={COLUMNS} rows={rows.data.items} rowKey={(r) => String(r.position)} testId="report" />
        )
      ) : (
        <p>Loading the report…</p>
      )}
      <p class="controls">
        {cursors.length > 1 ? (
          <button type="button" onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous
          </button>
        ) : null}
        {rows.data?.next_cursor ? (
          <button type="button" onClick={() => setCursors([...cursors, rows.data!.next_cursor!])}>
            Next
          </button>
        ) : null}
      </p>
    </section>
  );
}
