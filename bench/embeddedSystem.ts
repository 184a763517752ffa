import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MongoClient, type Db } from 'mongodb';
import { startProcess, untilReady, type ManagedProcess } from '../src/local/childProcess';
import { freePort, waitFor } from '../src/local/net';
import { toolPath } from '../src/local/paths';
import { startFerretDb, startTemporalDevServer, type LocalServer } from '../src/local/servers';
import { refuseClusterTarget } from './clusterTarget';

/**
 * The system a benchmark measures, started the way `npm start` runs it: FerretDB (SQLite) and
 * the Temporal dev server with their files in a new temporary directory, then the worker
 * (dist/src/main/worker.js) and, once the worker answers /healthz, the API (dist/src/main/api.js)
 * until it answers /readyz, all on free loopback ports; the bench talks to it through a
 * MongoClient and, if it asks, a Temporal client. `stop()` undoes it in reverse.
 */

/** The console token every bench's API is started with. */
export const BENCH_CONSOLE_TOKEN = 'bench-console-token-0123456789';

export type NodeProcessName = 'worker' | 'api';

export interface EmbeddedSystemOptions<Seeded = undefined> {
  /** The temporary directory's name starts with `<name>-`. */
  name: string;
  /** Where that directory goes; default the system's temporary directory. */
  parentDir?: string | null;
  /** TEMPORAL_TASK_QUEUE for the children; left out, they use the config's default. */
  taskQueue?: string;
  /** More variables for the children (NODE_ENV, …), over the ones set here. */
  env?: Record<string, string>;
  /** Start the API after the worker (default true); without it the children get no PORT and no CONSOLE_TOKEN. */
  api?: boolean;
  /** FerretDB and Temporal one after the other instead of together (bench:calls has always started them so). */
  serversInTurn?: boolean;
  /** Another FerretDB build than TOOLS_DIR's. */
  ferretDbBinary?: string | null;
  /** `--cpu-prof` for these node processes, each into `<dir>/<process>` (created here). */
  cpuProfiles?: { dir: string; processes: NodeProcessName[] } | null;
  /** How long the worker may take to answer /healthz. */
  workerReadyMs?: number;
  /** How long the API may take to answer /readyz. */
  apiReadyMs?: number;
  /** Open a Temporal client once the processes are ready. */
  temporalClient?: boolean;
  /** Runs on the database before the worker and API start (what they must find there at start-up). */
  seed?: (db: Db) => Promise<Seeded>;
  /** Receives `stop()` before anything starts, for a watchdog that may fire during start-up. */
  onStop?: (stop: () => Promise<void>) => void;
}

export interface EmbeddedSystem<Seeded = undefined> {
  /** The servers' data files and every process's log (`<process>.log`); removed by `stop()`. */
  dir: string;
  ports: { mongo: number; temporal: number; temporalUi: number; api: number | null; workerMetrics: number };
  /** The API's address, `http://127.0.0.1:<port>`; null without the API. */
  base: string | null;
  /** The worker's Prometheus text. */
  metricsUrl: string;
  ferret: LocalServer;
  temporal: LocalServer;
  worker: ManagedProcess;
  api: ManagedProcess | null;
  /** For `cpuMeter`: the API (if started), the worker, Temporal, FerretDB, in that order. */
  pids: Record<string, number>;
  /** The children's environment (the queue, the token, …). */
  env: NodeJS.ProcessEnv;
  mongo: MongoClient;
  /** The `bench` database the children use. */
  db: Db;
  temporalClient: Client | null;
  /** What `seed` answered. */
  seeded: Seeded;
  /** Where a process's `--cpu-prof` profiles go (`<cpuProfiles.dir>/<process>`). */
  profileDir(process: NodeProcessName): string;
  /** Closes the clients, stops the children newest first, removes `dir`; safe to call again. */
  stop(): Promise<void>;
}

