import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../src/local/paths';
import { loadAverage } from './benchStats';
import { CALL_TARGETS, CAMPAIGN_TARGETS, FORGED_FORM_TARGETS, VOICE_TARGETS, WEBHOOK_TARGETS } from './targets';
import { benchTarget } from './clusterTarget';

/**
 * `npm run bench`: bench:api, bench:webhooks, bench:calls, bench:campaigns,
 * bench:voice-campaigns, bench:dues and bench:voice one after the other (each starts and stops its own
 * servers), then one screen that sets their figures against issues 13, 14, 15 and 28's targets (issue 16 names sizes, not targets: its rows are figures), with the CPU each process spent per unit of work and each rate as a share of
 * the bare-Koa reference bench:api measured in the same run. Each benchmark's own output
 * scrolls by first; their figures are read back from the files they write to .bench/.
 *
 * The webhook benchmark's paced phases run at issue 28's rates (bench/targets.ts) unless
 * BENCH_RATE and friends say otherwise; every BENCH_* and VOICE_BENCH_* variable passes through.
 * Under BENCH_TARGET=cluster only bench:calls and bench:campaigns run, against the running cluster.
 */

interface Step {
  name: string;
  script: string;
  figures: string;
  env?: Record<string, string>;
  /** Runs against a running cluster under BENCH_TARGET=cluster (bench/clusterTarget.ts); the others start servers of their own. */
  cluster?: boolean;
}

const STEPS: Step[] = [
  { name: 'bench:api', script: 'apiBench.js', figures: 'api' },
  { name: 'bench:webhooks', script: 'webhookBench.js', figures: 'webhooks' },
  { name: 'bench:calls', script: 'callBench.js', figures: 'calls', cluster: true },
  { name: 'bench:campaigns', script: 'campaignBench.js', figures: 'campaigns', cluster: true },
  { name: 'bench:voice-campaigns', script: 'voiceCampaignBench.js', figures: 'voice-campaigns' },
  { name: 'bench:dues', script: 'duesBench.js', figures: 'dues' },
  { name: 'bench:voice', script: 'voiceBench.js', figures: 'voice' },
];

/** A benchmark's JSON figures, read loosely: each benchmark owns its shape. */
type Figures = Record<string, any>;

function run(step: Step): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(__dirname, step.script)], { stdio: 'inherit', env: { ...process.env, ...step.env } });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** The newest figures file a benchmark wrote since `since` (ms), or null. */
function figuresSince(prefix: string, since: number): Figures | null {
  const dir = fromRoot('.bench');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.startsWith(`${prefix}-`) && f.endsWith('.json'));
  } catch {
    return null;
  }
  const fresh = files.map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs })).filter((x) => x.at >= since);
  fresh.sort((a, b) => b.at - a.at);
  return fresh[0] ? (JSON.parse(readFileSync(join(dir, fresh[0].f), 'utf8')) as Figures) : null;
}

const fmt = (n: number | null | undefined, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits));
/** `measured`: a figure the issue asks for without a target (issue 16's dues benchmark). */
const verdict = (ok: boolean | null | 'measured') => (ok === 'measured' ? 'measured' : ok === null ? 'no figure' : ok ? 'met' : 'NOT met');
const perUnitLine = (label: string, perUnit: Record<string, number | null> | undefined) =>
  perUnit ? `    CPU per ${label}: ${Object.entries(perUnit).map(([k, v]) => `${k} ${v === null ? '–' : v.toFixed(1)} ms`).join(', ')}` : '';

/** CPU ms per unit from the call bench's cost object (CPU seconds per process over a phase). */
function callCost(cost: Figures | undefined, units: number): Record<string, number | null> | undefined {
  if (!cost) return undefined;
  const { others_on_machine: _others, machine: _machine, ...cpu } = cost.cpu_seconds as Record<string, number>;
  // A role the cluster restarted during the phase was written as null: not measured, not 0.
  return Object.fromEntries(Object.entries(cpu).map(([k, s]) => [k, units > 0 && typeof s === 'number' ? Math.round((s / units) * 1e4) / 10 : null]));
}

