import { api, unwrap } from '../api/client';
import type { Due, Subscriber } from '../api/types';
import { Listing, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState, PageHead } from '../components/forms';
import { usePoll } from '../hooks';
import { Link } from '../router';

const SUBSCRIBER_COLUMNS: Column<Subscriber>[] = [
  { label: 'Name', cell: (s) => s.name },
  { label: 'Phone', cell: (s) => s.phone },
  { label: 'Plan', cell: (s) => s.plan_name },
  { label: 'Amount', num: true, cell: (s) => `₹${s.amount}` },
  { label: 'Status', cell: (s) => s.status },
  { label: 'Next due', cell: (s) => s.next_due_date ?? '—' },
  { label: 'Outstanding', num: true, cell: (s) => `₹${s.outstanding_total}` },
];

const DUE_COLUMNS: Column<Due>[] = [
  { label: 'Subscriber', cell: (d) => d.subscriber_name },
  { label: 'Period', cell: (d) => d.period_label },
  { label: 'Amount', num: true, cell: (d) => `₹${d.amount}` },
  { label: 'Due', cell: (d) => d.due_date },
  { label: 'Status', cell: (d) => <span class={`status status-${d.status}`}>{d.status}</span> },
  {
    label: 'Chase',
    cell: (d) =>
      (d.chase.state === 'running' ? `running; next: ${d.chase.next_step?.replace('_', ' ') ?? '—'}` : `ended as ${d.chase.ended_as ?? d.status}`) +
      (d.chase.failure_reason ? ` (${d.chase.failure_reason})` : ''),
  },
  { label: 'Reminders sent', num: true, cell: (d) => d.chase.reminders_sent },
  { label: 'Next action', cell: (d) => <When at={d.chase.next_action_at} /> },
];

/**
 * The dues app: subscribers, and each due with the state of its chase (reminder, follow-ups,
 * paid…). With `subscriber` (a subscriber just added) it shows theirs: their row marked and
 * only their dues.
 */
export function DuesPage({ ws, subscriber }: { ws: string; subscriber?: string }) {
  const path = { workspace_id: ws };
  const subscribers = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/apps/dues/subscribers', { params: { path } }))).items, 10_000, [ws]);
  const dues = usePoll(
    async () =>
      ((await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/apps/dues/dues', { params: { path, query: subscriber ? { subscriber_id: subscriber } : {} } }))) as unknown as { items: Due[] }).items,
    5_000,
    [ws, subscriber],
  );
  const chosen = subscriber ? subscribers.data?.find((s) => s.subscriber_id === subscriber) : undefined;
  return (
    <>
      <PageHead title="Dues" createTo={`/w/${ws}/dues/new`} create="Add subscriber" />
      {chosen ? (
        <p class="notice" role="status" data-testid="subscriber-added">
          {chosen.name} ({chosen.phone}) pays ₹{chosen.amount} on the {chosen.plan_name}; next due {chosen.next_due_date ?? '—'}. Their dues are below.{' '}
          <Link to={`/w/${ws}/dues`}>Show everyone's dues</Link>
        </p>
      ) : null}
      <h2>Subscribers</h2>
      <Listing
        of={subscribers}
        what="subscribers"
        empty={
          <EmptyState title="No subscribers yet">
            <p>
              The dues app collects regular payments (fees, rent, memberships): add someone who pays you, and each due is reminded and followed up on WhatsApp until it
              is paid, waived or declined.
            </p>
            <p>
              <Link to={`/w/${ws}/dues/new`} class="button">
                Add the first subscriber
              </Link>
            </p>
            <p>
              Or from a terminal: <code>npm run console -- dues add {ws} --name … --phone +91… --amount 500</code>. The app must be installed first (
              <code>npm run console -- dues install {ws}</code>).
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <DataTable
            caption="Subscribers"
            columns={SUBSCRIBER_COLUMNS}
            rows={rows}
            rowKey={(s) => s.subscriber_id}
            rowProps={(s) => (s.subscriber_id === subscriber ? { class: 'chosen', 'aria-current': 'true' } : {})}
          />
        )}
      </Listing>
      <h2>{chosen ? `${chosen.name}'s dues and their chases` : 'Dues and their chases'}</h2>
      <Listing of={dues} what="dues" empty={<p>No dues yet: each subscriber's next two dues appear here as soon as they are added.</p>}>
        {(rows) => <DataTable caption="Dues" columns={DUE_COLUMNS} rows={rows} rowKey={(d) => d.due_id} />}
      </Listing>
    </>
  );
}
