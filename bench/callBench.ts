import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import type { Collection, Db, Filter } from 'mongodb';
import { KeyStore } from '../src/auth/keyStore';
import { callCollections, type CallDoc } from '../src/calls/callStore';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { fromRoot } from '../src/local/paths';
import { cpuSeconds, distribution, loadAverage, machineBusySeconds, sleep, treeCpuSeconds } from './benchStats';
import { callFootprints, lastEvents, summariseFootprints, workflowCounts } from './callHistory';
import { formatReport } from './callBenchReport';
import { hangUpAll, holdCalls, runLifecycles, runProbe, request, type BenchWorkspace } from './callLoad';
import { summariseProfiles, type ProfileSummary, type ProfileWindow } from './cpuProfileSummary';
import { BENCH_CONSOLE_TOKEN, startEmbeddedSystem } from './embeddedSystem';
import { readClusterState } from '../src/local/cluster/clusterState';
import { attachCluster, benchTarget, clusterStateFile, markClusterCpu, refuseSettingsOnCluster, roleCpuBetween } from './clusterTarget';
import { CALL_TARGETS, TEMPORAL_MINIMUM } from './targets';

/**
 * `npm run bench:calls` (issue 4, item 8): how fast calls are placed across many
 * workspaces with the simulated callee answering at once, and how long a hang-up takes to
 * give a decided `result.state` with the simulated reader. Runs on the embedded defaults
 * (FerretDB on SQLite and the Temporal dev server, their files in a temporary directory on
 * disk) with the API and the worker as the same child processes `npm start` runs; the
 * client is this process. Loopback only; bounded in time (BENCH_MAX_SECONDS for the whole
 * run) and in calls (the workspaces' live places and daily budgets); stops by itself.
 * Prints the figures and writes them to .bench/calls-<time>.json.
 *
 * 1. hold: placers place calls scripted to answer and stay up, round robin over the
 *    workspaces, until BENCH_HOLD_CALLS are up (or every workspace holds its ten): the
 *    placement rate with no call ending meanwhile.
 * 2. hang-up: those calls are hung up, BENCH_HANGUPS_PER_SECOND a second; one in
 *    BENCH_POLL_EVERY is polled with GET /calls/{id} every 50 ms until its result is decided
 *    (what a client sees), and for every call the read model says when its result was
 *    written (what the system did, without the polling's own load).
 * 3. sustained: BENCH_LANES clients, spread over the workspaces, each place a call
 *    scripted to answer, talk for about two seconds and hang up, poll it every second (the
 *    contract advises every few seconds) until its result is decided, and place the next:
 *    a closed loop, so the rate is what the whole system (placement, call, reading) keeps
 *    up with. Beside them, probes in workspaces of
 *    their own place a call that stays up, hang it up once connected and poll as in 2.
 * 4. idle: the probes again, alone.
 * Then every call's result is awaited, and the histories of a sample of calls are read.
 *
 * BENCH_WORKSPACES (20), BENCH_KEYS (8 per workspace), BENCH_CONNECTIONS (32 placers in
 * 1), BENCH_HOLD_CALLS (60), BENCH_HOLD_SECONDS (30 at most), BENCH_HANGUPS_PER_SECOND (5),
 * BENCH_POLL_EVERY (3), BENCH_LANES (40 clients in 3), BENCH_SECONDS (20 measured) after
 * BENCH_WARMUP_SECONDS (5), BENCH_PROBES (4), BENCH_IDLE_SAMPLES (4 per probe), BENCH_HISTORY_SAMPLE (24 calls), BENCH_CPU_PROF (1: profile the API and the worker
 * and summarise each phase), BENCH_DATA_DIR (where the servers keep their files; default a
 * new directory under the system's temporary directory), BENCH_FERRETDB_BINARY (another
 * FerretDB build to compare with), BENCH_MAX_SECONDS (300).
 *
 * BENCH_TARGET=cluster (bench/clusterTarget.ts): the same phases against a running
 * `npm run start:cluster`, through its balancer, with workspaces of this run's own ids; CPU
 * per role of every cluster process (API ×2 summed, worker ×2, media, FerretDB, PostgreSQL,
 * Temporal's four services). BENCH_CPU_PROF, BENCH_DATA_DIR and BENCH_FERRETDB_BINARY need
 * the bench's own servers and are refused there.
 */

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const settings = {
  workspaces: env('BENCH_WORKSPACES', 20),
  keysPerWorkspace: env('BENCH_KEYS', 8),
  connections: env('BENCH_CONNECTIONS', 32),
  lanes: env('BENCH_LANES', 40),
  /** How often a sustained-phase client polls its call (the hang-up figures poll every 50 ms). */
  lanePollMs: 1_000,
  holdCalls: env('BENCH_HOLD_CALLS', 60),
  holdSeconds: env('BENCH_HOLD_SECONDS', 30),
  hangupsPerSecond: env('BENCH_HANGUPS_PER_SECOND', 5),
  pollEvery: env('BENCH_POLL_EVERY', 3),
  seconds: env('BENCH_SECONDS', 20),
  warmupSeconds: env('BENCH_WARMUP_SECONDS', 5),
  probes: env('BENCH_PROBES', 4),
  idleSamples: env('BENCH_IDLE_SAMPLES', 4),
  historySample: env('BENCH_HISTORY_SAMPLE', 24),
  maxSeconds: env('BENCH_MAX_SECONDS', 300),
  cpuProfile: process.env.BENCH_CPU_PROF === '1',
  dataDir: process.env.BENCH_DATA_DIR ?? null,
  /** Another FerretDB build to compare with (the default is the one scripts/setup-tools.sh built). */
  ferretDbBinary: process.env.BENCH_FERRETDB_BINARY ?? null,
  pollMs: 50,
  /** How long a probe call stays connected before the hang-up: long enough for every answer. */
  connectedMs: 1_500,
  drainTimeoutMs: 45_000,
};

