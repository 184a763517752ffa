import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { api, unwrap } from '../api/client';
import type { Campaign, Evaluation, OutcomeField, OutcomeReport, Recipient, RunExplanation } from '../api/types';
import { campaignChartData } from '../campaignChart';
import { CHANNEL_FACTS } from '../campaignChannels';
import { Bars, TimeChart } from '../components/charts';
import { say } from '../vocabulary';
import { Said } from '../components/Said';
import { ActionButton, ConfirmDialog, ErrorNote, Loading, When } from '../components/common';
import { useAction, usePoll } from '../hooks';
import { Link, navigate } from '../router';
import { ExcludedRows } from '../components/ExcludedRows';
import { CampaignStatus, zoned } from '../components/CampaignStatus';
import { PreviewView } from '../components/CampaignPreview';
import { RecipientReport } from '../components/RecipientReport';

/** The funnel of a WhatsApp campaign (sent includes delivered, delivered includes read). */
const COUNTERS = ['sent', 'delivered', 'read', 'failed', 'skipped'] as const;
/** A call campaign's progress: calls, not messages. `owed` comes from the run (the explanation). */
const CALL_COUNTERS = [
  ['dialled', 'dialled'],
  ['answered', 'answered'],
  ['completed', 'completed'],
  ['call_backs', 'call-backs made'],
  ['owed', 'call-backs owed'],
  ['live', 'on a call or owed'],
] as const;
const SENDING = new Set(['running', 'scheduled']);
const FINISHED = new Set(['completed', 'failed', 'cancelled', 'archived']);

/**
 * One campaign, polled every 2 s: what its run is doing and why (the server's explanation),
 * its progress (the funnel, or a call campaign's calls) and a chart of it over time, the
 * evaluate findings, the controls (each sends the version just read, so the person never
 * types it; a 409 from a change in between reloads and says so), and for a voice campaign
 * its outcome report.
 */