export async function startEmbeddedSystem<Seeded = undefined>(options: EmbeddedSystemOptions<Seeded>): Promise<EmbeddedSystem<Seeded>> {
  refuseClusterTarget(options.name);
  const tools = process.env.TOOLS_DIR ?? '.tools';
  const withApi = options.api ?? true;
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), `${options.name}-`));
  const children: ManagedProcess[] = [];
  let mongo: MongoClient | null = null;
  let temporalClient: Client | null = null;
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await temporalClient?.connection.close().catch(() => undefined);
      await mongo?.close().catch(() => undefined);
      for (const child of [...children].reverse()) await child.stop();
      rmSync(dir, { recursive: true, force: true });
    })());
  options.onStop?.(stop);
  /** A child started after stop() began would outlive it: it is stopped at once. */
  const track = (child: ManagedProcess) => {
    if (stopping) void child.stop();
    else children.push(child);
    return child;
  };
  const notStopped = () => {
    if (stopping) throw new Error(`${options.name}: stopped during start-up`);
  };

  try {
    const [mongoPort, temporalPort, uiPort, workerMetrics, apiPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), withApi ? freePort() : null]);
    const startFerret = () =>
      startFerretDb({ binary: options.ferretDbBinary ?? toolPath(tools, 'ferretdb'), port: mongoPort, dataDir: dir, logFile: join(dir, 'ferretdb.log') });
    const startTemporal = () =>
      startTemporalDevServer({ binary: toolPath(tools, 'temporal'), port: temporalPort, uiPort, dataDir: dir, logFile: join(dir, 'temporal.log') });
    let ferret: LocalServer;
    let temporal: LocalServer;
    if (options.serversInTurn) {
      ferret = await startFerret();
      track(ferret.process);
      temporal = await startTemporal();
      track(temporal.process);
    } else {
      // Both or neither: one that started while the other failed is stopped with the rest.
      const started = await Promise.allSettled([startFerret(), startTemporal()]);
      for (const s of started) if (s.status === 'fulfilled') track(s.value.process);
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      [ferret, temporal] = started.map((s) => (s as PromiseFulfilledResult<LocalServer>).value) as [LocalServer, LocalServer];
    }
    notStopped();

    mongo = await new MongoClient(ferret.address).connect();
    const db = mongo.db('bench');
    const seeded = (options.seed ? await options.seed(db) : undefined) as Seeded;
    notStopped();

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      LOG_LEVEL: 'warn',
      ...(apiPort === null ? {} : { PORT: String(apiPort), CONSOLE_TOKEN: BENCH_CONSOLE_TOKEN }),
      MONGODB_URL: ferret.address,
      MONGODB_DB: 'bench',
      TEMPORAL_ADDRESS: temporal.address,
      ...(options.taskQueue === undefined ? {} : { TEMPORAL_TASK_QUEUE: options.taskQueue }),
      WORKER_METRICS_PORT: String(workerMetrics),
      ...options.env,
    };
    const profileDir = (name: NodeProcessName) => join(options.cpuProfiles?.dir ?? dir, name);
    const nodeArgs = (name: NodeProcessName) => {
      if (!options.cpuProfiles?.processes.includes(name)) return [];
      mkdirSync(profileDir(name), { recursive: true });
      return ['--cpu-prof', `--cpu-prof-dir=${profileDir(name)}`];
    };
    const startNode = (name: NodeProcessName) =>
      track(startProcess(name, process.execPath, [...nodeArgs(name), join(__dirname, `../src/main/${name}.js`)], { env, logFile: join(dir, `${name}.log`) }));

    const worker = startNode('worker');
    const metricsBase = `http://127.0.0.1:${workerMetrics}`;
    await untilReady(worker, waitFor('worker', async () => (await fetch(`${metricsBase}/healthz`)).ok, options.workerReadyMs ?? 180_000, 250));
    notStopped();
    let api: ManagedProcess | null = null;
    const base = apiPort === null ? null : `http://127.0.0.1:${apiPort}`;
    if (base !== null) {
      api = startNode('api');
      await untilReady(api, waitFor('API', async () => (await fetch(`${base}/readyz`)).ok, options.apiReadyMs ?? 60_000));
    }
    notStopped();
    if (options.temporalClient) temporalClient = new Client({ connection: await Connection.connect({ address: temporal.address }) });

    return {
      dir,
      ports: { mongo: mongoPort, temporal: temporalPort, temporalUi: uiPort, api: apiPort, workerMetrics },
      base,
      metricsUrl: `${metricsBase}/metrics`,
      ferret,
      temporal,
      worker,
      api,
      pids: {
        ...(api ? { api: api.child.pid! } : {}),
        worker: worker.child.pid!,
        temporal: temporal.process.child.pid!,
        ferretdb: ferret.process.child.pid!,
      },
      env,
      mongo,
      db,
      temporalClient,
      seeded,
      profileDir,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