const HOLD_DESTINATION = '+919811100002';
const CYCLE_DESTINATION = '+919811100001';

/** Answers at once and stays on the line until hung up. */
const HOLD_SCRIPT = { ring_seconds: 0, seconds_per_turn: 0.1, end: 'never' };
/** Answers at once, talks through the capture in about two seconds, and the person hangs up. */
const CYCLE_SCRIPT = { ring_seconds: 0, seconds_per_turn: 0.1, end: 'caller_hangup' };

/** A call as an integrator would place it: a purpose and a three-field capture for the reader. */
function callBody(to: string): Record<string, unknown> {
  return {
    to,
    purpose: 'confirming tomorrow’s delivery',
    capture: {
      goal: 'Confirm the delivery slot',
      fields: [
        { label: 'Is someone home?', type: 'yes_no', required: true },
        { label: 'Preferred slot', type: 'choice', options: ['Morning', 'Evening'] },
        { label: 'Rating', type: 'rating' },
      ],
      success: { field: 'is_someone_home', equals: 'yes' },
    },
  };
}

const say = (line = '') => process.stdout.write(`${line}\n`);

async function seedWorkspaces(db: Db, prefix: string, count: number, keysEach: number): Promise<BenchWorkspace[]> {
  const keyStore = new KeyStore(db);
  const out: BenchWorkspace[] = [];
  for (let w = 0; w < count; w++) {
    const id = `${prefix}_${w}`;
    const seeded = await seedDemoWorkspace(db, { workspaceId: id, name: id, environment: 'test' });
    const keys = [seeded.apiKey];
    for (let k = 1; k < keysEach; k++) keys.push((await keyStore.create(id, ['calls:write'], 'test')).plaintext);
    out.push({ id, keys, exhausted: false });
  }
  return out;
}

/** CPU seconds per process (embedded: api, worker, ferretdb, temporal; cluster: one per role), plus `bench` and `machine`. */
type ProcessCpu = Record<string, number>;
/** Not one of the system's processes: left out of a call's CPU. */
const NOT_THE_SYSTEM = new Set(['bench', 'machine', 'others_on_machine']);

/** What one phase cost: wall time, CPU per process, and its stretch of monotonic time for the profiles. */
export interface PhaseCost {
  seconds: number;
  cpu_seconds: ProcessCpu & { others_on_machine: number };
  load_average_after: string;
  window: ProfileWindow;
  /** BENCH_TARGET=cluster: processes replaced during the phase (their role's CPU is NaN, written as null). */
  restarted?: string[];
}

