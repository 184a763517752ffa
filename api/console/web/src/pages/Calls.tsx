import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import { ErrorNote, Loading, When } from '../components/common';
import { EmptyState, Field } from '../components/forms';
import type { paths } from '../generated/console';
import { fieldValue, turnLabel } from '../format';
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
}
const NO_FILTERS: Filters = { status: '', outcome: '', to: '', campaign_id: '' };
const words = (s: string) => s.replace(/_/g, ' ');

/**
 * Recent calls first (newest first, narrowed by status, outcome, number and campaign, a page
 * at a time), then a box to open one call by its id.
 */
export function CallsPage({ ws }: { ws: string }) {
  const path = { workspace_id: ws };
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [older, setOlder] = useState<{ items: ListedCall[]; next: string | null } | null>(null);
  const query = (cursor?: string) => ({
    ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== '')),
    ...(cursor ? { cursor } : {}),
  });
  // Every 15 s: on FerretDB this list scans the calls (docs/decisions/console.md, "Create flows, empty pages and recent calls").
  const recent = usePoll(async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/calls', { params: { path, query: query() as never } })), 15_000, [ws, JSON.stringify(filters)]);
  const campaigns = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns', { params: { path } }))).items.filter((c) => c.channel === 'voice'),
    0,
    [ws],
  );
  const more = useAction();
  const setFilter = (key: keyof Filters, value: string) => {
    setOlder(null);
    setFilters({ ...filters, [key]: value });
  };
  const filtered = Object.values(filters).some((v) => v !== '');
  const seen = new Set<string>();
  const rows = [...(recent.data?.items ?? []), ...(older?.items ?? [])].filter((c) => !seen.has(c.call_id) && Boolean(seen.add(c.call_id)));
  const next = older ? older.next : (recent.data?.next_cursor ?? null);

  const [id, setId] = useState('');
  const find = useAction();
  return (
    <>
      <h1>Calls</h1>
      <section aria-labelledby="recent-calls">
        <h2 id="recent-calls">Recent calls</h2>
        {/* No filters on a workspace with no calls yet: there is nothing to narrow. */}
        {rows.length === 0 && !filtered ? null : (
          <form class="filters" aria-label="Filter the calls" onSubmit={(e) => e.preventDefault()}>
            <Field id="filter-status" label="Status">
              <select id="filter-status" value={filters.status} onChange={(e) => setFilter('status', (e.currentTarget as HTMLSelectElement).value)}>
                <option value="">Any</option>
                {CALL_STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {words(s)}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="filter-outcome" label="Outcome">
              <select id="filter-outcome" value={filters.outcome} onChange={(e) => setFilter('outcome', (e.currentTarget as HTMLSelectElement).value)}>
                <option value="">Any</option>
                {CALL_OUTCOMES.map((o) => (
                  <option key={o} value={o}>
                    {words(o)}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="filter-number" label="Number">
              <input id="filter-number" type="tel" placeholder="+91…" value={filters.to} onChange={(e) => setFilter('to', (e.currentTarget as HTMLInputElement).value.trim())} />
            </Field>
            <Field id="filter-campaign" label="Campaign">
              <select id="filter-campaign" value={filters.campaign_id} onChange={(e) => setFilter('campaign_id', (e.currentTarget as HTMLSelectElement).value)}>
                <option value="">Any</option>
                {(campaigns.data ?? []).map((c) => (
                  <option key={c.campaign_id} value={c.campaign_id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </Field>
            {filtered ? (
              <button
                type="button"
                onClick={() => {
                  setOlder(null);
                  setFilters(NO_FILTERS);
                }}
              >
                Clear filters
              </button>
            ) : null}
          </form>
        )}
        <ErrorNote error={recent.error ?? more.error} />
        {!recent.data ? (
          recent.error ? null : <Loading what="recent calls" />
        ) : rows.length === 0 ? (
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
        ) : (
          <table class="stack" data-testid="recent-calls">
            <caption class="visually-hidden">Recent calls, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Call</th>
                <th scope="col">Created</th>
                <th scope="col">Number</th>
                <th scope="col">Status</th>
                <th scope="col">Outcome</th>
                <th scope="col">Result</th>
                <th scope="col">Campaign</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.call_id} data-call={c.call_id}>
                  <td data-label="Call">
                    <Link to={`/w/${ws}/calls/${c.call_id}`}>
                      <span class="id">{c.call_id}</span>
                    </Link>
                  </td>
                  <td data-label="Created">
                    <When at={c.created_at} />
                  </td>
                  <td data-label="Number">{c.to ?? '—'}</td>
                  <td data-label="Status">{words(c.status)}</td>
                  <td data-label="Outcome">{c.outcome ? words(c.outcome) : '—'}</td>
                  <td data-label="Result">{c.result.disposition ? words(c.result.disposition) : c.result.state}</td>
                  <td data-label="Campaign">{c.campaign_id ? <Link to={`/w/${ws}/campaigns/${c.campaign_id}`}>{c.campaign_name ?? c.campaign_id}</Link> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {next ? (
          <button
            type="button"
            disabled={more.busy}
            onClick={() =>
              void more.run(async () => {
                const page = await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/calls', { params: { path, query: query(next) as never } }));
                setOlder({ items: [...(older?.items ?? []), ...page.items], next: page.next_cursor });
              })
            }
          >
            Older calls
          </button>
        ) : null}
      </section>
      <section aria-labelledby="find-call">
        <h2 id="find-call">Find a call</h2>
        <form
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            void find.run(async () => {
              const q = id.trim();
              if (/^call_/.test(q)) navigate(`/w/${ws}/calls/${encodeURIComponent(q)}`);
              else setFilter('to', q);
            });
          }}
        >
          <label for="call-query">Call id (or a number, to list its calls)</label>
          <input id="call-query" value={id} required onInput={(e) => setId((e.currentTarget as HTMLInputElement).value)} />
          <button type="submit" disabled={find.busy}>
            Find
          </button>
        </form>
        <ErrorNote error={find.error} />
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
      <h1>Call {c.call_id}</h1>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="call-status">{c.status}</dd>
        <dt>Direction</dt>
        <dd>{c.direction}</dd>
        <dt>To</dt>
        <dd>{c.to}</dd>
        <dt>Outcome</dt>
        <dd>{c.outcome ?? '—'}</dd>
        <dt>Duration</dt>
        <dd>{c.duration_seconds != null ? `${c.duration_seconds} s` : '—'}</dd>
        <dt>Readings</dt>
        <dd data-testid="call-readings">{c.readings ?? 0}</dd>
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
          State <strong data-testid="result-state">{c.result.state}</strong>
          {c.result.disposition ? `, disposition ${c.result.disposition}` : ''}
          {/* `goal_met` is the reader's yes, no or unclear: a string, so never read as true or false. */}
          {c.result.goal_met != null ? `, goal met: ${c.result.goal_met}` : ''}
        </p>
        {c.result.summary ? <p>{c.result.summary}</p> : null}
        {c.result.fields && Object.keys(c.result.fields).length ? (
          <table>
            <caption>Captured fields</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(c.result.fields).map(([key, value]) => (
                <tr key={key}>
                  <th scope="row">{c.capture?.fields.find((f) => f.key === key)?.label ?? key}</th>
                  <td>{fieldValue(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
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
