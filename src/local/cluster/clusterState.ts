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