async function main(): Promise<void> {
  let current = 'set-up';
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench:calls stopped during ${current}: over BENCH_MAX_SECONDS (${settings.maxSeconds} s)\n`);
    void stopAll().finally(() => process.exit(1));
  }, settings.maxSeconds * 1000);
  const benchDir = fromRoot('.bench');
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const profileDir = join(benchDir, `profiles-${stamp}`);
  let stopSystem: (() => Promise<void>) | null = null;
  const stopAll = async () => stopSystem?.();

  try {
    const t0 = performance.now();
    const onCluster = benchTarget() === 'cluster';
    if (onCluster) {
      refuseSettingsOnCluster('bench:calls', {
        BENCH_CPU_PROF: "--cpu-prof profiles need the API and the worker started by the bench",
        BENCH_DATA_DIR: 'the cluster keeps its files in its own DATA_DIR',
        BENCH_FERRETDB_BINARY: 'the cluster runs the FerretDB it was started with',
      });
    }
    const system = onCluster ? await attachClusterForCalls() : await startEmbeddedSystem({
      name: 'bench-calls',
      parentDir: settings.dataDir,
      serversInTurn: true,
      ferretDbBinary: settings.ferretDbBinary,
      cpuProfiles: settings.cpuProfile ? { dir: profileDir, processes: ['worker', 'api'] } : null,
      apiReadyMs: 30_000,
      temporalClient: true,
      // The workspaces are in the database before the worker and the API start.
      seed: async (db) => ({
        load: await seedWorkspaces(db, 'ws_callbench', settings.workspaces, settings.keysPerWorkspace),
        // A probe polls every 50 ms; 20 keys at 120 requests a minute each keep it under the rate limit.
        probes: await seedWorkspaces(db, 'ws_callprobe', settings.probes, 20),
      }),
      onStop: (stop) => (stopSystem = stop),
    });
    if (onCluster) stopSystem = () => system.stop();
    const { db } = system;
    const base = system.base!;
    const consoleToken = 'consoleToken' in system ? system.consoleToken : BENCH_CONSOLE_TOKEN;
    const temporalClient = system.temporalClient!;
    const { load: loadWorkspaces, probes: probeWorkspaces } = system.seeded;
    // On a cluster other runs' calls share the store: every count is of this run's workspaces.
    const ours = onCluster ? { tenant_id: { $in: [...loadWorkspaces, ...probeWorkspaces].map((ws) => ws.id) } } : {};

    for (const [workspaces, destination, script] of [
      [loadWorkspaces, HOLD_DESTINATION, HOLD_SCRIPT],
      [loadWorkspaces, CYCLE_DESTINATION, CYCLE_SCRIPT],
      [probeWorkspaces, HOLD_DESTINATION, HOLD_SCRIPT],
    ] as const) {
      for (const ws of workspaces) {
        const res = await request(base, 'PUT', `/console/v1/workspaces/${ws.id}/simulator/calls/${encodeURIComponent(destination)}`, consoleToken, script);
        if (res.status !== 200) throw new Error(`scripting ${ws.id}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    const setupSeconds = (performance.now() - t0) / 1000;
    say(
      `bench:calls — ${settings.workspaces} workspaces × ${settings.keysPerWorkspace} keys, ${settings.connections} placers, ${settings.probes} probes; ` +
        ('describe' in system
          ? system.describe
          : `API and worker as child processes; FerretDB (SQLite) and the Temporal dev server with their files in ${system.dir}`) +
        `; set-up ${setupSeconds.toFixed(1)} s; load average ${loadAverage()}`,
    );

    const embeddedSnapshot = (pids: Record<'api' | 'worker' | 'ferretdb' | 'temporal', number>): ProcessCpu => {
      const own = process.cpuUsage();
      return {
        api: cpuSeconds(pids.api),
        worker: treeCpuSeconds(pids.worker),
        ferretdb: treeCpuSeconds(pids.ferretdb),
        temporal: treeCpuSeconds(pids.temporal),
        bench: (own.user + own.system) / 1e6,
        machine: machineBusySeconds(),
      };
    };
    const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
    type Mark = { cpu: ProcessCpu; cluster: ReturnType<typeof markClusterCpu> | null; at: number; us: number };
    const markNow = (): Mark =>
      'stateFile' in system
        ? { cpu: {}, cluster: markClusterCpu(system.stateFile), at: performance.now(), us: monotonicUs() }
        : { cpu: embeddedSnapshot(system.pids as Record<'api' | 'worker' | 'ferretdb' | 'temporal', number>), cluster: null, at: performance.now(), us: monotonicUs() };
    /** CPU seconds per process between two marks; on the cluster per role, NaN for a role whose process was replaced meanwhile. */
    const cpuBetween = (from: Mark, end: Mark): { cpu: ProcessCpu; restarted: string[] } => {
      if (!from.cluster || !end.cluster) return { cpu: Object.fromEntries(Object.keys(end.cpu).map((k) => [k, round1(end.cpu[k]! - from.cpu[k]!)])), restarted: [] };
      const { cpu, restarted } = roleCpuBetween(from.cluster, end.cluster);
      return {
        cpu: { ...Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, round1(v)])), bench: round1(end.cluster.bench - from.cluster.bench), machine: round1(end.cluster.machine - from.cluster.machine) },
        restarted,
      };
    };
    /** Runs `body` and measures it; `mark(from|to)` narrows the measured stretch to part of it. */
    const phase = async <T>(body: (mark: (edge: 'from' | 'to') => void) => Promise<T>): Promise<[T, PhaseCost]> => {
      let from = markNow();
      let to: Mark | null = null;
      const value = await body((edge) => {
        const now = markNow();
        if (edge === 'from') from = now;
        else to = now;
      });
      const end = to ?? markNow();
      const { cpu, restarted } = cpuBetween(from, end);
      const measured = Object.entries(cpu).reduce((sum, [k, v]) => sum + (k === 'machine' || !Number.isFinite(v) ? 0 : v), 0);
      return [
        value,
        {
          seconds: round1((end.at - from.at) / 1000),
          cpu_seconds: { ...cpu, others_on_machine: round1(cpu.machine! - measured) },
          load_average_after: loadAverage(),
          window: { fromUs: from.us, toUs: end.us },
          ...(restarted.length > 0 ? { restarted } : {}),
        },
      ];
    };
    const start = performance.now();
    const clock = () => performance.now() - start;
    const { calls } = callCollections(db);

    // 1. hold: calls that stay up, until every workspace holds ten.
    say('1. hold …');
    current = '1. hold';
    const [held, holdCost] = await phase(() =>
      holdCalls({
        base,
        workspaces: loadWorkspaces,
        connections: settings.connections,
        clock,
        untilMs: clock() + settings.holdSeconds * 1000,
        maxCalls: settings.holdCalls,
        body: callBody(HOLD_DESTINATION),
      }),
    );
    say(`   ${held.placements.length} calls placed in ${round1(held.elapsedMs / 1000)} s; refused ${JSON.stringify(held.refused)}`);
    const heldIds = held.placements.map((p) => p.callId);
    const answeredFrom = performance.now();
    let answered = 0;
    while (performance.now() - answeredFrom < 60_000) {
      answered = await calls.countDocuments({ ...ours, status: 'in_progress' });
      if (answered >= heldIds.length) break;
      await sleep(100);
    }
    const allAnsweredAfterSeconds = round1((holdCost.seconds * 1000 + performance.now() - answeredFrom) / 1000);
    say(`   ${answered} answered ${allAnsweredAfterSeconds} s after the first POST`);

    // 2. hang-up: every held call, polled to a decided result.
    say('2. hang-up …');
    current = '2. hang-up';
    const [hungUp, hangupCost] = await phase(async () => {
      const hung = await hangUpAll({ base, calls: held.placements, workspaces: loadWorkspaces, perSecond: settings.hangupsPerSecond, pollEvery: settings.pollEvery, pollMs: settings.pollMs });
      say(`   ${hung.samples.length} hung up; waiting for their results`);
      const left = await untilDecided(calls, settings.drainTimeoutMs, ours);
      if (left > 0) await sayWherePending(calls, temporalClient, ours);
      return hung;
    });
    say(`   done in ${hangupCost.seconds} s`);

    // 3. sustained: calls that end by themselves, with the probes beside them.
    say('3. sustained …');
    current = '3. sustained';
    const windowFrom = clock() + settings.warmupSeconds * 1000;
    const windowTo = windowFrom + settings.seconds * 1000;
    const [[cycled, loadedProbes], sustainedCost] = await phase(async (mark) => {
      const timers = [setTimeout(() => mark('from'), windowFrom - clock()), setTimeout(() => mark('to'), windowTo - clock())];
      try {
        return await Promise.all([
          runLifecycles({ base, workspaces: loadWorkspaces, lanes: settings.lanes, clock, untilMs: windowTo, pollMs: settings.lanePollMs, body: callBody(CYCLE_DESTINATION) }),
          Promise.all(
            probeWorkspaces.map(async (ws) => {
              await sleep(Math.max(0, windowFrom - clock()));
              return runProbe({ base, ws, body: callBody(HOLD_DESTINATION), clock, untilMs: windowTo, maxSamples: 1_000, pollMs: settings.pollMs, connectedMs: settings.connectedMs });
            }),
          ),
        ] as const);
      } finally {
        timers.forEach(clearTimeout);
      }
    });
    const loadEnded = performance.now();
    say(`   ${cycled.placements.length} calls placed, ${cycled.lifecycles.length} seen decided; waiting for the rest`);
    const pending = await untilDecided(calls, settings.drainTimeoutMs, ours);
    const drainSeconds = round1((performance.now() - loadEnded) / 1000);
    say(`   all decided ${drainSeconds} s after the load (pending left ${pending})`);
    if (pending > 0) await sayWherePending(calls, temporalClient, ours);

    // 4. idle: the probes alone.
    say('4. idle …');
    current = '4. idle';
    const idleStart = clock();
    const [idleProbes, idleCost] = await phase(() =>
      Promise.all(
        probeWorkspaces.map((ws) =>
          runProbe({ base, ws, body: callBody(HOLD_DESTINATION), clock, untilMs: idleStart + 60_000, maxSamples: settings.idleSamples, pollMs: settings.pollMs, connectedMs: settings.connectedMs }),
        ),
      ),
    );

    // The read model of every call, and the engine's side.
    const docs = await calls
      .find(ours, { projection: { _id: 1, tenant_id: 1, status: 1, outcome: 1, ended_at: 1, updated_at: 1, 'result.state': 1, 'result.disposition': 1 } })
      .toArray();
    const tenantOf = new Map(docs.map((d) => [d._id, d.tenant_id]));
    const inWindow = cycled.placements.filter((p) => p.at >= windowFrom && p.at < windowTo);
    const cycledIds = new Set(cycled.placements.map((p) => p.callId));
    const cycledDocs = docs.filter((d) => cycledIds.has(d._id));
    const tally = (list: typeof docs, pick: (d: (typeof docs)[number]) => unknown) =>
      list.reduce<Record<string, number>>((acc, d) => ((acc[String(pick(d))] = (acc[String(pick(d))] ?? 0) + 1), acc), {});
    const sustainedFrom = new Date(Date.now() - (performance.now() - start - windowFrom));
    const sustainedTo = new Date(sustainedFrom.getTime() + settings.seconds * 1000);
    const readyInWindow = cycledDocs.filter((d) => d.result.state === 'ready' && d.updated_at >= sustainedFrom && d.updated_at < sustainedTo).length;
    const decidedInWindow = cycled.lifecycles.filter((l) => l.decidedAt >= windowFrom && l.decidedAt < windowTo);
    const loadedSamples = loadedProbes.flatMap((r) => r.samples);
    const idleSamples = idleProbes.flatMap((r) => r.samples);
    const every = (list: { callId: string }[], n: number) => list.filter((_, i) => i % Math.max(1, Math.floor(list.length / n)) === 0).slice(0, n);
    const sample = [...every(hungUp.samples, settings.historySample / 2), ...every(inWindow, settings.historySample / 2)].map((c) => ({
      callId: c.callId,
      tenantId: tenantOf.get(c.callId)!,
    }));
    const footprints = summariseFootprints(await callFootprints(temporalClient, db, sample));
    const counts = await workflowCounts(
      temporalClient,
      ['callLifecycleV2', 'callLifecycle', 'callWorkflow', 'simulatedCallee', 'dispatchEvent', 'deliverWebhook', 'rereadCall'],
      'attachedAt' in system ? system.attachedAt : undefined,
    );

    clearTimeout(watchdog);
    await stopAll();
    const profiles: Record<string, Record<string, ProfileSummary[]>> = {};
    if (settings.cpuProfile) {
      for (const [name, cost] of [['hold', holdCost], ['hangup', hangupCost], ['sustained', sustainedCost]] as const) {
        profiles[name] = { api: summariseProfiles(join(profileDir, 'api'), cost.window), worker: summariseProfiles(join(profileDir, 'worker'), cost.window) };
      }
    }

    const holdRate = held.elapsedMs > 0 ? held.placements.length / (held.elapsedMs / 1000) : 0;
    const sustainedRate = inWindow.length / settings.seconds;
    const perSecond = Array.from({ length: settings.seconds }, () => 0);
    for (const p of inWindow) perSecond[Math.min(settings.seconds - 1, Math.floor((p.at - windowFrom) / 1000))]!++;
    const polled = hungUp.samples.filter((s) => s.readyMs !== null);
    const hangupReady = distribution(polled.map((s) => s.readyMs!));
    const docById = new Map(docs.map((d) => [d._id, d]));
    const hangupWritten = distribution(
      hungUp.samples.flatMap((s) => {
        const d = docById.get(s.callId);
        return d && d.result.state !== 'pending' ? [d.updated_at.getTime() - s.sentAt] : [];
      }),
    );
    const loadedReady = distribution(loadedSamples.map((s) => s.readyMs));
    const states = (list: { state: string; disposition: string | null }[]) =>
      list.reduce<Record<string, number>>((a, s) => ((a[`${s.state}/${s.disposition}`] = (a[`${s.state}/${s.disposition}`] ?? 0) + 1), a), {});
    const withoutWindow = ({ window: _w, ...cost }: PhaseCost) => cost;
    // A whole call's CPU: the sustained phase's system processes (embedded: API, worker, FerretDB, Temporal; cluster: every role) over its placements (the bench client and other processes excluded).
    const systemCpu = Object.entries(sustainedCost.cpu_seconds).reduce((sum, [k, v]) => (NOT_THE_SYSTEM.has(k) ? sum : sum + v), 0);
    const wholeCallCpuMs = inWindow.length > 0 && Number.isFinite(systemCpu) ? Math.round((systemCpu / inWindow.length) * 1000) : null;
    const results = {
      at: new Date().toISOString(),
      target: onCluster ? ('cluster' as const) : ('embedded' as const),
      settings,
      setup_seconds: round1(setupSeconds),
      hold: {
        placements: held.placements.length,
        placements_per_second: round1(holdRate),
        seconds: round1(held.elapsedMs / 1000),
        post_latency_ms: distribution(held.placements.map((p) => p.ms)),
        all_answered_after_seconds: answered >= heldIds.length ? allAnsweredAfterSeconds : null,
        refused: held.refused,
        errors: held.errors,
        first_error: held.firstError,
        cost: withoutWindow(holdCost),
      },
      hangup: {
        per_second: settings.hangupsPerSecond,
        poll_every: settings.pollEvery,
        ready_ms: hangupReady,
        result_written_ms: hangupWritten,
        ended_ms: distribution(polled.flatMap((s) => (s.endedMs === null ? [] : [s.endedMs]))),
        hangup_post_ms: distribution(hungUp.samples.map((s) => s.hangupMs)),
        states: tally(hungUp.samples.flatMap((s) => (docById.has(s.callId) ? [docById.get(s.callId)!] : [])), (d) => `${d.result.state}/${d.result.disposition}`),
        errors: hungUp.errors.slice(0, 5),
        error_count: hungUp.errors.length,
        cost: withoutWindow(hangupCost),
      },
      sustained: {
        placements_per_second: round1(sustainedRate),
        placements: inWindow.length,
        with_warmup: cycled.placements.length,
        per_second_series: perSecond,
        post_latency_ms: distribution(inWindow.map((p) => p.ms)),
        refused: cycled.refused,
        errors: cycled.errors,
        first_error: cycled.firstError,
        results_ready_per_second: round1(readyInWindow / settings.seconds),
        lanes: settings.lanes,
        seen_decided_per_second: round1(decidedInWindow.length / settings.seconds),
        placed_to_seen_decided_ms: distribution(cycled.lifecycles.filter((l) => l.placedAt >= windowFrom && l.placedAt < windowTo).map((l) => l.decidedAt - l.placedAt)),
        all_decided_seconds_after_load: drainSeconds,
        pending_left: pending,
        result_states: tally(cycledDocs, (d) => d.result.state),
        dispositions: tally(cycledDocs, (d) => d.result.disposition),
        outcomes: tally(cycledDocs, (d) => d.outcome),
        ended_to_result_written_ms: distribution(cycledDocs.filter((d) => d.ended_at && d.result.state !== 'pending').map((d) => d.updated_at.getTime() - d.ended_at!.getTime())),
        probes: {
          ready_ms: loadedReady,
          ended_ms: distribution(loadedSamples.flatMap((s) => (s.endedMs === null ? [] : [s.endedMs]))),
          hangup_post_ms: distribution(loadedSamples.map((s) => s.hangupMs)),
          states: states(loadedSamples),
          errors: loadedProbes.flatMap((r) => r.errors).slice(0, 5),
        },
        cost: withoutWindow(sustainedCost),
      },
      idle: {
        ready_ms: distribution(idleSamples.map((s) => s.readyMs)),
        ended_ms: distribution(idleSamples.flatMap((s) => (s.endedMs === null ? [] : [s.endedMs]))),
        states: states(idleSamples),
        errors: idleProbes.flatMap((r) => r.errors).slice(0, 5),
        cost: withoutWindow(idleCost),
      },
      engine: { per_call: footprints, minimum_per_call: TEMPORAL_MINIMUM.call, workflows_in_run: counts },
      targets: {
        hold_placements_per_second: { target: CALL_TARGETS.holdPlacementsPerSecond, value: round1(holdRate), met: holdRate >= CALL_TARGETS.holdPlacementsPerSecond },
        sustained_placements_per_second: { target: CALL_TARGETS.sustainedCallsPerSecond, value: round1(sustainedRate), met: sustainedRate >= CALL_TARGETS.sustainedCallsPerSecond },
        hangup_ready_p99_ms: { target: CALL_TARGETS.readyP99Ms, value: hangupReady.p99, met: hangupReady.p99 !== null && hangupReady.p99 < CALL_TARGETS.readyP99Ms },
        probe_ready_p99_ms_under_load: { target: CALL_TARGETS.readyP99Ms, value: loadedReady.p99, met: loadedReady.p99 !== null && loadedReady.p99 < CALL_TARGETS.readyP99Ms },
        cpu_ms_per_call: { target: CALL_TARGETS.cpuPerCallMs, value: wholeCallCpuMs, met: wholeCallCpuMs !== null && wholeCallCpuMs <= CALL_TARGETS.cpuPerCallMs },
        history_events_per_call: {
          target: CALL_TARGETS.historyEventsPerCall,
          value: footprints.callHistoryEvents.p50,
          met: footprints.callHistoryEvents.p50 !== null && footprints.callHistoryEvents.p50 <= CALL_TARGETS.historyEventsPerCall,
        },
      },
      profiles,
    };

    mkdirSync(benchDir, { recursive: true });
    const out = join(benchDir, `calls-${stamp}.json`);
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    say(formatReport(results));
    say(`written to ${out}`);
  } finally {
    clearTimeout(watchdog);
    await stopAll();
  }
}

