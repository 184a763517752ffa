import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { FoundCall } from '../api/types';
import { ErrorNote, Loading, When } from '../components/common';
import { fieldValue, turnLabel } from '../format';
import { useAction, usePoll } from '../hooks';
import { Link, navigate } from '../router';

/** Find a call by its id, or a number's recent calls. */
export function CallsPage({ ws }: { ws: string }) {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<FoundCall[]>();
  const action = useAction();
  const search = () =>
    action.run(async () => {
      const q = query.trim();
      if (/^call_/.test(q)) {
        navigate(`/w/${ws}/calls/${encodeURIComponent(q)}`);
        return;
      }
      const res = await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/calls', { params: { path: { workspace_id: ws }, query: { to: q } } }));
      setFound(res.items);
    });
  return (
    <>
      <h1>Calls</h1>
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void search();
        }}
      >
        <label for="call-query">Call id or phone number</label>
        <input id="call-query" value={query} required onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" disabled={action.busy}>
          Find
        </button>
      </form>
      <ErrorNote error={action.error} />
      {found ? (
        found.length === 0 ? (
          <p>No calls to that number.</p>
        ) : (
          <table>
            <caption>Calls to {query}</caption>
            <thead>
              <tr>
                <th scope="col">Call</th>
                <th scope="col">Status</th>
                <th scope="col">Outcome</th>
                <th scope="col">Result</th>
                <th scope="col">Ended</th>
              </tr>
            </thead>
            <tbody>
              {found.map((c) => (
                <tr key={c.call_id}>
                  <td>
                    <Link to={`/w/${ws}/calls/${c.call_id}`}>{c.call_id}</Link>
                  </td>
                  <td>{c.status}</td>
                  <td>{c.outcome ?? '—'}</td>
                  <td>{c.result.state}</td>
                  <td>
                    <When at={c.ended_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
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
