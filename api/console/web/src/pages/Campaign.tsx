import { Fragment } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { Campaign, Evaluation, OutcomeField, OutcomeReport, Recipient } from '../api/types';
import { Bars, LineChart } from '../components/charts';
import { ConfirmDialog, ErrorNote, Loading, When } from '../components/common';
import { useAction, usePoll } from '../hooks';
import { Link } from '../router';

const COUNTERS = ['sent', 'delivered', 'read', 'failed', 'skipped'] as const;
const SENDING = new Set(['running', 'scheduled']);
const FINISHED = new Set(['completed', 'failed', 'cancelled', 'archived']);

interface Sample {
  at: number;
  counts: Record<(typeof COUNTERS)[number], number>;
}

/**
 * One campaign, polled every 2 s: counters over time (sampled by this page while it is
 * open), the evaluate findings, the controls (each sends the version just read, so the
 * person never types it; a 409 from a change in between reloads and says so), and for a
 * voice campaign its outcome report.
 */
export function CampaignPage({ ws, id }: { ws: string; id: string }) {
  const samples = useRef<Sample[]>([]);
  const path = { workspace_id: ws, campaign_id: id };
  const campaign = usePoll(
    async () => {
      const c = await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}', { params: { path } }));
      const counts = Object.fromEntries(COUNTERS.map((k) => [k, c[k]])) as Sample['counts'];
      const last = samples.current[samples.current.length - 1];
      if (!last || COUNTERS.some((k) => last.counts[k] !== counts[k]) || Date.now() - last.at > 10_000) samples.current = [...samples.current, { at: Date.now(), counts }].slice(-300);
      return c;
    },
    2_000,
    [ws, id],
  );
  // The run's own record of its counts per minute: survives a reload, unlike this page's samples.
  const timeline = usePoll(
    async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/timeline', { params: { path } })),
    15_000,
    [ws, id],
  );
  const [evaluation, setEvaluation] = useState<Evaluation>();
  /** Launch waiting for the person's yes: the eligible count the dialog states and that launch then confirms. */
  const [launchAsk, setLaunchAsk] = useState<{ eligible: number }>();
  /** Cancel waiting for the person's yes, asked in the page as launch is. */
  const [cancelAsk, setCancelAsk] = useState(false);
  const action = useAction();
  const c = campaign.data;

  const evaluate = async () => {
    const found = await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/evaluate', { params: { path } }));
    setEvaluation(found);
    return found;
  };
  // The count asked about is the evaluation on screen, or a fresh one: a draft has no recipients until it launches.
  const askLaunch = () => action.run(async () => setLaunchAsk({ eligible: (evaluation ?? (await evaluate())).eligible }));

  const control = (verb: 'launch' | 'pause' | 'resume' | 'cancel', confirmRecipients: number | null = null) =>
    action.run(async () => {
      const current = c!;
      const body = verb === 'launch' ? { expected_version: current.version, confirm_recipients: confirmRecipients } : { expected_version: current.version };
      try {
        await unwrap(api.POST(`/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/${verb}`, { params: { path }, body }));
      } finally {
        await campaign.reload();
      }
    });

  if (!c) return campaign.error ? <ErrorNote error={campaign.error} /> : <Loading what="the campaign" />;
  // The counters are a funnel (delivered within sent), so who was reached is everyone not queued.
  const reached = Math.max(0, c.recipients - (c.states?.queued ?? c.recipients));
  return (
    <>
      <p>
        <Link to={`/w/${ws}/campaigns`}>All campaigns</Link>
      </p>
      <h1>{c.name}</h1>
      <ErrorNote error={campaign.error} />
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status status-${c.status}`} data-testid="campaign-status">
            {c.status}
          </span>
        </dd>
        <dt>Channel</dt>
        <dd>{c.channel}</dd>
        <dt>Version</dt>
        <dd>{c.version}</dd>
        <dt>Recipients</dt>
        <dd>{c.recipients}</dd>
        <dt>Launched</dt>
        <dd>
          <When at={c.launched_at} />
        </dd>
        <dt>Completed</dt>
        <dd>
          <When at={c.completed_at} />
        </dd>
      </dl>

      <section aria-label="Counters">
        <h2>Progress</h2>
        <p>
          Reached <strong data-testid="reached">{reached}</strong> of {c.recipients} recipients{' '}
          <progress max={Math.max(1, c.recipients)} value={reached} aria-label="Recipients reached" />
        </p>
        <ul class="counters">
          {COUNTERS.map((k) => (
            <li key={k}>
              <span class="label">{k}</span> <span class="value" data-counter={k}>{c[k]}</span>
            </li>
          ))}
        </ul>
        {timeline.data && timeline.data.items.length > 0 ? (
          <LineChart
            label="Recipients by state, per minute of the run"
            times={timeline.data.items.map((p) => Date.parse(p.at))}
            series={COUNTERS.map((k) => ({ name: k, points: timeline.data!.items.map((p) => Number(p[k] ?? 0)) }))}
          />
        ) : null}
        {samples.current.length > 1 ? (
          <LineChart
            label="Counters since this page opened"
            times={samples.current.map((s) => s.at)}
            series={COUNTERS.map((k) => ({ name: k, points: samples.current.map((s) => s.counts[k]) }))}
          />
        ) : null}
      </section>

      <section aria-label="Controls">
        <h2>Controls</h2>
        <div class="controls">
          <button type="button" disabled={action.busy} onClick={() => void action.run(evaluate)}>
            Evaluate
          </button>
          {/* The API's launch also resumes a paused campaign; the page offers one way for each state. */}
          {c.status === 'draft' ? (
            <button type="button" disabled={action.busy} onClick={() => void askLaunch()}>
              Launch
            </button>
          ) : null}
          {SENDING.has(c.status) ? (
            <button type="button" disabled={action.busy} onClick={() => void control('pause')}>
              Pause
            </button>
          ) : null}
          {c.status === 'paused' ? (
            <button type="button" disabled={action.busy} onClick={() => void control('resume')}>
              Resume
            </button>
          ) : null}
          {FINISHED.has(c.status) && c.status !== 'archived' ? (
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                void action.run(async () => {
                  await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/archive', { params: { path } }));
                  await campaign.reload();
                })
              }
            >
              Archive
            </button>
          ) : null}
          {!FINISHED.has(c.status) ? (
            <button type="button" disabled={action.busy} onClick={() => setCancelAsk(true)}>
              Cancel campaign
            </button>
          ) : null}
        </div>
        <ErrorNote error={action.error} />
      </section>
      {launchAsk ? (
        <ConfirmDialog
          title={`Launch "${c.name}"?`}
          confirmLabel="Confirm launch"
          onCancel={() => setLaunchAsk(undefined)}
          onConfirm={() => {
            setLaunchAsk(undefined);
            void control('launch', launchAsk.eligible);
          }}
        >
          <p>
            This sends to <strong data-testid="launch-count">{launchAsk.eligible}</strong> {launchAsk.eligible === 1 ? 'person' : 'people'} on {c.channel}. If the
            audience has changed since it was counted, the launch is refused and nothing is sent.
          </p>
        </ConfirmDialog>
      ) : null}

      {cancelAsk ? (
        <ConfirmDialog
          title={`Cancel "${c.name}" for good?`}
          confirmLabel="Cancel campaign"
          dismissLabel="Keep it"
          onCancel={() => setCancelAsk(false)}
          onConfirm={() => {
            setCancelAsk(false);
            void control('cancel');
          }}
        >
          <p>Everyone not yet {c.channel === 'voice' ? 'called' : 'sent to'} is skipped, and the campaign cannot be started again.</p>
        </ConfirmDialog>
      ) : null}

      {evaluation ? <EvaluationView evaluation={evaluation} /> : null}
      {c.channel === 'voice' ? <OutcomeView ws={ws} campaign={c} /> : null}
    </>
  );
}

function EvaluationView({ evaluation }: { evaluation: Evaluation }) {
  return (
    <section aria-label="Evaluation">
      <h2>Evaluation</h2>
      <p>
        <strong data-testid="eligible">{evaluation.eligible}</strong> eligible of {evaluation.total_rows} matched.
      </p>
      {Object.keys(evaluation.excluded).length ? <Bars label="Excluded" counts={Object.entries(evaluation.excluded)} /> : null}
      {evaluation.findings.length === 0 ? (
        <p>No findings: nothing blocks a launch.</p>
      ) : (
        <ul class="findings">
          {evaluation.findings.map((f) => (
            <li key={f.code} class={`finding finding-${f.severity}`}>
              <strong>{f.severity}</strong> {f.message}
              {f.count != null ? ` (${f.count})` : ''}
              {f.fix ? <span class="fix"> Fix: {f.fix}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The voice campaign's outcome report: the funnel, dispositions, each capture field by its `display`, evidence quotes and the CSV. */
function OutcomeView({ ws, campaign }: { ws: string; campaign: Campaign }) {
  const path = { workspace_id: ws, campaign_id: campaign.campaign_id };
  const report = usePoll(
    async (): Promise<OutcomeReport> => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/outcomes', { params: { path } })),
    5_000,
    [ws, campaign.campaign_id],
  );
  // Evidence lives on each person's merged outcome: the first page of recipients gives quotes to show.
  const recipients = usePoll(
    async () => (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/recipients', { params: { path, query: { limit: 100 } } }))).items,
    10_000,
    [ws, campaign.campaign_id],
  );
  const r = report.data;
  return (
    <section aria-label="Outcome report">
      <h2>Outcomes</h2>
      <p>
        <a href={`/console/v1/workspaces/${ws}/campaigns/${campaign.campaign_id}/outcomes.csv`} download>
          Download outcomes (CSV)
        </a>
      </p>
      <ErrorNote error={report.error} />
      {r ? (
        <>
          <dl class="facts">
            {Object.entries(r.totals).map(([k, n]) => (
              <Fragment key={k}>
                <dt>{k.replace(/_/g, ' ')}</dt>
                <dd>{n}</dd>
              </Fragment>
            ))}
          </dl>
          <Bars label="Funnel" counts={r.funnel.map((f) => [`${f.stage} (${Math.round(f.rate * 100)}%)`, f.count])} />
          <Bars label="Dispositions" counts={Object.entries(r.dispositions).filter(([, n]) => n > 0)} />
          {r.fields
            .filter((f) => f.display !== 'hidden')
            .map((f) => (
              <FieldView key={f.key} field={f} ws={ws} evidence={(recipients.data ?? []).flatMap((p) => evidenceOf(p, f.key))} />
            ))}
        </>
      ) : null}
    </section>
  );
}

function evidenceOf(person: Recipient, key: string): { quote: string; call_id: string; who: string }[] {
  const found = person.outcome?.evidence?.[key];
  return found ? [{ quote: found.quote, call_id: found.call_id, who: person.name ?? person.to }] : [];
}

/** One capture field: bars for counts (choices, yes/no, ratings), a histogram for a number's distribution, samples for text. */
function FieldView({ field, ws, evidence }: { field: OutcomeField; ws: string; evidence: { quote: string; call_id: string; who: string }[] }) {
  const s = field.summary;
  return (
    <article class="outcome-field" aria-label={field.label}>
      <h3>
        {field.label} <span class="muted">({field.answered} answered)</span>
      </h3>
      {s?.kind === 'counts' ? <Bars label={field.label} counts={Object.entries(s.counts)} /> : null}
      {s?.kind === 'distribution' ? (
        <>
          <p>
            min {s.min ?? '—'}, median {s.median ?? '—'}, mean {s.mean ?? '—'}, max {s.max ?? '—'}
          </p>
          {/* The histogram: the server's equal-width buckets of the numbers given. */}
          <Bars label={`${field.label}: distribution`} counts={s.buckets.map((b) => [`${b.from}–${b.to}`, b.count])} />
        </>
      ) : null}
      {s?.kind === 'samples' ? (
        <ul>
          {s.samples.map((x) => (
            <li key={x.position}>{x.value}</li>
          ))}
        </ul>
      ) : null}
      {evidence.length ? (
        <ul class="evidence" aria-label={`What people said: ${field.label}`}>
          {evidence.slice(0, 5).map((e) => (
            <li key={e.call_id}>
              <q>{e.quote}</q> — {e.who} <Link to={`/w/${ws}/calls/${e.call_id}`}>call</Link>
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}
