import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MongoClient, type Db } from 'mongodb';
import { readClusterState, type ClusterState } from '../src/local/cluster/clusterState';
import { fromRoot } from '../src/local/paths';
import { loadAverage, machineBusySeconds } from './benchStats';
import type { CpuUse } from './processCpu';

/**
 * BENCH_TARGET=cluster (docs/deploy.md, "Tests and benchmarks against the cluster"): a bench
 * that supports it measures a running `npm run start:cluster` instead of starting its own
 * servers. Requests go through the balancer's one address, the bench writes its fixtures to
 * the store the cluster's processes use, and the CPU of every cluster process is read from
 * /proc by the pids in the launcher's state file (BENCH_CLUSTER_FILE, default
 * `.data/cluster/cluster.json`), summed per role. A bench that does not support the cluster,
 * or a setting of one that needs its own servers, refuses to run rather than measure something
 * else than what was asked.
 */

export type BenchTargetKind = 'embedded' | 'cluster';

export function benchTarget(env: NodeJS.ProcessEnv = process.env): BenchTargetKind {
  const value = env.BENCH_TARGET ?? 'embedded';
  if (value !== 'embedded' && value !== 'cluster') throw new Error(`BENCH_TARGET must be embedded or cluster, not ${JSON.stringify(value)}`);
  return value;
}

/** Called where a bench starts servers of its own: under BENCH_TARGET=cluster that would measure them, not the cluster. */
export function refuseClusterTarget(bench: string): void {
  if (benchTarget() === 'cluster') {
    throw new Error(`${bench} does not run against the cluster: it starts servers of its own, so BENCH_TARGET=cluster would not measure the cluster (unset BENCH_TARGET; bench:calls and bench:campaigns support it)`);
  }
}

/** Under BENCH_TARGET=cluster, each named setting that is set is refused with why it needs the embedded servers. */
export function refuseSettingsOnCluster(bench: string, settings: Record<string, string>, env: NodeJS.ProcessEnv = process.env): void {
  const set = Object.entries(settings).filter(([name]) => env[name] !== undefined && env[name] !== '' && env[name] !== '0');
  if (set.length > 0) throw new Error(`${bench} with BENCH_TARGET=cluster: ${set.map(([name, why]) => `${name} is not available (${why})`).join('; ')}`);
}

export function clusterStateFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.BENCH_CLUSTER_FILE ?? fromRoot('.data/cluster/cluster.json');
}

/** The order roles are printed in; a role the cluster does not run is left out. */
export const CLUSTER_ROLES = ['api', 'worker', 'media', 'ferretdb', 'postgresql', 'temporal-frontend', 'temporal-history', 'temporal-matching', 'temporal-worker'] as const;

/** `api-2` → `api`: our N processes of a kind are one role; every other child is a role of its own. */
export function roleOf(processName: string): string {
  const numbered = /^(api|worker|media)-\d+$/.exec(processName);
  return numbered ? numbered[1]! : processName;
}

/** The processes of each role, roles in CLUSTER_ROLES's order (others after them). */
export function processesByRole(processes: Record<string, number>): Record<string, Record<string, number>> {
  const byRole: Record<string, Record<string, number>> = {};
  for (const name of Object.keys(processes).sort()) (byRole[roleOf(name)] ??= {})[name] = processes[name]!;
  const rank = (role: string) => {
    const i = (CLUSTER_ROLES as readonly string[]).indexOf(role);
    return i < 0 ? CLUSTER_ROLES.length : i;
  };
  return Object.fromEntries(Object.entries(byRole).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b)));
}

/**
 * CPU seconds (user + system) of a process, its live descendants, and the descendants each
 * has reaped (cutime + cstime): PostgreSQL serves each connection from a forked backend, and
 * one that exits between two marks must not take its CPU with it. Null when the process is gone.
 */
export function processTreeCpuSeconds(pid: number): number | null {
  const read = (p: number): number => {
    let fields: string[];
    try {
      fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
    } catch {
      return 0;
    }
    let total = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    let children = '';
    try {
      children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
    } catch {
      // Gone in the meantime.
    }
    for (const child of children ? children.split(' ') : []) total += read(Number(child));
    return total;
  };
  if (!existsSync(`/proc/${pid}/stat`)) return null;
  return read(pid) / 100;
}

export interface RoleCpuMark {
  /** The pid of each process when marked. */
  pids: Record<string, number>;
  /** CPU seconds of each process (null: gone). */
  cpu: Record<string, number | null>;
  bench: number;
  machine: number;
  at: number;
  us: number;
}

/** The CPU each role used between two marks; a role one of whose processes was replaced (or gone) is NaN, and named in `restarted`. */
export function roleCpuBetween(from: RoleCpuMark, to: RoleCpuMark): { cpu: Record<string, number>; restarted: string[] } {
  const cpu: Record<string, number> = {};
  const restarted: string[] = [];
  for (const [role, members] of Object.entries(processesByRole({ ...from.pids, ...to.pids }))) {
    let sum = 0;
    for (const name of Object.keys(members)) {
      const before = from.cpu[name];
      const after = to.cpu[name];
      if (from.pids[name] !== to.pids[name] || before === null || before === undefined || after === null || after === undefined) {
        restarted.push(`${name} (pid ${from.pids[name] ?? '–'} → ${to.pids[name] ?? '–'})`);
        sum = NaN;
      } else sum += after - before;
    }
    cpu[role] = Math.round(sum * 1000) / 1000;
  }
  return { cpu, restarted };
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Marks every cluster process's CPU, by the pids the state file names at the moment. */
export function markClusterCpu(stateFile: string): RoleCpuMark {
  const { processes } = readClusterState(stateFile);
  const own = process.cpuUsage();
  return {
    pids: { ...processes },
    cpu: Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, processTreeCpuSeconds(pid)])),
    bench: (own.user + own.system) / 1e6,
    machine: machineBusySeconds(),
    at: performance.now(),
    us: monotonicUs(),
  };
}

