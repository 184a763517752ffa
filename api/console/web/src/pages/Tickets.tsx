import { api, unwrap } from '../api/client';
import { ErrorNote, Loading, When } from '../components/common';
import { EmptyState } from '../components/forms';
import { usePoll } from '../hooks';

/** The workspace's support tickets, newest first (replies, notes and assignment are in the CLI for now). */
export function TicketsPage({ ws }: { ws: string }) {
  const list = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/tickets', { params: { path: { workspace_id: ws } } }))).items, 10_000, [ws]);
  return (
    <>
      <h1>Tickets</h1>
      <ErrorNote error={list.error} />
      {!list.data ? (
        list.error ? null : <Loading what="tickets" />
      ) : list.data.length === 0 ? (
        <EmptyState title="No tickets yet">
          <p>
            A ticket is a customer's request your team follows to the end: it opens from your own systems (a form, an app, an agent's hand-over), gets a reference to quote
            to the customer and a due time from its priority, and is assigned to someone.
          </p>
          <p>
            Open one from your systems with <code>POST /api/v1/tickets</code> (subject, description, and the requester's name, email or phone), then follow it here or with{' '}
            <code>npm run console -- tickets list {ws}</code>.
          </p>
        </EmptyState>
      ) : (
        <table class="stack">
          <caption class="visually-hidden">Tickets, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">Subject</th>
              <th scope="col">Status</th>
              <th scope="col">Priority</th>
              <th scope="col">Assignee</th>
              <th scope="col">Opened</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((t) => (
              <tr key={t.ticket_id}>
                <td data-label="Reference">{t.public_ref}</td>
                <td data-label="Subject">{t.subject}</td>
                <td data-label="Status">{t.status.replace(/_/g, ' ')}</td>
                <td data-label="Priority">{t.priority}</td>
                <td data-label="Assignee">{t.assignee_name ?? '—'}</td>
                <td data-label="Opened">
                  <When at={t.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