export function CampaignPage({ ws, id }: { ws: string; id: string }) {
  const path = { workspace_id: ws, campaign_id: id };
  const campaign = usePoll(async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}', { params: { path } })), 2_000, [ws, id]);
  // The run's own record of its counts per minute (survives a reload); the chart ends at the read just made.
  const timeline = usePoll(
    async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/timeline', { params: { path } })),
    10_000,
    [ws, id],
  );
  // What it sends and to whom: fetched once per version (a draft's sample is the first person evaluate finds).
  const version = campaign.data?.version;
  const preview = usePoll(
    async () => unwrap(api.GET('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/preview', { params: { path } })),
    600_000,
    [ws, id, version],
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
  // An evaluation that blocks (nobody to send to, …) opens no dialog: its findings say why and what to do.
  const askLaunch = () =>
    action.run(async () => {
      const found = evaluation ?? (await evaluate());
      if (!launchBlock(found)) setLaunchAsk({ eligible: found.eligible });
    });

  const control = (verb: 'launch' | 'pause' | 'resume' | 'cancel', confirmRecipients: number | null = null) =>
    action.run(async () => {
      const current = c!;
      const body = verb === 'launch' ? { expected_version: current.version, confirm_recipients: confirmRecipients } : { expected_version: current.version };
      try {
        await unwrap(api.POST(`/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/${verb}`, { params: { path }, body }));
        // Launched: the recipients and reached counters take over from the evaluation's count.
        if (verb === 'launch') setEvaluation(undefined);
      } finally {
        await campaign.reload();
      }
    });

  if (!c) return campaign.error ? <ErrorNote error={campaign.error} /> : <Loading what="the campaign" />;
  const facts = CHANNEL_FACTS[c.channel];
  const draft = c.status === 'draft';
  const blocked = evaluation ? launchBlock(evaluation) : null;
  const zone = c.explanation?.time_zone ?? c.schedule.timezone;
  // The counters are a funnel (delivered within sent), so who was reached is everyone not queued.
  const reached = Math.max(0, c.recipients - (c.states?.queued ?? c.recipients));
  const chart = campaignChartData({
    channel: c.channel,
    recipients: c.recipients,
    launchedAt: c.launched_at,
    completedAt: FINISHED.has(c.status) ? (c.completed_at ?? c.updated_at ?? null) : null,
    states: c.states ?? {},
    timeline: timeline.data?.items ?? [],
    nowMs: Date.now(),
    eta: c.explanation?.state === 'sending' ? c.explanation.eta : null,
  });
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
          <CampaignStatus status={c.status} waitingUntil={c.waiting_until} timeZone={zone} />
        </dd>
        <dt>Channel</dt>
        <dd>
          <Said kind="campaignChannel" code={c.channel} />
        </dd>
        {/* The version is the controls' concurrency check, not something an operator reads: kept in the tooltip (issue 35 §7). */}
        <dt>Last changed</dt>
        <dd title={`version ${c.version}`} data-version={c.version}>
          <When at={c.updated_at} />
        </dd>
        {/* A draft has no recipients yet: its count is the evaluation's "N eligible of M matched". */}
        {draft ? null : (
          <>
            <dt>Recipients</dt>
            <dd data-testid="recipients">{c.recipients}</dd>
            <dt>Launched</dt>
            <dd>
              <When at={c.launched_at} />
            </dd>
            <dt>Completed</dt>
            <dd>
              <When at={c.completed_at} />
            </dd>
          </>
        )}
      </dl>

      <section aria-label="What it sends">
        <h2>What it sends and to whom</h2>
        {preview.data ? <PreviewView preview={preview.data} testId="campaign-preview" /> : preview.error ? <ErrorNote error={preview.error} /> : <Loading what="the message" />}
      </section>

      {c.explanation ? <ExplanationView explanation={c.explanation} /> : null}

      {draft ? null : (
        <section aria-label="Progress">
          <h2>Progress</h2>
          <p>
            Reached <strong data-testid="reached">{reached}</strong> of {c.recipients} recipients{' '}
            <progress max={Math.max(1, c.recipients)} value={reached} aria-label="Recipients reached" />
          </p>
          {facts.callsPeople ? (
            <ul class="counters" aria-label="Calls">
              {CALL_COUNTERS.map(([k, label]) => {
                const value = k === 'owed' ? c.explanation?.call_backs_owed : c.calls?.[k];
                return (
                  <li key={k}>
                    <span class="label">{label}</span>{' '}
                    <span class="value" data-counter={k}>
                      {value ?? '—'}
                    </span>
                  </li>
                );
              })}
            </ul>
          ) : (
            <ul class="counters" aria-label="Messages">
              {COUNTERS.map((k) => (
                <li key={k}>
                  <span class="label">{k}</span>{' '}
                  <span class="value" data-counter={k}>
                    {c[k]}
                  </span>
                </li>
              ))}
            </ul>
          )}
          {/* No chart until something happened: an axis of a few seconds for a run that starts tomorrow reads as progress. */}
          {chart.times.length > 1 && (reached > 0 || FINISHED.has(c.status)) ? (
            <TimeChart
              label={facts.chartLabel}
              times={chart.times}
              series={chart.series}
              timeZone={c.explanation?.time_zone ?? 'UTC'}
              yLabel="People"
              yMax={c.recipients}
            />
          ) : (
            <p class="muted">The chart starts when the first {facts.unit} goes.</p>
          )}
        </section>
      )}

      <section aria-label="Controls">
        <h2>Controls</h2>
        <div class="controls">
          {/* Evaluate counts who a launch would reach: only a draft is launched from a fresh count (a paused one resumes its staged people). */}
          {draft ? (
            <ActionButton action={action} run={evaluate}>
              Evaluate
            </ActionButton>
          ) : null}
          {/* The API's launch also resumes a paused campaign; the page offers one way for each state. */}
          {draft ? (
            <button type="button" disabled={action.busy || blocked !== null} aria-describedby={blocked ? 'launch-blocked' : undefined} onClick={() => void askLaunch()}>
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
          {draft ? (
            <Link to={`/w/${ws}/campaigns/${c.campaign_id}/edit`} class="button">
              Edit draft
            </Link>
          ) : null}
          {/* Any campaign: a new draft with its settings (the way to change what a launched one sends). */}
          <ActionButton
            action={action}
            run={async () => {
              const copy = await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/duplicate', { params: { path } }));
              navigate(`/w/${ws}/campaigns/${copy.campaign_id}`);
            }}
          >
            Duplicate
          </ActionButton>
          {FINISHED.has(c.status) && c.status !== 'archived' ? (
            <ActionButton
              action={action}
              run={async () => {
                await unwrap(api.POST('/console/v1/workspaces/{workspace_id}/campaigns/{campaign_id}/archive', { params: { path } }));
                await campaign.reload();
              }}
            >
              Archive
            </ActionButton>
          ) : null}
          {!FINISHED.has(c.status) ? (
            <button type="button" disabled={action.busy} onClick={() => setCancelAsk(true)}>
              Cancel campaign
            </button>
          ) : null}
        </div>
        {blocked ? (
          <p class="fix" id="launch-blocked" data-testid="launch-blocked">
            <strong>Launch is not possible:</strong> {blocked.message} {blocked.fix}
          </p>
        ) : null}
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
          {preview.data ? <PreviewView preview={preview.data} testId="launch-preview" /> : <Loading what="the message" />}
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
          <p>Everyone not yet {facts.done} is skipped, and the campaign cannot be started again.</p>
        </ConfirmDialog>
      ) : null}

      {evaluation && draft ? <EvaluationView evaluation={evaluation} /> : null}

      {draft ? null : <RecipientReport ws={ws} campaignId={c.campaign_id} />}
      {facts.callsPeople && !draft ? <OutcomeView ws={ws} campaign={c} /> : null}
    </>
  );
}

