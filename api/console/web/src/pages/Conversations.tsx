import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { useState } from 'preact/hooks';
import { ActionButton, ErrorNote, Listing, Loading, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState, Field } from '../components/forms';
import { turnLabel } from '../format';
import { Said } from '../components/Said';
import { useAction, usePoll } from '../hooks';
import { Link } from '../router';

/** Who a conversation is with: their name over their number, or the number alone; the id stays in the link's tooltip. */
const who = (c: { customer: { name?: string | null; display_name?: string | null; phone?: string | null } }) => c.customer.name ?? c.customer.display_name ?? null;

const columns = (ws: string): Column<Item<'listConsoleConversations'>>[] => [
  {
    label: 'Who',
    rowHeader: true,
    cell: (c) => (
      <Link to={`/w/${ws}/conversations/${c.conversation_id}`} title={c.conversation_id}>
        {who(c) ? (
          <>
            <span class="person">{who(c)}</span> <span class="muted">{c.customer.phone ?? ''}</span>
          </>
        ) : (
          (c.customer.phone ?? 'Unknown customer')
        )}
      </Link>
    ),
  },
  { label: 'Channel', cell: (c) => <Said kind="channel" code={c.channel} /> },
  { label: 'Messages', num: true, cell: (c) => c.message_count },
  { label: 'Last', cell: (c) => c.preview ?? '' },
  { label: 'Updated', cell: (c) => <When at={c.updated_at} /> },
];

type Listed = Item<'listConsoleConversations'>;
/** A phone shows each conversation as a card of six lines: 10 a page keeps the page a few screens long, not dozens. */
const pageSize = () => (window.matchMedia('(max-width: 40rem)').matches ? 10 : 25);

/**
 * The most recently active conversations, a page at a time (Older conversations; 25, 10 on a phone), narrowed by
 * a customer's number (any form the API accepts) or part of their name.
 */
export function ConversationsPage({ ws }: { ws: string }) {
  const path = { workspace_id: ws };
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [older, setOlder] = useState<{ items: Listed[]; next: string | null } | null>(null);
  const query = (cursor?: string) => ({ limit: pageSize(), ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) });
  const recent = usePoll(async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/conversations', { params: { path, query: query() } })), 5_000, [ws, q]);
  const more = useAction();
  const seen = new Set<string>();
  const rows = recent.data && [...recent.data.items, ...(older?.items ?? [])].filter((c) => !seen.has(c.conversation_id) && Boolean(seen.add(c.conversation_id)));
  const next = older ? older.next : (recent.data?.next_cursor ?? null);
  const search = (text: string) => {
    setOlder(null);
    setQ(text.trim());
  };
  return (
    <>
      <h1>Conversations</h1>
      {rows && rows.length === 0 && !q ? null : (
        <form
          role="search"
          class="filters"
          aria-label="Search the conversations"
          onSubmit={(e) => {
            e.preventDefault();
            search(typed);
          }}
        >
          <Field id="conversation-query" label="Number or name">
            <input id="conversation-query" type="search" value={typed} onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <button type="submit">Search</button>
          {q ? (
            <button
              type="button"
              onClick={() => {
                setTyped('');
                search('');
              }}
            >
              Clear search
            </button>
          ) : null}
        </form>
      )}
      <Listing
        of={{ data: rows, error: recent.error }}
        what="conversations"
        failed={more.error}
        empty={
          q ? (
            <p>No conversation matches “{q}”.</p>
          ) : (
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
          )
        }
      >
        {(items) => <DataTable caption="Most recently active conversations" testId="conversations" columns={columns(ws)} rows={items} rowKey={(c) => c.conversation_id} />}
      </Listing>
      {next ? (
        <ActionButton
          action={more}
          run={async () => {
            const page = await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/conversations', { params: { path, query: query(next) } }));
            setOlder({ items: [...(older?.items ?? []), ...page.items], next: page.next_cursor });
          }}
        >
          Older conversations
        </ActionButton>
      ) : null}
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
      <h1>
        {who(t.conversation) ?? t.conversation.customer.phone ?? 'A customer'}
        {who(t.conversation) && t.conversation.customer.phone ? <span class="muted"> {t.conversation.customer.phone}</span> : null}
      </h1>
      <p>
        <Said kind="channel" code={t.conversation.channel} /> conversation, <span class="id" data-testid="conversation-id">{t.conversation.conversation_id}</span>
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
