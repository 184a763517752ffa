import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { Listing, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState } from '../components/forms';
import { usePoll } from '../hooks';

const COLUMNS: Column<Item<'listConsoleTickets'>>[] = [
  { label: 'Reference', cell: (t) => t.public_ref },
  { label: 'Subject', cell: (t) => t.subject },
  { label: 'Status', cell: (t) => t.status.replace(/_/g, ' ') },
  { label: 'Priority', cell: (t) => t.priority },
  { label: 'Assignee', cell: (t) => t.assignee_name ?? '—' },
  { label: 'Opened', cell: (t) => <When at={t.created_at} /> },
];

/** The workspace's support tickets, newest first (replies, notes and assignment are in the CLI for now). */
export function TicketsPage({ ws }: { ws: string }) {
  const list = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/tickets', { params: { path: { workspace_id: ws } } }))).items, 10_000, [ws]);
  return (
    <>
      <h1>Tickets</h1>
      <Listing
        of={list}
        what="tickets"
        empty={
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
        }
      >
        {(rows) => <DataTable caption="Tickets, newest first" columns={COLUMNS} rows={rows} rowKey={(t) => t.ticket_id} />}
      </Listing>
    </>
  );
}
