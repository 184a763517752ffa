import { api, unwrap } from '../api/client';
import { ErrorNote, Loading, When } from '../components/common';
import { usePoll } from '../hooks';

/** The dues app: subscribers, and each due with the state of its chase (reminder, follow-ups, paid…). */
export function DuesPage({ ws }: { ws: string }) {
  const path = { workspace_id: ws };
  const subscribers = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/apps/dues/subscribers', { params: { path } }))).items, 10_000, [ws]);
  const dues = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/apps/dues/dues', { params: { path } }))).items, 5_000, [ws]);
  return (
    <>
      <h1>Dues</h1>
      <h2>Subscribers</h2>
      <ErrorNote error={subscribers.error} />
      {!subscribers.data ? (
        subscribers.error ? null : <Loading what="subscribers" />
      ) : (
        <table>
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
              <tr key={s.subscriber_id}>
                <td>{s.name}</td>
                <td>{s.phone}</td>
                <td>{s.plan_name}</td>
                <td class="num">₹{s.amount}</td>
                <td>{s.status}</td>
                <td>{s.next_due_date ?? '—'}</td>
                <td class="num">₹{s.outstanding_total}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Dues and their chases</h2>
      <ErrorNote error={dues.error} />
      {!dues.data ? (
        dues.error ? null : <Loading what="dues" />
      ) : (
        <table>
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
                <td>{d.subscriber_name}</td>
                <td>{d.period_label}</td>
                <td class="num">₹{d.amount}</td>
                <td>{d.due_date}</td>
                <td>
                  <span class={`status status-${d.status}`}>{d.status}</span>
                </td>
                <td>
                  {d.chase.state === 'running' ? `running; next: ${d.chase.next_step?.replace('_', ' ') ?? '—'}` : `ended as ${d.chase.ended_as ?? d.status}`}
                  {d.chase.failure_reason ? ` (${d.chase.failure_reason})` : ''}
                </td>
                <td class="num">{d.chase.reminders_sent}</td>
                <td>
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
