import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { Item } from '../api/types';
import { ActionButton, ErrorNote, Listing, Loading, When } from '../components/common';
import { DataTable, type Column } from '../components/DataTable';
import { EmptyState, Field, FilterSelect } from '../components/forms';
import type { paths } from '../generated/console';
import { CHANNEL_FACTS } from '../campaignChannels';
import { fieldValue, MISSING, turnLabel } from '../format';
import { Said } from '../components/Said';
import { duration, say, timesRead } from '../vocabulary';
import { useAction, usePoll } from '../hooks';
import { Link, navigate } from '../router';
// The server's own lists (src/calls/types.ts imports nothing, so the bundle takes only these).
import { CALL_OUTCOMES, CALL_STATUSES } from '../../../../../src/calls/types';

type CallPage = paths['/console/v1/workspaces/{workspace_id}/calls']['get']['responses'][200]['content']['application/json'];
type ListedCall = CallPage['items'][number];
interface Filters {
  status: string;
  outcome: string;
  to: string;
  campaign_id: string;
  /** Days, YYYY-MM-DD, in the workspace's time zone (the server reads them so). */
  created_from: string;
  created_to: string;
}
const NO_FILTERS: Filters = { status: '', outcome: '', to: '', campaign_id: '', created_from: '', created_to: '' };
type Found = Item<'findConsoleRecords'>;
const foundHref = (ws: string, m: Found) => `/w/${ws}/${m.kind === 'call' ? 'calls' : 'conversations'}/${encodeURIComponent(m.id)}`;
/** What Find reads as an id or a number (the server decides; these only choose what the page does with its answer). */
const ID_LIKE = /^(call_|con_|CA[0-9a-f]{32}$)/i;
const NUMBER_LIKE = /^\+?[\d\s().-]+$/;

/** Who a call was with: their name over their number, or the number alone; the call's id stays in the link's tooltip. */
function Person({ ws, call }: { ws: string; call: { call_id: string; person_name: string | null; to: string | null } }) {
  return (
    <Link to={`/w/${ws}/calls/${call.call_id}`} title={call.call_id}>
      {call.person_name ? (
        <>
          <span class="person" data-testid="call-person">
            {call.person_name}
          </span>{' '}
          <span class="muted">{call.to}</span>
        </>
      ) : (
        <span data-testid="call-person">{call.to ?? 'Unknown number'}</span>
      )}
    </Link>
  );
}

const callColumns = (ws: string): Column<ListedCall>[] => [
  { label: 'Who', rowHeader: true, cell: (c) => <Person ws={ws} call={c} /> },
  { label: 'Purpose', cell: (c) => c.purpose ?? MISSING },
  { label: 'When', cell: (c) => <When at={c.created_at} /> },
  { label: 'Duration', cell: (c) => duration(c.duration_seconds) ?? MISSING },
  { label: 'Status', cell: (c) => <Said kind="callStatus" code={c.status} /> },
  { label: 'Outcome', cell: (c) => <Said kind="callOutcome" code={c.outcome} /> },
  // A call still on the line has nothing to read yet: a dash, not "Being read".
  { label: 'Result', cell: (c) => (c.result.disposition ? <Said kind="disposition" code={c.result.disposition} /> : c.ended_at ? <Said kind="resultState" code={c.result.state} /> : MISSING) },
  { label: 'Campaign', cell: (c) => (c.campaign_id ? <Link to={`/w/${ws}/campaigns/${c.campaign_id}`}>{c.campaign_name ?? c.campaign_id}</Link> : MISSING) },
];

/**
 * Recent calls first (newest first, narrowed by status, outcome, number, campaign and days, a page
 * at a time), then Find: an id opens its call or conversation, a number or a name lists what
 * matches (a number also narrows the calls above).
 */