async function main(): Promise<void> {
  const startedLoad = loadAverage();
  const results: { step: Step; code: number; figures: Figures | null; seconds: number }[] = [];
  const steps = benchTarget() === 'cluster' ? STEPS.filter((step) => step.cluster) : STEPS;
  if (steps.length < STEPS.length) {
    const left = STEPS.filter((step) => !step.cluster).map((step) => step.name);
    process.stdout.write(`BENCH_TARGET=cluster: ${steps.map((step) => step.name).join(' and ')} against the cluster; not run (they start servers of their own): ${left.join(', ')}\n`);
  }
  for (const step of steps) {
    process.stdout.write(`\n===== ${step.name} =====\n`);
    const since = Date.now();
    const code = await run(step);
    results.push({ step, code, figures: figuresSince(step.figures, since), seconds: (Date.now() - since) / 1000 });
  }

  const byName = Object.fromEntries(results.map((r) => [r.step.figures, r.figures]));
  /** name, measured, target, verdict, and the figure's rate per second to set beside bare Koa's (null: not a rate). */
  const rows: [string, string, string, boolean | null | 'measured', (number | null)?][] = [];
  const lines: string[] = [];
  const api = byName.api;
  const agents = api?.runs?.find((r: Figures) => r.path === '/api/v1/agents');
  const ping = api?.runs?.find((r: Figures) => r.path === '/api/v1/ping');
  const refusedNote = (run: Figures) => (run.non_2xx > 0 ? `, ${run.non_2xx} not 2xx` : '');
  rows.push([
    'bench:api keyed GET /agents, 50 conn',
    agents ? `${agents.requests_per_second} req/s, p99 ${agents.p99_ms} ms${refusedNote(agents)}` : '–',
    '≥ 1,000 req/s, p99 < 50 ms',
    agents ? agents.non_2xx === 0 && agents.requests_per_second >= 1000 && agents.p99_ms < 50 : null,
    agents?.requests_per_second ?? null,
  ]);
  rows.push([
    'bench:api keyed GET /ping',
    ping ? `${ping.requests_per_second} req/s, p99 ${ping.p99_ms} ms${refusedNote(ping)}` : '–',
    '≥ 2,000 req/s',
    ping ? ping.non_2xx === 0 && ping.requests_per_second >= 2000 : null,
    ping?.requests_per_second ?? null,
  ]);
  const forms = api?.forged_forms as Figures | undefined;
  rows.push([
    `bench:api ${FORGED_FORM_TARGETS.forms} forged 4 MB forms`,
    forms ? `event-loop stall worst ${fmt(forms.worst_ms)} ms of ${forms.rounds} rounds${forms.refused ? '' : ', not all refused 413'}` : '–',
    `< ${FORGED_FORM_TARGETS.stallMs} ms`,
    forms ? forms.met : null,
  ]);
  const hooks = byName.webhooks;
  rows.push([
    'bench:webhooks 500-event burst',
    hooks ? `${fmt(hooks.burst.deliveries_per_second, 1)} deliveries/s${hooks.burst.complete ? '' : ' (incomplete)'}` : '–',
    `≥ ${WEBHOOK_TARGETS.burstDeliveriesPerSecond} deliveries/s`,
    hooks ? hooks.burst.complete && hooks.burst.deliveries_per_second >= WEBHOOK_TARGETS.burstDeliveriesPerSecond : null,
    hooks?.burst.deliveries_per_second ?? null,
  ]);
  for (const [phase, label] of [['paced', 'paced, one endpoint'], ['paced_high', 'paced, one endpoint'], ['many_endpoints', 'paced, many endpoints']] as const) {
    const figures = hooks?.[phase];
    rows.push([
      `bench:webhooks ${label}`,
      figures ? `first attempt p99 ${fmt(figures.first_attempt_p99_ms)} ms at ${figures.events_per_second} events/s to ${figures.endpoints} endpoint(s)${figures.complete ? '' : ' (incomplete)'}` : '–',
      `p99 < ${WEBHOOK_TARGETS.firstAttemptP99Ms} ms`,
      figures ? figures.complete && figures.first_attempt_p99_ms < WEBHOOK_TARGETS.firstAttemptP99Ms : null,
    ]);
  }
  const calls = byName.calls;
  rows.push([
    'bench:calls hold phase',
    calls ? `${fmt(calls.hold.placements_per_second, 1)} placements/s` : '–',
    `≥ ${CALL_TARGETS.holdPlacementsPerSecond} placements/s`,
    calls ? calls.hold.placements_per_second >= CALL_TARGETS.holdPlacementsPerSecond : null,
    calls?.hold.placements_per_second ?? null,
  ]);
  // Issue 28: hang-up → decided under the sustained load is the probes' figure; the hang-up phase's is beside it.
  const probeP99 = calls?.sustained.probes.ready_ms.p99 ?? null;
  const hangupP99 = calls?.hangup.ready_ms.p99 ?? null;
  rows.push([
    'bench:calls sustained closed loop',
    calls ? `${fmt(calls.sustained.placements_per_second, 1)} calls/s; hang-up → decided p99 ${fmt(probeP99)} ms under it (${fmt(hangupP99)} ms in the hang-up phase)` : '–',
    `≥ ${CALL_TARGETS.sustainedCallsPerSecond} calls/s; p99 < ${CALL_TARGETS.readyP99Ms / 1000} s`,
    calls
      ? calls.sustained.placements_per_second >= CALL_TARGETS.sustainedCallsPerSecond &&
        probeP99 !== null && probeP99 < CALL_TARGETS.readyP99Ms &&
        hangupP99 !== null && hangupP99 < CALL_TARGETS.readyP99Ms
      : null,
    calls?.sustained.placements_per_second ?? null,
  ]);
  // Issue 36 §3: a whole call's CPU and its workflow's history events (older result files have neither).
  const callCpu = (calls?.targets?.cpu_ms_per_call?.value as number | null | undefined) ?? null;
  const callEvents = (calls?.targets?.history_events_per_call?.value as number | null | undefined) ?? null;
  rows.push([
    'bench:calls cost per call',
    calls ? `${fmt(callCpu)} ms CPU; ${fmt(callEvents)} history events (p50)` : '–',
    `≤ ${CALL_TARGETS.cpuPerCallMs} ms CPU, ≤ ${CALL_TARGETS.historyEventsPerCall} events`,
    callCpu !== null && callEvents !== null ? callCpu <= CALL_TARGETS.cpuPerCallMs && callEvents <= CALL_TARGETS.historyEventsPerCall : null,
  ]);

  const campaigns = byName.campaigns;
  const campaignCpu = (c: Figures) => (c.burst.cpu_ms_per_send_total as number | null | undefined) ?? Object.values(c.burst.cpu_ms_per_send as Record<string, number>).reduce((a, b) => a + b, 0);
  rows.push([
    'bench:campaigns 10 × 2,000 at 600/min',
    campaigns
      ? `${fmt(campaigns.burst.sends_per_second, 1)} sends/s of a ${campaigns.burst.cap_per_second}/s cap (per 10 s ${fmt(campaigns.burst.per_10s_min, 1)}–${fmt(campaigns.burst.per_10s_max, 1)}), ${fmt(campaignCpu(campaigns), 1)} ms CPU/send${campaigns.burst.complete ? '' : ' (timed out)'}`
      : '–',
    `≥ ${CAMPAIGN_TARGETS.shareOfCap * 100} % of the cap, ≤ ${CAMPAIGN_TARGETS.cpuMsPerSend} ms CPU/send`,
    campaigns
      ? campaigns.burst.complete && campaigns.burst.sends_per_second >= CAMPAIGN_TARGETS.shareOfCap * campaigns.burst.cap_per_second && campaignCpu(campaigns) <= CAMPAIGN_TARGETS.cpuMsPerSend
      : null,
    campaigns?.burst.sends_per_second ?? null,
  ]);
  rows.push([
    'bench:campaigns 50,000: evaluate, launch',
    campaigns ? `${fmt(campaigns.large.evaluate_ms / 1000, 1)} s, ${fmt(campaigns.large.launch_ms / 1000, 1)} s; worker peak ${campaigns.large.worker_peak_mb} MB` : '–',
    '< 10 s each',
    campaigns ? campaigns.large.evaluate_ms < 10_000 && campaigns.large.launch_ms < 10_000 : null,
  ]);

  const voice = byName['voice-campaigns'];
  rows.push([
    `bench:voice-campaigns ${voice ? voice.settings.recipients : '1,000'} calls`,
    voice ? `${fmt(voice.run.placed_per_second, 2)} placed/s; live-call bound ${fmt(voice.run.bound_per_second, 2)}/s${voice.run.complete ? '' : ' (timed out)'}` : '–',
    '≥ 90 % of 10 / mean call',
    voice ? voice.run.bound_per_second !== null && voice.run.placed_per_second >= 0.9 * voice.run.bound_per_second : null,
    voice?.run.placed_per_second ?? null,
  ]);
  const slowestMs = (values: number[]) => (values.length ? Math.max(...values) : null);
  const large = voice?.report_large as Figures | undefined;
  rows.push([
    `bench:voice-campaigns report+CSV ${large ? large.recipients : '50,000'}`,
    large
      ? `outcomes ${fmt(slowestMs(large.report_ms))} ms, CSV ${fmt(slowestMs(large.csv_ms))} ms${large.refused.length ? `, ${large.refused.length} refused` : ''} (staged in the db)`
      : '–',
    '< 2 s',
    large ? large.refused.length === 0 && (slowestMs([...large.report_ms, ...large.csv_ms]) ?? Infinity) < 2_000 : null,
  ]);

  const dues = byName.dues;
  rows.push([
    `bench:dues ${dues ? dues.creates.created : '10,000'} subscribers via the API`,
    dues ? `${fmt(dues.creates.creates_per_second, 1)} creates/s, p99 ${fmt(dues.creates.latency_ms.p99)} ms` : '–',
    'figures (no target)',
    dues ? 'measured' : null,
    dues?.creates.creates_per_second ?? null,
  ]);
  rows.push([
    'bench:dues chases started',
    dues
      ? `${dues.chases.chases_planned} chases planned in ${fmt(dues.chases.seconds_to_settled, 0)} s; ${fmt(dues.chases.history_events_per_chase.mean, 0)} events/chase${dues.chases.settled ? '' : ' (incomplete)'}`
      : '–',
    'figures (no target)',
    dues ? 'measured' : null,
  ]);

  const bridge = byName.voice;
  const widest = bridge?.steps?.find((s: Figures) => s.calls === bridge.most_calls_within_target) as Figures | undefined;
  rows.push([
    'bench:voice media bridge, live calls',
    bridge
      ? `${bridge.most_calls_within_target} calls held; p99 ${fmt(widest?.added_p99_ms, 1)} ms added, ${fmt(widest?.media_cpu_ms_per_call_minute)} ms CPU per call-minute`
      : '–',
    `≥ ${VOICE_TARGETS.calls} calls, p99 < ${VOICE_TARGETS.p99AddedMs} ms`,
    bridge ? bridge.most_calls_within_target >= VOICE_TARGETS.calls : null,
  ]);

  // Issue 28: every rate beside the bare-Koa reference bench:api measured in this same run, so
  // a reader sees how far each path is from the framework's own ceiling on this machine today.
  const bare = (api?.bare_requests_per_second as number | undefined) ?? null;
  const ofBare = (rate: number | null | undefined) => (rate === null || rate === undefined || bare === null || bare <= 0 ? '–' : `${((rate / bare) * 100).toPrecision(2)} %`);
  const w = [38, 52, 28, 10];
  lines.push('', '===== summary against issues 13 to 15’s and 28’s targets (and issue 16’s figures) =====');
  lines.push(`bare Koa reference, measured by bench:api in this run: ${bare === null ? '– (bench:api wrote no figure)' : `${bare} req/s`}`);
  lines.push(`${'benchmark'.padEnd(w[0]!)} ${'measured'.padEnd(w[1]!)} ${'target'.padEnd(w[2]!)} ${'of bare'.padEnd(w[3]!)} verdict`);
  for (const [name, got, target, ok, rate] of rows) lines.push(`${name.padEnd(w[0]!)} ${got.padEnd(w[1]!)} ${target.padEnd(w[2]!)} ${ofBare(rate).padEnd(w[3]!)} ${verdict(ok)}`);
  lines.push('CPU per unit of work, per process (bench = the load generator, and the simulated receiver for webhooks):');
  if (agents) lines.push(perUnitLine('GET /agents', agents.cpu_ms_per_request));
  if (ping) lines.push(perUnitLine('GET /ping', ping.cpu_ms_per_request));
  if (hooks) lines.push(perUnitLine('delivery (burst)', hooks.burst.cpu_ms_per_delivery), perUnitLine('delivery (paced)', hooks.paced.cpu_ms_per_delivery));
  if (calls) {
    lines.push(perUnitLine('call placed (hold)', callCost(calls.hold.cost, calls.hold.placements)));
    lines.push(perUnitLine('call (sustained)', callCost(calls.sustained.cost, calls.sustained.placements)));
    lines.push('    (the simulated callee timers and the reader run inside the worker; simulated WhatsApp statuses in the process that accepted the message)');
  }
  if (campaigns) lines.push(perUnitLine('campaign send', campaigns.burst.cpu_ms_per_send));
  if (voice) lines.push(perUnitLine('campaign call', voice.run.cpu_ms_per_call));
  if (dues) lines.push(perUnitLine('dues subscriber create', dues.creates.cpu_ms_per_create), perUnitLine('dues chase (create to planned)', dues.chases.cpu_ms_per_chase));
  for (const r of results) {
    const other = r.figures ? otherLoad(r.figures) : null;
    lines.push(`${r.step.name}: exit ${r.code}, ${r.seconds.toFixed(0)} s${other ? `, ${other}` : ''}${r.figures ? '' : ' — no figures written'}`);
  }
  lines.push(`load average before ${startedLoad}, after ${loadAverage()} (2 cores; other work on the machine counts against every figure)`);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (results.some((r) => r.code !== 0)) process.exitCode = 1;
}

/** Other processes' busy CPU during a benchmark's measured phases, as its figures report it. */
function otherLoad(f: Figures): string | null {
  const phases: Figures[] = [...(f.runs ?? []).map((r: Figures) => r.cpu), ...(f.steps ?? []).map((s: Figures) => ({ seconds: s.seconds, others_on_machine: s.others_on_machine_cpu_seconds })), f.burst?.cpu, f.paced?.cpu, f.hold?.cost, f.sustained?.cost, f.run?.cpu, f.report_large?.cpu, f.chases?.cpu].filter(Boolean);
  if (phases.length === 0) return null;
  const others = phases.reduce((sum, p) => sum + (p.others_on_machine ?? p.cpu_seconds?.others_on_machine ?? 0), 0);
  const seconds = phases.reduce((sum, p) => sum + (p.seconds ?? 0), 0);
  return `other processes used ${others.toFixed(1)} CPU-s in its ${seconds.toFixed(0)} measured s`;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
