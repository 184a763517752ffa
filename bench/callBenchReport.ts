import { formatDistribution, type Distribution } from './benchStats';
import type { FootprintSummary } from './callHistory';
import { TEMPORAL_MINIMUM } from './targets';
import { formatUnitCost } from './workflowCost';
import { formatProfile, type ProfileSummary } from './cpuProfileSummary';

/** The figures `npm run bench:calls` prints, as text for a person (the JSON file has them all). */

interface Cost {
  seconds: number;
  /** Embedded: api, worker, ferretdb, temporal; BENCH_TARGET=cluster: one per role (bench/clusterTarget.ts). Then bench, machine, others_on_machine. */
  cpu_seconds: Record<string, number>;
  load_average_after: string;
  /** Processes replaced during the phase (cluster): their role's figure is null. */
  restarted?: string[];
}

interface Target {
  target: number;
  value: number | null;
  met: boolean;
}

export interface CallBenchFigures {
  target: 'embedded' | 'cluster';
  settings: { workspaces: number; seconds: number; pollMs: number; hangupsPerSecond: number; probes: number };
  hold: { placements: number; placements_per_second: number; seconds: number; post_latency_ms: Distribution; all_answered_after_seconds: number | null; refused: Record<string, number>; errors: number; first_error: string | null; cost: Cost };
  hangup: { poll_every: number; ready_ms: Distribution; result_written_ms: Distribution; ended_ms: Distribution; hangup_post_ms: Distribution; states: Record<string, number>; errors: string[]; error_count: number; cost: Cost };
  sustained: {
    placements_per_second: number;
    placements: number;
    per_second_series: number[];
    post_latency_ms: Distribution;
    refused: Record<string, number>;
    errors: number;
    first_error: string | null;
    results_ready_per_second: number;
    lanes: number;
    seen_decided_per_second: number;
    placed_to_seen_decided_ms: Distribution;
    all_decided_seconds_after_load: number;
    pending_left: number;
    result_states: Record<string, number>;
    dispositions: Record<string, number>;
    outcomes: Record<string, number>;
    ended_to_result_written_ms: Distribution;
    probes: { ready_ms: Distribution; ended_ms: Distribution; states: Record<string, number>; errors: string[] };
    cost: Cost;
  };
  idle: { ready_ms: Distribution; ended_ms: Distribution; states: Record<string, number>; errors: string[] };
  engine: { per_call: FootprintSummary; workflows_in_run: Record<string, number | null> };
  targets: Record<'hold_placements_per_second' | 'sustained_placements_per_second' | 'hangup_ready_p99_ms' | 'probe_ready_p99_ms_under_load' | 'cpu_ms_per_call' | 'history_events_per_call', Target>;
  profiles: Record<string, Record<string, ProfileSummary[]>>;
}

const met = (t: Target, unit: string, op: string) => `target ${op} ${t.target}${unit}: ${t.met ? 'met' : 'NOT met'}`;

/** CPU of each process in a phase, and per call of the phase (its placements, or its hang-ups). */
const PROCESS_LABELS: Record<string, string> = { ferretdb: 'FerretDB', temporal: 'Temporal', postgresql: 'PostgreSQL' };
const NOT_PROCESSES = new Set(['bench', 'machine', 'others_on_machine']);

function costLine(cost: Cost, calls: number): string {
  const c = cost.cpu_seconds;
  const per = (s: number | null) => (calls > 0 && s !== null && Number.isFinite(s) ? ` (${((s / calls) * 1000).toFixed(0)} ms/call)` : '');
  const processes = Object.keys(c).filter((k) => !NOT_PROCESSES.has(k)).map((k) => `${PROCESS_LABELS[k] ?? k} ${c[k] ?? 'NOT MEASURED'}${per(c[k] ?? null)}`);
  return (
    `   CPU s in ${cost.seconds} s on 2 cores: ${processes.join(', ')}, bench client ${c.bench}; other processes on the machine ${c.others_on_machine}; load average after ${cost.load_average_after}` +
    (cost.restarted ? `; restarted meanwhile (not measured): ${cost.restarted.join(', ')}` : '')
  );
}