/** processCpu.ts's `cpuMeter` for the cluster: the same figures, one per role (API ×N summed, …), plus the bench itself. */
export function clusterCpuMeter(stateFile: string) {
  return {
    mark: () => markClusterCpu(stateFile),
    since(from: RoleCpuMark): CpuUse {
      const to = markClusterCpu(stateFile);
      const { cpu, restarted } = roleCpuBetween(from, to);
      cpu.bench = Math.round((to.bench - from.bench) * 1000) / 1000;
      const ours = Object.values(cpu).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
      return {
        seconds: Math.round(to.at - from.at) / 1000,
        cpu_seconds: cpu,
        others_on_machine: Math.round(Math.max(0, to.machine - from.machine - ours) * 1000) / 1000,
        load_average_after: loadAverage(),
        window: { fromUs: from.us, toUs: to.us },
        ...(restarted.length > 0 ? { restarted } : {}),
      };
    },
  };
}

export interface ClusterBench<Seeded> {
  state: ClusterState;
  stateFile: string;
  /** The balancer's address. */
  base: string;
  consoleToken: string;
  mongo: MongoClient;
  /** The database the cluster's processes use. */
  db: Db;
  temporalClient: Client;
  seeded: Seeded;
  /** Where the launcher writes each process's log. */
  logsDir: string;
  /** A tag of this run for ids, so a second run on the same cluster does not meet the first's records. */
  runTag: string;
  /** When the bench attached: workflows started before are not its own. */
  attachedAt: Date;
  /** One line for the report: what is measured. */
  describe: string;
  /** Closes the bench's clients; the cluster is not the bench's to stop. */
  stop(): Promise<void>;
}

/**
 * The console token of the cluster: CONSOLE_TOKEN as the launcher was given it, else the one it
 * generated and kept beside the state file.
 */
function clusterConsoleToken(stateFile: string): string {
  if (process.env.CONSOLE_TOKEN) return process.env.CONSOLE_TOKEN;
  const file = join(dirname(stateFile), 'console-token');
  if (!existsSync(file)) throw new Error(`BENCH_TARGET=cluster: no console token (set CONSOLE_TOKEN to the one the cluster was started with; ${file} does not exist)`);
  return readFileSync(file, 'utf8').trim();
}

export async function attachCluster<Seeded = undefined>(options: { name: string; seed?: (db: Db, runTag: string) => Promise<Seeded> }): Promise<ClusterBench<Seeded>> {
  const stateFile = clusterStateFile();
  const state = readClusterState(stateFile);
  const consoleToken = clusterConsoleToken(stateFile);
  const runTag = Date.now().toString(36);
  const attachedAt = new Date();
  const mongo = await new MongoClient(state.mongodb_url).connect();
  let temporalClient: Client | null = null;
  try {
    temporalClient = new Client({ connection: await Connection.connect({ address: state.temporal_address }), namespace: state.temporal_namespace });
    const db = mongo.db(state.mongodb_db);
    const seeded = (options.seed ? await options.seed(db, runTag) : undefined) as Seeded;
    const roles = Object.entries(processesByRole(state.processes)).map(([role, members]) => `${role} ×${Object.keys(members).length}`);
    const client = temporalClient;
    return {
      state,
      stateFile,
      base: state.api_url,
      consoleToken,
      mongo,
      db,
      temporalClient: client,
      seeded,
      logsDir: join(dirname(stateFile), 'logs'),
      runTag,
      attachedAt,
      describe:
        `the cluster of ${stateFile} (BENCH_TARGET=cluster): requests through the balancer ${state.api_url}, Temporal on PostgreSQL ${state.temporal_address}, ` +
        `FerretDB on PostgreSQL ${state.mongodb_url} (database ${state.mongodb_db}); CPU by pid per role: ${roles.join(', ')}; every process shares this machine`,
      stop: async () => {
        await client.connection.close().catch(() => undefined);
        await mongo.close().catch(() => undefined);
      },
    };
  } catch (err) {
    await temporalClient?.connection.close().catch(() => undefined);
    await mongo.close().catch(() => undefined);
    throw err;
  }
}

/** Peak resident memory (VmHWM, since each started) of a role's processes, in MB: the largest, with its name. */
export function clusterPeakMemoryMb(stateFile: string, role: string): { mb: number; process: string } | null {
  const members = processesByRole(readClusterState(stateFile).processes)[role] ?? {};
  let best: { mb: number; process: string } | null = null;
  for (const [name, pid] of Object.entries(members)) {
    try {
      const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
      const mb = Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
      if (!best || mb > best.mb) best = { mb, process: name };
    } catch {
      // Gone: its successor is measured when it is in the file.
    }
  }
  return best;
}
