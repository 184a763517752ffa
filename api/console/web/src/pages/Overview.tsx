import { api, unwrap } from '../api/client';
import { ErrorNote, Loading } from '../components/common';
import { Bars, TimeChart } from '../components/charts';
import { DataTable } from '../components/DataTable';
import { Said } from '../components/Said';
import { MISSING } from '../format';
import type { paths } from '../generated/console';
import { usePoll } from '../hooks';
import { Link } from '../router';
import { duration, say } from '../vocabulary';

type Overview = paths['/console/v1/workspaces/{workspace_id}/overview']['get']['responses'][200]['content']['application/json'];

const HOUR_MS = 3_600_000;
/** "at least 2000" when the day's messages read stopped at its cap. */
const atLeast = (n: number, capped: boolean) => (capped ? `at least ${n}` : String(n));
const share = (used: number, limit: number) => (limit > 0 ? Math.min(100, Math.round((used / limit) * 100)) : 0);

/**
 * The first page of a workspace: today at a glance (the workspace's day, its zone named once):
 * what needs attention, calls and messages, campaign progress, and the daily call budget and
 * the plan against their limits. One read (GET …/overview), every 15 s.
 */
export function OverviewPage({ ws }: { ws: string }) {
  const overview = usePoll(async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/overview', { params: { path: { workspace_id: ws } } })), 15_000, [ws]);
  const o = overview.data;
  if (!o) return overview.error ? <ErrorNote error={overview.error} /> : <Loading what="the overview" />;
  const at = (kind: Overview['attention'][number]['about']) =>
    kind.kind === 'campaign' && kind.id
      ? `/w/${ws}/campaigns/${kind.id}`
      : kind.kind === 'call' && kind.id
        ? `/w/${ws}/calls/${kind.id}`
        : kind.kind === 'calls'
          ? `/w/${ws}/calls`
          : kind.kind === 'conversations'
            ? `/w/${ws}/conversations`
            : `/w/${ws}/overview`;
  const since = Date.parse(o.today.since);
  // The hours of today so far (the server counts 24; the rest are still to come).
  const hoursSoFar = Math.min(24, Math.max(1, Math.ceil((Date.parse(o.generated_at) - since) / HOUR_MS)));
  return (
    <>
      <ErrorNote error={overview.error} />
      <h1>Today</h1>
      <p class="muted" data-testid="overview-day">
        {new Intl.DateTimeFormat('en-GB', { timeZone: o.time_zone, weekday: 'long', day: 'numeric', month: 'long' }).format(new Date(o.generated_at))}, times in {o.time_zone}
      </p>

      <section aria-labelledby="attention">
        <h2 id="attention">Needs attention</h2>
        {o.attention.length === 0 ? (
          <p data-testid="attention-none">Nothing needs you right now.</p>
        ) : (
          <ul class="attention" data-testid="attention">
            {o.attention.map((a) => (
              <li key={a.code + (a.about.id ?? '')} class={`attention-${a.severity}`} data-code={a.code}>
                <span class="severity">{a.severity === 'error' ? 'Problem' : 'Warning'}:</span> {a.about.kind === 'workspace' ? a.text : <Link to={at(a.about)}>{a.text}</Link>}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="today-calls">
        <h2 id="today-calls">Calls</h2>
        <ul class="counters" aria-label="Calls today">
          <li>
            <strong class="value" data-testid="calls-today">{o.calls.ended}</strong> ended today
          </li>
          <li>
            <strong class="value">{o.calls.answered}</strong> answered
          </li>
          <li>
            <strong class="value">{o.calls.live}</strong> on the line now
          </li>
          <li>
            <strong class="value">{duration(o.calls.connected_seconds) ?? '0 s'}</strong> talking
          </li>
        </ul>
        {o.calls.ended > 0 ? (
          <TimeChart
            label="Calls ended per hour today"
            times={o.calls.by_hour.slice(0, hoursSoFar).map((_, i) => since + i * HOUR_MS)}
            series={[{ name: 'Calls ended in the hour', points: o.calls.by_hour.slice(0, hoursSoFar) }]}
            timeZone={o.time_zone}
            yLabel="Calls"
            xSpan={[since, since + 24 * HOUR_MS]}
          />
        ) : null}
        {Object.keys(o.calls.by_outcome).length ? (
          <Bars
            label="How today's calls ended"
            counts={Object.entries(o.calls.by_outcome)
              .sort(([, a], [, b]) => b - a)
              .map(([code, n]) => [say('callOutcome', code), n])}
          />
        ) : null}
        {o.calls.recent.length ? (
          <DataTable
            caption="The latest calls to end"
            showCaption
            testId="overview-calls"
            columns={[
              {
                label: 'Who',
                rowHeader: true,
                cell: (c) => (
                  <Link to={`/w/${ws}/calls/${c.call_id}`} title={c.call_id}>
                    {c.person_name ?? c.to}
                    {c.person_name ? <span class="muted"> {c.to}</span> : null}
                  </Link>
                ),
              },
              { label: 'Purpose', cell: (c) => c.purpose ?? MISSING },
              { label: 'Duration', cell: (c) => duration(c.duration_seconds) ?? MISSING },
              { label: 'Outcome', cell: (c) => (c.outcome ? <Said kind="callOutcome" code={c.outcome} /> : <Said kind="callStatus" code={c.status} />) },
            ]}
            rows={o.calls.recent}
            rowKey={(c) => c.call_id}
            rowProps={(c) => ({ 'data-call': c.call_id })}
          />
        ) : (
          <p>No calls yet today.</p>
        )}
      </section>

      <section aria-labelledby="today-messages">
        <h2 id="today-messages">WhatsApp messages</h2>
        {o.messages.total > 0 ? (
          <>
            <p>
              <strong data-testid="messages-today">{atLeast(o.messages.total, o.messages.capped)}</strong> sent today, by how far each got:
            </p>
            <Bars
              label="Messages sent today"
              counts={[
                ['Sent, not yet delivered', o.messages.by_status.sent],
                ['Delivered, not read', o.messages.by_status.delivered],
                ['Read', o.messages.by_status.read],
                ['Failed', o.messages.by_status.failed],
              ]}
            />
          </>
        ) : (
          <p data-testid="messages-today">No messages sent today.</p>
        )}
      </section>

      <section aria-labelledby="today-campaigns">
        <h2 id="today-campaigns">Campaigns</h2>
        {o.campaigns.length ? (
          <DataTable
            caption="Campaigns running, waiting, paused, or finished today"
            testId="overview-campaigns"
            columns={[
              { label: 'Campaign', rowHeader: true, cell: (c) => <Link to={`/w/${ws}/campaigns/${c.campaign_id}`}>{c.name}</Link> },
              { label: 'Kind', cell: (c) => <Said kind="campaignChannel" code={c.channel} /> },
              { label: 'Status', cell: (c) => c.status },
              {
                label: 'Progress',
                cell: (c) => (
                  <>
                    <progress max={Math.max(1, c.recipients)} value={c.reached} aria-label={`${c.name}: reached`} /> {c.reached} of {c.recipients} reached
                    {c.failed ? `, ${c.failed} failed` : ''}
                  </>
                ),
              },
            ]}
            rows={o.campaigns}
            rowKey={(c) => c.campaign_id}
          />
        ) : (
          <p>
            No campaign is running. <Link to={`/w/${ws}/campaigns`}>All campaigns</Link>
          </p>
        )}
      </section>

      <section aria-labelledby="today-spend">
        <h2 id="today-spend">Spend against limits</h2>
        <dl class="facts" data-testid="budget">
          <dt>Calls today (budget)</dt>
          <dd>
            <progress max={o.budget.calls_limit} value={Math.min(o.budget.calls_used, o.budget.calls_limit)} aria-label="Calls against the daily budget" /> {o.budget.calls_used} of{' '}
            {o.budget.calls_limit} ({share(o.budget.calls_used, o.budget.calls_limit)} %)
          </dd>
          <dt>Minutes reserved today</dt>
          <dd>
            <progress max={o.budget.minutes_limit} value={Math.min(o.budget.minutes_reserved, o.budget.minutes_limit)} aria-label="Minutes against the daily budget" />{' '}
            {o.budget.minutes_reserved} of {o.budget.minutes_limit}
          </dd>
          <dt>WhatsApp conversations</dt>
          <dd>
            {o.plan.conversations_used} of {o.plan.conversations_included} included used, {o.plan.prepaid_credits} prepaid credits left
          </dd>
          <dt>Voice minutes</dt>
          <dd>
            {o.plan.voice_minutes_used} of {o.plan.voice_minutes_included} included used, {o.plan.voice_credits} voice credits left
          </dd>
        </dl>
        <p class="hint">
          The call budget is counted per UTC day and resets at 00:00 UTC ({o.budget.utc_day});{' '}
          {o.budget.campaign_calls_count ? 'campaign calls count against it.' : 'campaign calls do not count against it.'}
        </p>
      </section>
    </>
  );
}