export function formatReport(r: CallBenchFigures): string {
  const lines: string[] = [''];
  const add = (line: string) => lines.push(line);
  const h = r.hold;
  add(`1. hold       ${h.placements_per_second} placements/s: ${h.placements} calls that stay up placed in ${h.seconds} s across ${r.settings.workspaces} workspaces   ${met(r.targets.hold_placements_per_second, '/s', '≥')}`);
  add(`   POST /calls ${formatDistribution(h.post_latency_ms)}; all answered ${h.all_answered_after_seconds ?? '(not all)'} s after the first POST; refused ${JSON.stringify(h.refused)}; errors ${h.errors}${h.first_error ? ` (${h.first_error})` : ''}`);
  add(costLine(h.cost, h.placements));
  const g = r.hangup;
  add(`2. hang-up    ${r.settings.hangupsPerSecond} hang-ups/s; 1 in ${g.poll_every} polled every ${r.settings.pollMs} ms: hang-up → result decided ${formatDistribution(g.ready_ms)}   ${met(r.targets.hangup_ready_p99_ms, ' ms', 'p99 <')}`);
  add(`   every call, hang-up sent → result written (read model) ${formatDistribution(g.result_written_ms)}`);
  add(`   polled: seen completed ${formatDistribution(g.ended_ms)}; POST hangup ${formatDistribution(g.hangup_post_ms)}; results ${JSON.stringify(g.states)}; errors ${g.error_count}${g.errors[0] ? ` (${g.errors[0]})` : ''}`);
  add(costLine(g.cost, g.result_written_ms.count));
  const s = r.sustained;
  add(`3. sustained  ${s.placements_per_second} placements/s over ${r.settings.seconds} s with ${s.lanes} clients each placing a call and polling it to its result (${s.placements} calls; per second ${s.per_second_series.join(' ')})   ${met(r.targets.sustained_placements_per_second, '/s', '≥')}`);
  add(`   POST /calls ${formatDistribution(s.post_latency_ms)}; refused ${JSON.stringify(s.refused)}; errors ${s.errors}${s.first_error ? ` (${s.first_error})` : ''}`);
  add(`   placed → result seen decided ${formatDistribution(s.placed_to_seen_decided_ms)}; ${s.seen_decided_per_second} seen decided/s, ${s.results_ready_per_second} results written ready/s in the window`);
  add(`   every call decided ${s.all_decided_seconds_after_load} s after the load (pending left ${s.pending_left}); results ${JSON.stringify(s.result_states)} ${JSON.stringify(s.dispositions)}; outcomes ${JSON.stringify(s.outcomes)}`);
  add(`   ended → result written (read-model times) ${formatDistribution(s.ended_to_result_written_ms)}`);
  add(`   probes: hang-up → result decided ${formatDistribution(s.probes.ready_ms)}   ${met(r.targets.probe_ready_p99_ms_under_load, ' ms', 'p99 <')}`);
  add(`           seen completed ${formatDistribution(s.probes.ended_ms)}; results ${JSON.stringify(s.probes.states)}${s.probes.errors.length ? `; errors ${JSON.stringify(s.probes.errors)}` : ''}`);
  add(costLine(s.cost, s.placements));
  add(`   a whole call: ${r.targets.cpu_ms_per_call.value ?? '—'} ms of CPU (${r.target === 'cluster' ? 'every cluster process' : 'API + worker + FerretDB + Temporal'})   ${met(r.targets.cpu_ms_per_call, ' ms', '≤')}`);
  add(`4. idle       probes alone: hang-up → result decided ${formatDistribution(r.idle.ready_ms)}; seen completed ${formatDistribution(r.idle.ended_ms)}; results ${JSON.stringify(r.idle.states)}${r.idle.errors.length ? `; errors ${JSON.stringify(r.idle.errors)}` : ''}`);
  const f = r.engine.per_call;
  add(`per call (history of ${f.sampled} sampled calls: the call workflow, its simulated callee's workflow (none with VOICE_SIMULATOR=timers, the default), one fan-out workflow per event)`);
  add(`   history events: call workflow ${formatDistribution(f.callHistoryEvents, 'events')}   ${met(r.targets.history_events_per_call, ' events (p50)', '≤')}`);
  add(`                   callee ${formatDistribution(f.calleeHistoryEvents, 'events')}; each fan-out ${formatDistribution(f.dispatchHistoryEvents, 'events')}`);
  add(`                   all workflows of a call ${formatDistribution(f.historyEventsPerCall, 'events')}`);
  add(`   ${formatUnitCost('call (p50)', { events: f.historyEventsPerCall.p50 ?? 0, actions: f.actionsPerCall.p50 ?? 0 }, TEMPORAL_MINIMUM.call)}`);
  add(`   workflows per call ${formatDistribution(f.workflowsPerCall, '')}; activity tasks ${formatDistribution(f.activitiesPerCall, '')}; local activities ${formatDistribution(f.localActivitiesPerCall, '')}`);
  add(`   the call workflow's own activities (count: calls) ${JSON.stringify(f.callActivities)}; workflows in the run ${JSON.stringify(r.engine.workflows_in_run)}`);
  for (const [phase, processes] of Object.entries(r.profiles)) {
    add(`CPU profile, ${phase}:`);
    for (const [name, list] of Object.entries(processes)) for (const p of list) add(formatProfile(name, p));
  }
  return lines.join('\n');
}