export function CallsPage({ ws }: { ws: string }) {
  const path = { workspace_id: ws };
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [numberText, setNumberText] = useState('');
  const [older, setOlder] = useState<{ items: ListedCall[]; next: string | null } | null>(null);
  const query = (cursor?: string) => ({
    ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')),
    ...(cursor ? { cursor } : {}),
  });
  // Every 15 s: a page read newest first from the `_id` index on FerretDB; a rare filter still reads back until a page is full (docs/decisions/console.md, "Create flows, empty pages and recent calls").
  const recent = usePoll(async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/calls', { params: { path, query: query() as never } })), 15_000, [ws, JSON.stringify(filters)]);
  const campaigns = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns', { params: { path } }))).items.filter((c) => CHANNEL_FACTS[c.channel].callsPeople),
    0,
    [ws],
  );
  const more = useAction();
  const setFilter = (key: keyof Filters, value: string) => {
    setOlder(null);
    // From the latest filters, not this render's: two changes before the next render (leave
    // the number box, then pick an outcome) must both stay.
    setFilters((current) => ({ ...current, [key]: value }));
  };
  const filtered = Object.values(filters).some((v) => v !== '');
  const seen = new Set<string>();
  const rows = [...(recent.data?.items ?? []), ...(older?.items ?? [])].filter((c) => !seen.has(c.call_id) && Boolean(seen.add(c.call_id)));
  const next = older ? older.next : (recent.data?.next_cursor ?? null);

  const [id, setId] = useState('');
  const [matches, setMatches] = useState<{ q: string; items: Found[] } | null>(null);
  const find = useAction();
  return (
    <>
      <h1>Calls</h1>
      <section aria-labelledby="recent-calls">
        <h2 id="recent-calls">Recent calls</h2>
        {/* No filters on a workspace with no calls yet: there is nothing to narrow. */}
        {rows.length === 0 && !filtered ? null : (
          <form class="filters" aria-label="Filter the calls" onSubmit={(e) => e.preventDefault()}>
            <FilterSelect id="filter-status" label="Status" value={filters.status} options={CALL_STATUSES.map((s) => [s, say('callStatus', s)])} onChange={(v) => setFilter('status', v)} />
            <FilterSelect id="filter-outcome" label="Outcome" value={filters.outcome} options={CALL_OUTCOMES.map((o) => [o, say('callOutcome', o)])} onChange={(v) => setFilter('outcome', v)} />
            <Field id="filter-number" label="Number">
              {/* The box keeps its own text: a list arriving while someone types re-renders the page, and a box bound to the applied filter would be reset to it (the edit then lost). */}
              <input id="filter-number" type="tel" placeholder="+91…" value={numberText} onInput={(e) => setNumberText((e.currentTarget as HTMLInputElement).value)} onChange={(e) => setFilter('to', (e.currentTarget as HTMLInputElement).value.trim())} />
            </Field>
            <FilterSelect
              id="filter-campaign"
              label="Campaign"
              value={filters.campaign_id}
              options={(campaigns.data ?? []).map((c) => [c.campaign_id, c.name])}
              onChange={(v) => setFilter('campaign_id', v)}
            />
            <Field id="filter-from" label="From">
              <input id="filter-from" type="date" value={filters.created_from} onChange={(e) => setFilter('created_from', (e.currentTarget as HTMLInputElement).value)} />
            </Field>
            <Field id="filter-to" label="To (included)">
              <input id="filter-to" type="date" value={filters.created_to} onChange={(e) => setFilter('created_to', (e.currentTarget as HTMLInputElement).value)} />
            </Field>
            {filtered ? (
              <button
                type="button"
                onClick={() => {
                  setOlder(null);
                  setFilters(NO_FILTERS);
                  setNumberText('');
                }}
              >
                Clear filters
              </button>
            ) : null}
          </form>
        )}
        <Listing
          of={{ data: recent.data && rows, error: recent.error }}
          what="recent calls"
          failed={more.error}
          empty={
            filtered ? (
              <p>No calls match these filters.</p>
            ) : (
              <EmptyState title="No calls yet">
                <p>
                  Every call an agent makes or takes shows here, newest first: its status, how it ended, and what was learnt. Calls start from your systems (
                  <code>POST /api/v1/calls</code>), from a call campaign, or when someone rings one of your numbers.
                </p>
                <p>
                  <Link to={`/w/${ws}/campaigns/new`} class="button">
                    Create a call campaign
                  </Link>
                </p>
                <p>
                  To try one now, have a simulated customer ring your number: <code>npm run console -- call inbound {ws} --from +919800000001</code>.
                </p>
              </EmptyState>
            )
          }
        >
          {(items) => (
            <DataTable
              caption="Recent calls, newest first"
              testId="recent-calls"
              columns={callColumns(ws)}
              rows={items}
              rowKey={(c) => c.call_id}
              rowProps={(c) => ({ 'data-call': c.call_id })}
            />
          )}
        </Listing>
        {next ? (
          <ActionButton
            action={more}
            run={async () => {
              const page = await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/calls', { params: { path, query: query(next) as never } }));
              setOlder({ items: [...(older?.items ?? []), ...page.items], next: page.next_cursor });
            }}
          >
            Older calls
          </ActionButton>
        ) : null}
      </section>
      <section aria-labelledby="find-call">
        <h2 id="find-call">Find a call or conversation</h2>
        <form
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            void find.run(async () => {
              const q = id.trim();
              const answer = await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/find', { params: { path, query: { q } } }));
              const only = answer.items.length === 1 ? answer.items[0]! : null;
              // An id names one record: open it. A number also narrows the list above to its calls.
              if (only && (only.id === q || ID_LIKE.test(q))) navigate(foundHref(ws, only));
              else {
                if (NUMBER_LIKE.test(q)) {
                  setNumberText(q);
                  setFilter('to', q);
                }
                setMatches({ q, items: answer.items });
              }
            });
          }}
        >
          <label for="call-query">A number, a name, or an id (call_…, con_…, a Twilio CallSid)</label>
          <input id="call-query" value={id} required onInput={(e) => setId((e.currentTarget as HTMLInputElement).value)} />
          <button type="submit" disabled={find.busy}>
            Find
          </button>
        </form>
        <ErrorNote error={find.error} />
        {matches ? (
          matches.items.length === 0 ? (
            <p data-testid="find-none">Nothing matches “{matches.q}”.</p>
          ) : (
            <ul class="found" data-testid="find-results" aria-label={`What matches ${matches.q}`}>
              {matches.items.map((m) => (
                <li key={m.id}>
                  <Link to={foundHref(ws, m)}>{m.who ?? m.id}</Link> {m.kind === 'call' ? `call, ${say('callStatus', m.detail).toLowerCase()}` : `${say('channel', m.detail)} conversation`} <When at={m.at} />
                </li>
              ))}
            </ul>
          )
        ) : null}
      </section>
    </>
  );
}

