import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { startProcess, untilReady, type ManagedProcess } from '../childProcess';
import { waitFor } from '../net';
import { grpcHealth, type LivenessProbe } from '../liveness';
import type { Watchdog } from '../watchdog';
import { registerMissingSearchAttributes } from '../../temporal/registerSearchAttributes';
import { untilAttributesQueryable } from '../servers';

/**
 * The Temporal server as production runs it (docs/deploy.md): the `temporal-server` binary
 * built from go.temporal.io/server at docker-compose.yml's release, on PostgreSQL with SQL
 * visibility, each service a process of its own started from one config file. The schema is
 * set up by Temporal's own `temporal-sql-tool` from the schemas embedded in it, as the
 * `temporalio/auto-setup` image does.
 */

export const TEMPORAL_SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type TemporalService = (typeof TEMPORAL_SERVICES)[number];

/** As `temporalio/auto-setup` (NUM_HISTORY_SHARDS): fixed when the database is created, never changed after. */
export const HISTORY_SHARDS = 4;

/** As auto-setup's DEFAULT_NAMESPACE_RETENTION. */
const NAMESPACE_RETENTION_SECONDS = 24 * 3600;

export interface TemporalDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface TemporalClusterPorts {
  /** Per service: its gRPC port and its membership (ringpop) port. */
  services: Record<TemporalService, { grpc: number; membership: number }>;
  frontendHttp: number;
}

const DATABASES = { temporal: 'postgresql/v12/temporal', temporal_visibility: 'postgresql/v12/visibility' } as const;

/**
 * The gRPC service each process answers health checks for (the server's own names: history
 * and matching register under `workflowservice`). History says SERVING once it holds its shards.
 */
const HEALTH_SERVICE: Record<Exclude<TemporalService, 'worker'>, string> = {
  frontend: 'temporal.api.workflowservice.v1.WorkflowService',
  history: 'temporal.api.workflowservice.v1.HistoryService',
  matching: 'temporal.api.workflowservice.v1.MatchingService',
};

const run = promisify(execFile);

/**
 * Creates `temporal` and `temporal_visibility` (and any `extraDatabases`, FerretDB's) when
 * absent and brings both schemas to the latest version: every step is a no-op on a database
 * already there, so each start runs them all.
 */
export async function setUpTemporalSchema(sqlTool: string, db: TemporalDatabase, extraDatabases: string[] = []): Promise<void> {
  const common = ['--plugin', 'postgres12', '--ep', db.host, '-p', String(db.port), '-u', db.user, '--pw', db.password];
  const tool = (database: string, ...args: string[]) => run(sqlTool, [...common, '--db', database, ...args], { timeout: 120_000 });
  for (const database of [...Object.keys(DATABASES), ...extraDatabases]) {
    try {
      await tool(database, 'create-database');
    } catch (err) {
      if (!/already exists/.test(String((err as { stderr?: string }).stderr ?? err))) throw err;
    }
  }
  for (const [database, schema] of Object.entries(DATABASES)) {
    await tool(database, 'setup-schema', '-v', '0.0');
    await tool(database, 'update-schema', '--schema-name', schema);
  }
}

/** The one config file every service process reads (its own part is chosen by `--service`). */
export function writeTemporalConfig(dir: string, db: TemporalDatabase, ports: TemporalClusterPorts): void {
  mkdirSync(dir, { recursive: true });
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: "${db.host}:${db.port}"
        connectProtocol: tcp
        user: ${db.user}
        password: "${db.password}"
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (name: TemporalService) => `
  ${name}:
    rpc:
      grpcPort: ${ports.services[name].grpc}
      membershipPort: ${ports.services[name].membership}
      bindOnIP: 127.0.0.1${name === 'frontend' ? `\n      httpPort: ${ports.frontendHttp}` : ''}`;
  writeFileSync(
    join(dir, 'cluster.yaml'),
    `# Written by the cluster launcher (src/local/cluster/temporalServer.ts) at each start.
log:
  stdout: true
  level: warn

persistence:
  numHistoryShards: ${HISTORY_SHARDS}
  defaultStore: default
  visibilityStore: visibility
  datastores:
    default:${store('temporal', 20)}
    visibility:${store('temporal_visibility', 10)}

global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1

services:${TEMPORAL_SERVICES.map(service).join('')}

clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${ports.services.frontend.grpc}
      httpAddress: 127.0.0.1:${ports.frontendHttp}

dcRedirectionPolicy:
  policy: noop

archival:
  history:
    state: disabled
  visibility:
    state: disabled

namespaceDefaults:
  archival:
    history:
      state: disabled
    visibility:
      state: disabled

dynamicConfigClient:
  filepath: ${join(dir, 'dynamicconfig.yaml')}
  pollInterval: 10s
`,
  );
  writeFileSync(
    join(dir, 'dynamicconfig.yaml'),
    `# As temporalio/auto-setup's config/dynamicconfig/docker.yaml, plus what our workflows use.
limit.maxIDLength:
  - value: 255
frontend.enableUpdateWorkflowExecution:
  - value: true
frontend.enableExecuteMultiOperation:
  - value: true
`,
  );
}

