import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { ErrorNote, Listing, Options, When } from '../components/common';
import { EmptyState } from '../components/forms';
import { useAction, usePoll } from '../hooks';
import { Link } from '../router';

type Entry = Item<'listAgentInbox'>;
type Filter = 'waiting' | 'held' | 'all';

const FILTERS: [Filter, string][] = [
  ['waiting', 'Waiting for a person'],
  ['held', 'Held by the team'],
  ['all', 'All, handed back too'],
];

const STATE_WORDS: Record<Entry['state'], string> = { waiting: 'waiting for a person', held: 'held by the team', returned: 'back with the agent' };

/** Who is replying, remembered in this browser so each reply does not ask again. */
const NAME_KEY = 'console.inbox.member-name';

/**
 * The chat agent's inbox: conversations handed to a person (the agent asked, or a team member
 * took one), newest first with the reason given. A team member replies under their name and
 * hands the conversation back to the agent.
 */
export function InboxPage({ ws }: { ws: string }) {
  const [filter, setFilter] = useState<Filter>('waiting');
  const [name, setName] = useState(() => localStorage.getItem(NAME_KEY) ?? '');
  const list = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/agent-inbox', { params: { path: { workspace_id: ws }, query: { filter } } }))).items,
    5_000,
    [ws, filter],
  );
  return (
    <>
      <h1>Inbox</h1>
      <div class="filters">
        <label for="inbox-filter">Show</label>
        <select id="inbox-filter" value={filter} onChange={(e) => setFilter((e.currentTarget as HTMLSelectElement).value as Filter)}>
          <Options of={FILTERS} />
        </select>
        <label for="inbox-name">Your name</label>
        <input
          id="inbox-name"
          required
          maxLength={80}
          value={name}
          onInput={(e) => {
            const value = (e.currentTarget as HTMLInputElement).value;
            setName(value);
            localStorage.setItem(NAME_KEY, value);
          }}
        />
      </div>
      <Listing
        of={list}
        what="the inbox"
        empty={
          <EmptyState title="Nobody is waiting">
            <p>
              A conversation lands here when its chat agent hands it to a person: the customer asked for one, a tool said so, or the agent could not answer. Deploy an agent to a
              WhatsApp sender on the Agents page; take any conversation from its page.
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ul class="cards">
            {rows.map((entry) => (
              <InboxCard key={`${entry.conversation_id}:${entry.updated_at}`} ws={ws} entry={entry} name={name} onChanged={() => void list.reload()} />
            ))}
          </ul>
        )}
      </Listing>
    </>
  );
}

function InboxCard({ ws, entry, name, onChanged }: { ws: string; entry: Entry; name: string; onChanged: () => void }) {
  const [text, setText] = useState('');
  const act = useAction();
  const path = { workspace_id: ws, conversation_id: entry.conversation_id };
  const id = (part: string) => `inbox-${entry.conversation_id}-${part}`;
  const held = entry.state !== 'returned';
  return (
    <li>
      <h2>
        <Link to={`/w/${ws}/conversations/${encodeURIComponent(entry.conversation_id)}`}>{entry.customer_phone}</Link>{' '}
        <span class="muted">
          {STATE_WORDS[entry.state]}
          {entry.member_name ? `, ${entry.member_name}` : ''}
        </span>
      </h2>
      <p>
        {entry.reason} <When at={entry.handed_over_at} />
      </p>
      {held ? (
        <form
          class="settings"
          aria-label={`Reply to ${entry.customer_phone}`}
          onSubmit={(e) => {
            e.preventDefault();
            void act.run(async () => {
              await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/conversations/{conversation_id}/team-replies', { params: { path }, body: { member_name: name, text } }));
              setText('');
              onChanged();
            });
          }}
        >
          <label for={id('text')}>Reply</label>
          <textarea id={id('text')} required rows={2} maxLength={4096} value={text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
          <div class="controls span">
            <button type="submit" class="primary" disabled={act.busy || !name.trim()}>
              Send as {name.trim() || '…'}
            </button>
            <button
              type="button"
              disabled={act.busy || !name.trim()}
              onClick={() =>
                void act.run(async () => {
                  await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/conversations/{conversation_id}/hand-back', { params: { path }, body: { member_name: name } }));
                  onChanged();
                })
              }
            >
              Hand back to the agent<span class="visually-hidden"> for {entry.customer_phone}</span>
            </button>
          </div>
          <div class="span">
            <ErrorNote error={act.error} />
          </div>
        </form>
      ) : null}
    </li>
  );
}