/** One call: its status timeline, transcript, typed result and the re-read button; polled until read. */
export function CallPage({ ws, id }: { ws: string; id: string }) {
  const path = { workspace_id: ws, call_id: id };
  const call = usePoll(async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/calls/{call_id}', { params: { path } }))), 2_000, [ws, id]);
  const reread = useAction();
  const [requested, setRequested] = useState<number>();
  const c = call.data;
  if (!c) return call.error ? <ErrorNote error={call.error} /> : <Loading what="the call" />;
  const steps: [string, string | null | undefined][] = [
    ['Placed', c.placed_at],
    ['Answered', c.started_at],
    ['Ended', c.ended_at],
    ['Read', c.result.read_at],
  ];
  return (
    <>
      <p>
        <Link to={`/w/${ws}/calls`}>Find another call</Link>
      </p>
      <h1>
        Call with {c.person_name ?? c.to}
        {c.person_name ? <span class="muted"> {c.to}</span> : null}
      </h1>
      {c.purpose ? <p data-testid="call-purpose">About {c.purpose}</p> : null}
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="call-status" data-status={c.status}>
          <Said kind="callStatus" code={c.status} />
        </dd>
        <dt>Direction</dt>
        <dd>{c.direction === 'inbound' ? 'They called us' : 'We called them'}</dd>
        <dt>How it ended</dt>
        <dd data-testid="call-outcome">
          <Said kind="callOutcome" code={c.outcome} />
        </dd>
        <dt>Duration</dt>
        <dd>{duration(c.duration_seconds) ?? MISSING}</dd>
        <dt>Reading</dt>
        <dd data-testid="call-readings" data-readings={c.readings ?? 0} title={`${c.readings ?? 0} reading(s)`}>
          {timesRead(c.readings ?? 0)}
        </dd>
        <dt>Call id</dt>
        <dd>
          <span class="id">{c.call_id}</span>
        </dd>
      </dl>
      <section aria-label="Status timeline">
        <h2>Timeline</h2>
        <ol class="timeline">
          {steps.map(([name, at]) => (
            <li key={name} class={at ? 'done' : 'pending'}>
              {name}: <When at={at} />
            </li>
          ))}
        </ol>
      </section>
      <section aria-label="Result">
        <h2>Result</h2>
        <p>
          <strong data-testid="result-state" data-state={c.result.state}>
            <Said kind="resultState" code={c.result.state} />
          </strong>
          {c.result.disposition ? (
            <>
              : <Said kind="disposition" code={c.result.disposition} testId="result-disposition" />
            </>
          ) : null}
          {/* `goal_met` is the reader's yes, no or unclear: a string, so never read as true or false. */}
          {c.result.goal_met != null ? (
            <>
              ; <Said kind="goalMet" code={c.result.goal_met} testId="result-goal-met" />
            </>
          ) : null}
          {c.result.next_step && c.result.next_step !== 'none' ? (
            <>
              ; next: <Said kind="nextStep" code={c.result.next_step} />
            </>
          ) : null}
        </p>
        {c.result.summary ? <p>{c.result.summary}</p> : null}
        {c.result.fields && Object.keys(c.result.fields).length ? (
          <DataTable
            caption="Captured fields"
            showCaption
            columns={[
              { label: 'Field', rowHeader: true, cell: ([key]) => c.capture?.fields.find((f) => f.key === key)?.label ?? key },
              { label: 'Value', cell: ([, value]) => fieldValue(value) },
            ]}
            rows={Object.entries(c.result.fields)}
            rowKey={([key]) => key}
          />
        ) : null}
        <button
          type="button"
          disabled={reread.busy || !c.ended_at}
          onClick={() =>
            void reread.run(async () => {
              const res = (await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/calls/{call_id}/reread', { params: { path } }))) as { reading: number };
              setRequested(res.reading);
              await call.reload();
            })
          }
        >
          Re-read the call
        </button>
        {requested ? (
          <p role="status" data-testid="reread-requested">
            Reading {requested} requested; the result updates here when it lands.
          </p>
        ) : null}
        <ErrorNote error={reread.error} />
      </section>
      <section aria-label="Transcript">
        <h2>Transcript</h2>
        {c.transcript?.length ? (
          <ol class="transcript">
            {c.transcript.map((t, i) => (
              <li key={i} class={`turn turn-${t.role}`}>
                <span class="role">{turnLabel(t)}</span> {t.text}
              </li>
            ))}
          </ol>
        ) : (
          <p>No transcript.</p>
        )}
      </section>
    </>
  );
}
