import { api, unwrap } from '../api/client';
import type { AccountDue, Due, Subscriber, SubscriberAccount } from '../api/types';
import { formatCalendarDate } from '../clock';
import { Listing, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState, PageHead } from '../components/forms';
import { usePoll } from '../hooks';
import { Link } from '../router';

/** What the due's chase is doing: the next step, or how it ended. */
const chaseWords = (d: Due | AccountDue): string =>
  (d.chase.state === 'running' ? `running; next: ${d.chase.next_step?.replace('_', ' ') ?? '—'}` : `ended as ${d.chase.ended_as ?? d.status}`) +
  (d.chase.failure_reason ? ` (${d.chase.failure_reason})` : '');

/** The subscribers' columns; the name opens the subscriber's page (due now, scheduled, why each due exists). */
const subscriberColumns = (ws: string): Column<Subscriber>[] => [
  { label: 'Name', cell: (s) => <Link to={`/w/${ws}/dues/${s.subscriber_id}`}>{s.name}</Link> },
  { label: 'Phone', cell: (s) => s.phone },
  { label: 'Plan', cell: (s) => s.plan_name },
  { label: 'Amount', num: true, cell: (s) => `₹${s.amount}` },
  { label: 'Status', cell: (s) => s.status },
  { label: 'Next due', cell: (s) => (s.next_due_date ? formatCalendarDate(s.next_due_date) : '—') },
  // Every open due, the scheduled ones included: the subscriber's page splits it into due now and scheduled.
  { label: 'Open (incl. scheduled)', num: true, cell: (s) => `₹${s.outstanding_total}` },
];

const DUE_COLUMNS: Column<Due>[] = [
  { label: 'Subscriber', cell: (d) => d.subscriber_name },
  { label: 'Period', cell: (d) => d.period_label },
  { label: 'Amount', num: true, cell: (d) => `₹${d.amount}` },
  { label: 'Due', cell: (d) => formatCalendarDate(d.due_date) },
  { label: 'Status', cell: (d) => <span class={`status status-${d.status}`}>{d.status}</span> },
  { label: 'Chase', cell: (d) => chaseWords(d) },
  { label: 'Reminders sent', num: true, cell: (d) => d.chase.reminders_sent },
  { label: 'Next action', cell: (d) => <When at={d.chase.next_action_at} /> },
];

const STANDING_WORDS: Record<AccountDue['standing'], string> = {
  overdue: 'Overdue',
  due_now: 'Due today',
  scheduled: 'Scheduled (not owed yet)',
  settled: 'Settled',
};

const ACCOUNT_COLUMNS: Column<AccountDue>[] = [
  { label: 'Due date', rowHeader: true, cell: (d) => formatCalendarDate(d.due_date) },
  { label: 'Period', cell: (d) => d.period_label },
  { label: 'Amount', num: true, cell: (d) => `₹${d.amount}` },
  { label: 'Standing', cell: (d) => <span data-standing={d.standing}>{STANDING_WORDS[d.standing]}</span> },
  { label: 'Status', cell: (d) => <span class={`status status-${d.status}`}>{d.status}</span> },
  { label: 'Why it exists', cell: (d) => <span class="why">{d.why}</span> },
  { label: 'Chase', cell: (d) => chaseWords(d) },
  { label: 'Next action', cell: (d) => <When at={d.chase.next_action_at} /> },
];

/** One subscriber's standing: what is due now, what is only scheduled, and each due with why it exists. */
function SubscriberStanding({ account: a }: { account: SubscriberAccount }) {
  return (
    <section aria-label="What they owe" data-testid="subscriber-standing">
      <h2>{a.subscriber.name}: due now and scheduled</h2>
      <ul class="standing">
        <li data-testid="due-now">
          <span class="label">Due now</span>
          <span class="value">₹{a.due_now_total}</span>
          {a.due_now_count === 0 ? 'Nothing owed today.' : `${a.due_now_count} due${a.due_now_count === 1 ? '' : 's'} dated today or earlier.`}
        </li>
        <li data-testid="scheduled">
          <span class="label">Scheduled</span>
          <span class="value">₹{a.scheduled_total}</span>
          {a.scheduled_count === 0 ? 'Nothing raised ahead.' : `${a.scheduled_count} due${a.scheduled_count === 1 ? '' : 's'} raised ahead, not owed until ${a.scheduled_count === 1 ? 'its' : 'their'} date.`}
        </li>
      </ul>
      <p class="muted">
        Today is {formatCalendarDate(a.today)} in {a.time_zone}. Dues are raised ahead so each can be reminded before its date: a new subscriber's first two at once,
        then one more each time a due date passes, so two dues dated today or later always exist.
      </p>
      <DataTable caption={`${a.subscriber.name}'s dues`} columns={ACCOUNT_COLUMNS} rows={a.dues} rowKey={(d) => d.due_id} testId="subscriber-dues" />
    </section>
  );
}

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
  const account = usePoll(
    async () =>
      subscriber
        ? unwrap(api.GET('/console/v1/workspaces/{workspace_id}/apps/dues/subscribers/{subscriber_id}', { params: { path: { workspace_id: ws, subscriber_id: subscriber } } }))
        : null,
    5_000,
    [ws, subscriber],
  );
  return (
    <>
      <PageHead title="Dues" createTo={`/w/${ws}/dues/new`} create="Add subscriber" />
      {chosen ? (
        <p class="notice" role="status" data-testid="subscriber-added">
          {chosen.name} ({chosen.phone}) pays ₹{chosen.amount} on the {chosen.plan_name}; next due {chosen.next_due_date ? formatCalendarDate(chosen.next_due_date) : '—'}. Their dues are below.{' '}
          <Link to={`/w/${ws}/dues`}>Show everyone's dues</Link>
        </p>
      ) : null}
      {account.data ? <SubscriberStanding account={account.data} /> : null}
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
            columns={subscriberColumns(ws)}
            rows={rows}
            rowKey={(s) => s.subscriber_id}
            rowProps={(s) => (s.subscriber_id === subscriber ? { class: 'chosen', 'aria-current': 'true' } : {})}
          />
        )}
      </Listing>
      {/* A chosen subscriber's dues are in their standing above, with why each exists. */}
      {subscriber ? null : (
        <>
          <h2>Dues and their chases</h2>
          <Listing of={dues} what="dues" empty={<p>No dues yet: each subscriber's next two dues appear here as soon as they are added.</p>}>
            {(rows) => <DataTable caption="Dues" columns={DUE_COLUMNS} rows={rows} rowKey={(d) => d.due_id} />}
          </Listing>
        </>
      )}
    </>
  );
}