/** Waits until no call's result is pending; answers how many still are when the time runs out. */
async function untilDecided(calls: Collection<CallDoc>, timeoutMs: number, ours: Filter<CallDoc> = {}): Promise<number> {
  const from = performance.now();
  for (;;) {
    const pending = await calls.countDocuments({ ...ours, 'result.state': 'pending' });
    if (pending === 0 || performance.now() - from > timeoutMs) return pending;
    await sleep(250);
  }
}

/** Where a few calls that are still pending wait, from their workflow histories. */
async function sayWherePending(calls: Collection<CallDoc>, client: Client, ours: Filter<CallDoc> = {}): Promise<void> {
  const stuck = await calls.find({ ...ours, 'result.state': 'pending' }, { projection: { _id: 1, status: 1 } }).limit(3).toArray();
  for (const call of stuck) {
    say(`   still pending: ${call._id} (${call.status}); its workflow's last events:`);
    for (const line of await lastEvents(client, call._id)) say(`     ${line}`);
  }
}

/** The running cluster, with this run's own workspaces (a second run must not meet the first's live calls and day budgets). */
async function attachClusterForCalls() {
  const { providers } = readClusterState(clusterStateFile());
  if (providers.voice !== 'simulator') throw new Error(`bench:calls with BENCH_TARGET=cluster needs the voice simulator; this cluster runs VOICE_PROVIDER=${providers.voice}`);
  return attachCluster({
    name: 'bench-calls',
    seed: async (db, tag) => ({
      load: await seedWorkspaces(db, `ws_callbench_${tag}`, settings.workspaces, settings.keysPerWorkspace),
      probes: await seedWorkspaces(db, `ws_callprobe_${tag}`, settings.probes, 20),
    }),
  });
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
