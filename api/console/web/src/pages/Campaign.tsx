import { useRef, useState } from 'preact/hooks';
import { pendingApi, unwrap } from '../api/client';
import type { Campaign, Evaluation, OutcomeReport } from '../api/views';
import { Bars, Histogram, LineChart } from '../components/charts';
import { ErrorNote, Loading, When } from '../components/common';
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
      const c = await unwrap(pendingApi.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}', { params: { path } }));
      const counts = Object.fromEntries(COUNTERS.map((k) => [k, c[k]])) as Sample['counts'];
      const last = samples.current[samples.current.length - 1];
      if (!last || COUNTERS.some((k) => last.counts[k] !== counts[k]) || Date.now() - last.at > 10_000) samples.current = [...samples.current, { at: Date.now(), counts }].slice(-300);
      return c;
    },
    2_000,
    [ws, id],
  );
  const [evaluation, setEvaluation] = useState<Evaluation>();
  const action = useAction();
  const c = campaign.data;

  const control = (verb: 'launch' | 'pause' | 'resume' | 'cancel') =>
    action.run(async () => {
      const current = c!;
      if (verb === 'cancel' && !confirm(`Cancel "${current.name}" for good? Outstanding recipients are skipped.`)) return;
      const body = verb === 'launch' ? { expected_version: current.version, confirm_recipients: evaluation?.eligible ?? null } : { expected_version: current.version };
      try {
        await unwrap(pendingApi.POST(`/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/${verb}`, { params: { path }, body }));
      } finally {
        await campaign.reload();
      }
    });

  if (!c) return campaign.error ? <ErrorNote error={campaign.error} /> : <Loading what="the campaign" />;
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
        <ul class="counters">
          {COUNTERS.map((k) => (
            <li key={k}>
              <span class="label">{k}</span> <span class="value" data-counter={k}>{c[k]}</span>
            </li>
          ))}
        </ul>
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
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              void action.run(async () =>
                setEvaluation(await unwrap(pendingApi.POST('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/evaluate', { params: { path } }))),
              )
            }
          >
            Evaluate
          </button>
          {c.status === 'draft' || c.status === 'paused' ? (
            <button type="button" disabled={action.busy} onClick={() => void control('launch')}>
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
          {!FINISHED.has(c.status) && c.status !== 'draft' ? (
            <button type="button" disabled={action.busy} onClick={() => void control('cancel')}>
              Cancel campaign
            </button>
          ) : null}
        </div>
        <ErrorNote error={action.error} />
      </section>

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

/** The voice campaign's outcome report, by each capture field's `display`. */
function OutcomeView({ ws, campaign }: { ws: string; campaign: Campaign }) {
  const path = { workspace_id: ws, campaign_id: campaign.campaign_id };
  const report = usePoll(
    async (): Promise<OutcomeReport> => unwrap(pendingApi.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/outcomes', { params: { path } })),
    5_000,
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
          {r.funnel ? <Bars label="Funnel" counts={Object.entries(r.funnel)} /> : null}
          {r.dispositions ? <Bars label="Dispositions" counts={Object.entries(r.dispositions)} /> : null}
          {(r.fields ?? []).map((f) => (
            <article key={f.key} class="outcome-field">
              <h3>{f.label ?? f.key}</h3>
              {f.display === 'histogram' || f.type === 'number' ? (
                <Histogram label={f.label ?? f.key} values={f.values ?? []} />
              ) : f.counts ? (
                <Bars label={f.label ?? f.key} counts={Object.entries(f.counts)} />
              ) : null}
              {f.samples?.length ? (
                <ul>
                  {f.samples.map((s, i) => (
                    <li key={i}>{s}</li>
                  ))}
                </ul>
              ) : null}
              {f.evidence?.length ? (
                <ul class="evidence" aria-label={`Evidence for ${f.label ?? f.key}`}>
                  {f.evidence.slice(0, 5).map((e, i) => (
                    <li key={i}>
                      <q>{e.quote}</q>
                      {e.call_id ? (
                        <>
                          {' '}
                          <Link to={`/w/${ws}/calls/${e.call_id}`}>call</Link>
                        </>
                      ) : null}
                    </li>
                  ))}
                </ul>
              ) : null}
            </article>
          ))}
        </>
      ) : null}
    </section>
  );
}