/** The finding that stops a launch (evaluate's first `block`, as launch refuses with it), or null. */
function launchBlock(evaluation: Evaluation): Evaluation['findings'][number] | null {
  return evaluation.findings.find((f) => f.severity === 'block') ?? null;
}

/** What the run is doing and why, as the server words it, with the fix when there is one. */
function ExplanationView({ explanation: e }: { explanation: NonNullable<RunExplanation> }) {
  const hours = `${String(e.window.start_hour).padStart(2, '0')}:00–${String(e.window.end_hour).padStart(2, '0')}:00`;
  return (
    <section aria-label="What is happening" class={`explanation explanation-${e.state}`} data-state={e.state}>
      <h2>What is happening</h2>
      <p class="headline" data-testid="run-explanation">
        {e.headline}
      </p>
      {e.details.length > 0 ? (
        <ul class="details">
          {e.details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      ) : null}
      {e.fix ? (
        <p class="fix" data-testid="run-fix">
          <strong>What to do:</strong> {e.fix}
          {e.docs ? (
            <>
              {' '}
              <a href={e.docs}>About {e.held_reason?.replace(/_/g, ' ') ?? 'this'}</a>
            </>
          ) : null}
        </p>
      ) : null}
      <dl class="facts">
        <dt>Throttle</dt>
        <dd>{e.throttle_per_minute} a minute</dd>
        <dt>Window</dt>
        <dd>
          {hours} {e.window.per_recipient_zone ? "in each person's zone" : e.window.time_zone}
          {e.window.opens_at ? ` (opens ${zoned(e.window.opens_at, e.time_zone)})` : e.window.open ? ' (open)' : ''}
        </dd>
        {e.eta ? (
          <>
            <dt>Finish estimate</dt>
            <dd data-testid="eta">
              {zoned(e.eta, e.time_zone)} <span class="muted">({e.time_zone})</span>
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

function EvaluationView({ evaluation }: { evaluation: Evaluation }) {
  return (
    <section aria-label="Evaluation">
      <h2>Evaluation</h2>
      <p>
        <strong data-testid="eligible">{evaluation.eligible}</strong> eligible of {evaluation.total_rows} matched.
      </p>
      {Object.keys(evaluation.excluded).length ? <Bars label="Excluded" counts={Object.entries(evaluation.excluded).map(([code, n]) => [say('exclusion', code), n])} /> : null}
      <ExcludedRows rows={evaluation.invalid_rows} total={Object.values(evaluation.excluded).reduce((a, b) => a + b, 0)} />
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
      {/* Nothing to report before the first call: no funnel of people merely staged, no empty headings. */}
      {r && !r.funnel.some((f) => f.stage !== 'staged' && f.count > 0) ? (
        <p class="muted" data-testid="no-outcomes">
          No calls yet: outcomes appear here after the first call.
        </p>
      ) : null}
      {r && r.funnel.some((f) => f.stage !== 'staged' && f.count > 0) ? (
        <>
          <dl class="facts">
            {Object.entries(r.totals).map(([k, n]) => (
              <Fragment key={k}>
                <dt>{k.replace(/_/g, ' ')}</dt>
                <dd>{n}</dd>
              </Fragment>
            ))}
          </dl>
          {/* Each stage as a share of the people to call; the first stage is those people, not a progress of 100%. */}
          <Bars label="Funnel" counts={r.funnel.map((f) => [f.stage === 'staged' ? 'to call' : `${f.stage} (${Math.round(f.rate * 100)}%)`, f.count])} />
          {Object.values(r.dispositions).some((n) => n > 0) ? <Bars label="Dispositions" counts={Object.entries(r.dispositions).filter(([, n]) => n > 0).map(([code, n]) => [say('disposition', code), n])} /> : null}
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
