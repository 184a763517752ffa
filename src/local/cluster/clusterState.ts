import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Upstream } from './balancer';
import type { TemporalClusterPorts } from './temporalServer';

/**
 * The cluster's state file (`DATA_DIR/cluster/cluster.json`), written by the launcher once
 * everything answers and removed when it stops: the addresses scripts and tests use, what the
 * children run with that a benchmark must know (the database, the providers), and the pid of
 * every child by its name (`postgresql`, `temporal-history`, `ferretdb`, `worker-1`, `api-2`, …),
 * rewritten whenever a supervised child comes back under a new pid, so a benchmark measuring
 * CPU from /proc reads the processes that run now (docs/deploy.md, "Tests and benchmarks
 * against the cluster").
 */
export interface ClusterState {
  api_url: string;
  temporal_address: string;
  temporal_namespace: string;
  mongodb_url: string;
  mongodb_db: string;
  postgres_port: number;
  temporal_ports: TemporalClusterPorts;
  api: Upstream[];
  media: Upstream[];
  worker_metrics: Upstream[];
  providers: { voice: string; whatsapp: string };
  launcher_pid: number;
  processes: Record<string, number>;
}

/** Written whole to a temporary file and renamed, so a reader never sees half of it. */
export function writeClusterState(file: string, state: ClusterState): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temporary, file);
}

/** The state of a running cluster; throws, saying why, when there is none (no file, or its launcher has gone). */
export function readClusterState(file: string): ClusterState {
  const none = (why: string) => new Error(`no running \`npm run start:cluster\` (${file}: ${why})`);
  let state: ClusterState;
  try {
    state = JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
  } catch (err) {
    throw none((err as { message?: string }).message ?? String(err));
  }
  try {
    process.kill(state.launcher_pid, 0);
  } catch {
    throw none(`its launcher, pid ${state.launcher_pid}, has gone`);
  }
  if (!state.processes || !state.mongodb_db) throw new Error(`${file} was written by an older launcher (no pids or database name): restart the cluster`);
  return state;
}

/**
 * The launcher's side of the file: told each child's pid as it comes up (and again after a
 * restart), it writes the file once the cluster is ready and rewrites it on every later pid,
 * never before `ready` (a file means every server answers) and never after `stopped`.
 */
export function clusterStateKeeper(file: string) {
  const processes: Record<string, number> = {};
  let state: Omit<ClusterState, 'processes'> | null = null;
  let stopped = false;
  const write = () => {
    if (state && !stopped) writeClusterState(file, { ...state, processes });
  };
  return {
    running(name: string, pid: number): void {
      processes[name] = pid;
      write();
    },
    ready(ready: Omit<ClusterState, 'processes'>): void {
      state = ready;
      write();
    },
    stopped(): void {
      stopped = true;
    },
  };
}