export interface TemporalServiceOptions {
  binary: string;
  configDir: string;
  service: TemporalService;
  ports: TemporalClusterPorts;
  logFile: string;
  watchdog?: Watchdog;
}

/**
 * Times a service that exits during start-up is started again. Services started together on a
 * new database race to write its cluster metadata, and the loser exits ("duplicate key value
 * violates unique constraint cluster_metadata_info_pkey"); started again, it reads what the
 * winner wrote. Seen in one kill-test run in four.
 */
const START_ATTEMPTS = 3;

/** One service's process, ready once its gRPC health check answers SERVING. */
export async function startTemporalService(options: TemporalServiceOptions, onRetry?: (err: Error) => void): Promise<ManagedProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTemporalServiceOnce(options);
    } catch (err) {
      const exited = err instanceof Error && err.message.includes('during start-up');
      if (!exited || attempt >= START_ATTEMPTS) throw err;
      onRetry?.(err);
    }
  }
}

async function startTemporalServiceOnce(options: TemporalServiceOptions): Promise<ManagedProcess> {
  const proc = startProcess(
    `temporal-${options.service}`,
    options.binary,
    ['--root', options.configDir, '--config', '.', '--env', 'cluster', '--allow-no-auth', 'start', '--service', options.service],
    // Nothing may call out: the server's version check is off.
    { env: { ...process.env, TEMPORAL_VERSION_CHECK_DISABLED: '1' }, logFile: options.logFile, watchdog: options.watchdog },
  );
  const probe = temporalServiceHealth(options.ports, options.service);
  try {
    await untilReady(proc, waitFor(`Temporal ${options.service}`, async () => (await probe.check(2_000), true), 120_000, 500));
  } finally {
    await probe.close();
  }
  return proc;
}

/**
 * One service process's liveness: its gRPC health check; the worker service serves no gRPC
 * health, so its membership (ringpop) port must accept a connection.
 */
export function temporalServiceHealth(ports: TemporalClusterPorts, service: TemporalService): LivenessProbe {
  if (service === 'worker') return tcpAccepts(ports.services.worker.membership);
  return grpcHealth(`127.0.0.1:${ports.services[service].grpc}`, HEALTH_SERVICE[service]);
}

function tcpAccepts(port: number): LivenessProbe {
  return {
    check: (timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, timeout: timeoutMs });
        socket.once('connect', () => (socket.destroy(), resolve()));
        socket.once('timeout', () => (socket.destroy(), reject(new Error('no answer'))));
        socket.once('error', reject);
      }),
    close: async () => undefined,
  };
}

/**
 * Registers the namespace (as auto-setup's DEFAULT_NAMESPACE) and our search attributes
 * (SQL visibility maps each to one of its pre-made Keyword columns), then waits until the
 * frontend accepts a query naming them all: a start naming an unknown attribute is refused.
 */
export async function ensureNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: '5s' });
  try {
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION_SECONDS * 1000) });
    } catch (err) {
      if (!/already exists/i.test(String((err as Error).message))) throw err;
    }
    // The frontend's namespace cache learns a new namespace within about 10 s.
    await waitFor(`Temporal namespace ${namespace}`, () => registerMissingSearchAttributes(connection, namespace), 60_000, 1_000);
    await untilAttributesQueryable(connection, namespace, 'Temporal search attributes');
  } finally {
    await connection.close();
  }
}
