import { api, unwrap } from '../api/client';
import type { Due } from '../api/types';
import { ErrorNote, Loading, When } from '../components/common';
import { EmptyState } from '../components/forms';
import { usePoll } from '../hooks';
import { Link } from '../router';

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
      <div class="page-head">
        <h1>Dues</h1>
        <Link to={`/w/${ws}/dues/new`} class="button">
          Add subscriber
        </Link>
      </div>
      {chosen ? (
        <p class="notice" role="status" data-testid="subscriber-added">
          {chosen.name} ({chosen.phone}) pays ₹{chosen.amount} on the {chosen.plan_name}; next due {chosen.next_due_date ?? '—'}. Their dues are below.{' '}
          <Link to={`/w/${ws}/dues`}>Show everyone's dues</Link>
        </p>
      ) : null}
      <h2>Subscribers</h2>
      <ErrorNote error={subscribers.error} />
      {!subscribers.data ? (
        subscribers.error ? null : <Loading what="subscribers" />
      ) : subscribers.data.length === 0 ? (
        <EmptyState title="No subscribers yet">
          <p>
            The dues app collects regular payments (fees, rent, memberships): add someone who pays you, and each due is reminded and followed up on WhatsApp until it is
            paid, waived or declined.
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
      ) : (
        <table class="stack">
          <caption class="visually-hidden">Subscribers</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Phone</th>
              <th scope="col">Plan</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
              <th scope="col">Next due</th>
              <th scope="col">Outstanding</th>
            </tr>
          </thead>
          <tbody>
            {subscribers.data.map((s) => (
              <tr key={s.subscriber_id} class={s.subscriber_id === subscriber ? 'chosen' : undefined} aria-current={s.subscriber_id === subscriber ? 'true' : undefined}>
                <td data-label="Name">{s.name}</td>
                <td data-label="Phone">{s.phone}</td>
                <td data-label="Plan">{s.plan_name}</td>
                <td data-label="Amount" class="num">₹{s.amount}</td>
                <td data-label="Status">{s.status}</td>
                <td data-label="Next due">{s.next_due_date ?? '—'}</td>
                <td data-label="Outstanding" class="num">₹{s.outstanding_total}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>{chosen ? `${chosen.name}'s dues and their chases` : 'Dues and their chases'}</h2>
      <ErrorNote error={dues.error} />
      {!dues.data ? (
        dues.error ? null : <Loading what="dues" />
      ) : dues.data.length === 0 ? (
        <p>No dues yet: each subscriber's next two dues appear here as soon as they are added.</p>
      ) : (
        <table class="stack">
          <caption class="visually-hidden">Dues</caption>
          <thead>
            <tr>
              <th scope="col">Subscriber</th>
              <th scope="col">Period</th>
              <th scope="col">Amount</th>
              <th scope="col">Due</th>
              <th scope="col">Status</th>
              <th scope="col">Chase</th>
              <th scope="col">Reminders sent</th>
              <th scope="col">Next action</th>
            </tr>
          </thead>
          <tbody>
            {dues.data.map((d) => (
              <tr key={d.due_id}>
                <td data-label="Subscriber">{d.subscriber_name}</td>
                <td data-label="Period">{d.period_label}</td>
                <td data-label="Amount" class="num">₹{d.amount}</td>
                <td data-label="Due">{d.due_date}</td>
                <td data-label="Status">
                  <span class={`status status-${d.status}`}>{d.status}</span>
                </td>
                <td data-label="Chase">
                  {d.chase.state === 'running' ? `running; next: ${d.chase.next_step?.replace('_', ' ') ?? '—'}` : `ended as ${d.chase.ended_as ?? d.status}`}
                  {d.chase.failure_reason ? ` (${d.chase.failure_reason})` : ''}
                </td>
                <td data-label="Reminders sent" class="num">{d.chase.reminders_sent}</td>
                <td data-label="Next action">
                  <When at={d.chase.next_action_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
