import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { ErrorNote, Listing, Loading, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState } from '../components/forms';
import { turnLabel } from '../format';
import { usePoll } from '../hooks';
import { Link } from '../router';

const columns = (ws: string): Column<Item<'listConsoleConversations'>>[] => [
  { label: 'Conversation', cell: (c) => <Link to={`/w/${ws}/conversations/${c.conversation_id}`}>{c.conversation_id}</Link> },
  { label: 'Channel', cell: (c) => c.channel },
  { label: 'Customer', cell: (c) => c.customer.name ?? c.customer.phone ?? '—' },
  { label: 'Messages', num: true, cell: (c) => c.message_count },
  { label: 'Last', cell: (c) => c.preview ?? '' },
  { label: 'Updated', cell: (c) => <When at={c.updated_at} /> },
];

export function ConversationsPage({ ws }: { ws: string }) {
  const list = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/conversations', { params: { path: { workspace_id: ws } } }))).items, 5_000, [ws]);
  return (
    <>
      <h1>Conversations</h1>
      <Listing
        of={list}
        what="conversations"
        empty={
          <EmptyState title="No conversations yet">
            <p>
              Every WhatsApp conversation with a customer shows here with its whole transcript: what the customer wrote, what the AI agent answered, and what your team and
              your campaigns sent. A conversation starts when a customer messages one of your senders, or when you message them (<code>POST /api/v1/messages</code>, or a
              campaign).
            </p>
            <p>
              To try one now, have a simulated customer write in: <code>npm run console -- whatsapp inbound {ws} --from +919800000001 --text "Hello"</code>.
            </p>
          </EmptyState>
        }
      >
        {(rows) => <DataTable caption="Most recently active conversations" columns={columns(ws)} rows={rows} rowKey={(c) => c.conversation_id} />}
      </Listing>
    </>
  );
}

/** A conversation's transcript, every turn (notes and trail rows included), polled. */
export function ConversationPage({ ws, id }: { ws: string; id: string }) {
  const transcript = usePoll(
    async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/conversations/{conversation_id}/transcript', { params: { path: { workspace_id: ws, conversation_id: id } } })),
    3_000,
    [ws, id],
  );
  const t = transcript.data;
  if (!t) return transcript.error ? <ErrorNote error={transcript.error} /> : <Loading what="the transcript" />;
  return (
    <>
      <p>
        <Link to={`/w/${ws}/conversations`}>All conversations</Link>
      </p>
      <h1>Conversation {t.conversation.conversation_id}</h1>
      <p>
        {t.conversation.channel} with {t.conversation.customer.name ?? t.conversation.customer.phone ?? 'a customer'}
      </p>
      <ol class="transcript">
        {t.items.map((m) => (
          <li key={m.message_id} class={`turn turn-${m.role} kind-${m.kind}`}>
            <span class="role">{turnLabel(m)}</span> {m.text ?? ''} <When at={m.created_at} />
          </li>
        ))}
      </ol>
    </>
  );
}
