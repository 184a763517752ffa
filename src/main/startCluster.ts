import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { loadConfig, loadLauncherConfig } from '../config';
import { connectMongo } from '../db/mongo';
import { ensureEveryIndex } from './indexes';
import { connectTemporalClient } from '../temporal/client';
import { refuseCredentialsForEmbeddedTemporal } from '../temporal/connectionSettings';
import { runSystemCheck } from '../temporal/systemCheck';
import { DEMO_WORKSPACE_ID, seedDemoWorkspace } from '../demo/seedDemoWorkspace';
import { startProcess, untilReady, type ManagedProcess } from '../local/childProcess';
import type { ChildState } from '../local/childrenStatus';
import { DEFAULT_RESTART_POLICY, seconds, supervise, type RestartPolicy, type Supervised } from '../local/supervisor';
import { freePort, refuseBusyPort, waitFor } from '../local/net';
import { DEFAULT_LIVENESS_POLICY, httpHealth, mongoPing, type LivenessPolicy, type LivenessProbe } from '../local/liveness';
import { startWatchdog } from '../local/watchdog';
import { stopInReverse, stopOnSignals } from '../local/shutdown';
import { fromRoot } from '../local/paths';
import { loadClusterSettings } from '../local/cluster/settings';
import { postgresProbe, startPostgres } from '../local/cluster/postgres';
import {
  TEMPORAL_SERVICES,
  ensureNamespace,
  setUpTemporalSchema,
  startTemporalService,
  temporalServiceHealth,
  writeTemporalConfig,
  type TemporalClusterPorts,
} from '../local/cluster/temporalServer';
import { startFerretDbOnPostgres } from '../local/cluster/ferretDbOnPostgres';
import { startBalancer, type Upstream } from '../local/cluster/balancer';
import { clusterStateKeeper } from '../local/cluster/clusterState';
import { MEDIA_STREAM_PATH } from '../calls/line/streamUrl';
import { runMain } from './runMain';

/**
 * `npm run start:cluster` (docs/deploy.md): the production shape on this machine. PostgreSQL
 * (Debian's) holds Temporal's stores and FerretDB's; Temporal's history, matching, frontend
 * and worker services run as processes of their own from one config file; FerretDB serves
 * MongoDB's protocol from the same PostgreSQL; N workers, N API and N media processes sit
 * behind one address (PORT). Every child is supervised as `npm start`'s are (restarted when it
 * dies or stops answering), and none outlives the launcher (src/local/watchdog.ts). State
 * lives in DATA_DIR/cluster, so a second start is warm.
 */

for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
const say = (line: string) => {
  if (process.stdout.writable) process.stdout.write(`[cluster] ${line}\n`);
};

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.body?.cancel();
  return res.ok;
}

/** Kept across starts (as `npm start`'s), so a person's CLI and the API key stay valid. */
function keptSecret(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}

/** Ports chosen once per start and written down, so a restarted child comes back on its own. */
async function temporalPorts(): Promise<TemporalClusterPorts> {
  const services = {} as TemporalClusterPorts['services'];
  for (const name of TEMPORAL_SERVICES) services[name] = { grpc: await freePort(), membership: await freePort() };
  return { services, frontendHttp: await freePort() };
}

runMain(async () => {
  const began = Date.now();
  const launcher = loadLauncherConfig();
  const cluster = loadClusterSettings();
  const settings = loadConfig();
  refuseCredentialsForEmbeddedTemporal(settings, '`npm run start:cluster`');
  const dataDir = join(fromRoot(launcher.DATA_DIR), 'cluster');
  const logs = join(dataDir, 'logs');
  mkdirSync(logs, { recursive: true });
  const bin = (name: string) => {
    const path = join(fromRoot(launcher.TOOLS_DIR), 'bin', name);
    if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run start:cluster\` (scripts/start-cluster.sh builds it)`);
    return path;
  };
  const liveness: LivenessPolicy = {
    intervalMs: launcher.LIVENESS_INTERVAL_MS ?? DEFAULT_LIVENESS_POLICY.intervalMs,
    timeoutMs: launcher.LIVENESS_TIMEOUT_MS ?? DEFAULT_LIVENESS_POLICY.timeoutMs,
    failures: launcher.LIVENESS_FAILURES ?? DEFAULT_LIVENESS_POLICY.failures,
  };
  const initialBackoffMs = launcher.RESTART_BACKOFF_MS ?? DEFAULT_RESTART_POLICY.initialBackoffMs;
  const restart: RestartPolicy = {
    ...DEFAULT_RESTART_POLICY,
    initialBackoffMs,
    maxBackoffMs: Math.max(initialBackoffMs, launcher.RESTART_MAX_BACKOFF_MS ?? DEFAULT_RESTART_POLICY.maxBackoffMs),
  };

  const children: Supervised[] = [];
  let balancer: Server | null = null;
  let stopping = false;
  const watchdog = startWatchdog((code) => {
    if (!stopping) say(`the watchdog exited (${code}): if the launcher is killed now, the servers will outlive it`);
  });
  const clusterFile = join(dataDir, 'cluster.json');
  // A file left by an earlier run must not send tests to servers that are gone.
  rmSync(clusterFile, { force: true });
  /** Each child's pid by name, current after a restart, for benchmarks (bench/clusterTarget.ts). */
  const stateFile = clusterStateKeeper(clusterFile);
  const stopAll = async () => {
    stopping = true;
    stateFile.stopped();
    rmSync(clusterFile, { force: true });
    balancer?.close();
    balancer?.closeAllConnections();
    await stopInReverse(children, say);
  };
  const keep = (first: ManagedProcess, start: () => Promise<ManagedProcess>, probe: LivenessProbe) => {
    say(`${first.name} running (pid ${first.child.pid})`);
    const onStatus = (status: ChildState) => {
      if (status.state === 'running') stateFile.running(first.name, status.pid);
    };
    children.push(supervise({ name: first.name, first, start, policy: restart, log: say, liveness: { probe, policy: liveness }, onStatus }));
  };
  /** Starts a child, supervised from then on, and says how long it took. */
  const up = async (start: () => Promise<ManagedProcess>, probe: LivenessProbe, label?: string) => {
    const t0 = Date.now();
    const first = await start();
    keep(first, start, probe);
    say(`${label ?? first.name} ready (${seconds(Date.now() - t0)})`);
    return first;
  };
  stopOnSignals(() => stopping, stopAll, say);

  try {
    await refuseBusyPort(settings.PORT, 'the cluster address', 'PORT');

    // PostgreSQL, then Temporal's databases and schema on it (and FerretDB's database).
    const pgPort = await freePort();
    const db = { host: '127.0.0.1', port: pgPort, user: 'temporal', password: cluster.POSTGRES_PASSWORD };
    const startPg = async () =>
      (
        await startPostgres({
          binDir: cluster.PG_BIN_DIR,
          dataDir: join(dataDir, 'postgres'),
          port: pgPort,
          user: db.user,
          password: db.password,
          logFile: join(logs, 'postgresql.log'),
          watchdog,
        })
      ).process;
    await up(startPg, postgresProbe(cluster.PG_BIN_DIR, pgPort, db.user), `PostgreSQL on 127.0.0.1:${pgPort}`);
    let t0 = Date.now();
    await setUpTemporalSchema(bin('temporal-sql-tool'), db, ['ferretdb']);
    say(`Temporal schema up to date (temporal-sql-tool, ${seconds(Date.now() - t0)})`);

    // Temporal: each service a process of its own, from one config file.
    const ports = await temporalPorts();
    const configDir = join(dataDir, 'temporal');
    writeTemporalConfig(configDir, db, ports);
    const temporalBinary = bin('temporal-server');
    // All at once, as an orchestrator starts them: history reports SERVING only once matching answers.
    await Promise.all(
      TEMPORAL_SERVICES.map((service) => {
        const start = () =>
          startTemporalService({ binary: temporalBinary, configDir, service, ports, logFile: join(logs, `temporal-${service}.log`), watchdog }, (err) =>
            say(`Temporal ${service} exited during start-up; starting it again (${err.message.split('\n')[0]})`),
          );
        return up(start, temporalServiceHealth(ports, service));
      }),
    );
    const temporalAddress = `127.0.0.1:${ports.services.frontend.grpc}`;
    t0 = Date.now();
    await ensureNamespace(temporalAddress, settings.TEMPORAL_NAMESPACE);
    say(`namespace ${settings.TEMPORAL_NAMESPACE} and search attributes registered (${seconds(Date.now() - t0)})`);

    // FerretDB on the same PostgreSQL.
    const ferretPort = await freePort();
    const postgresUrl = `postgres://${db.user}:${encodeURIComponent(db.password)}@127.0.0.1:${pgPort}/ferretdb`;
    const startFerret = async () =>
      (await startFerretDbOnPostgres({ binary: bin('ferretdb'), port: ferretPort, postgresUrl, stateDir: join(dataDir, 'ferretdb-state'), logFile: join(logs, 'ferretdb.log'), watchdog }))
        .process;
    const mongoUrl = `mongodb://127.0.0.1:${ferretPort}/`;
    await up(startFerret, mongoPing(mongoUrl), `FerretDB (PostgreSQL handler) on 127.0.0.1:${ferretPort}`);

    const consoleToken = settings.CONSOLE_TOKEN ?? keptSecret(join(dataDir, 'console-token'), () => `ctk_${randomBytes(24).toString('hex')}`);
    const env: NodeJS.ProcessEnv = { ...process.env, MONGODB_URL: mongoUrl, TEMPORAL_ADDRESS: temporalAddress, CONSOLE_TOKEN: consoleToken, DATA_DIR: dataDir };
    const config = loadConfig(env);
    const { client: mongo, db: store } = await connectMongo(config, 'cluster launcher');
    await ensureEveryIndex(store);
    const temporalClient = await connectTemporalClient(config);

    /** One of our Node processes with its own port(s), ready when `readyPath` on `port` answers 200. */
    const nodeProcess = (name: string, script: string, ownEnv: NodeJS.ProcessEnv, readyUrl: string, readyWithinMs: number) => async () => {
      const child = startProcess(name, process.execPath, [join(__dirname, `${script}.js`)], {
        env: { ...env, ...ownEnv },
        logFile: join(logs, `${name}.log`),
        watchdog,
        ipc: true,
      });
      await untilReady(child, waitFor(name, () => httpOk(readyUrl), readyWithinMs, 250));
      return child;
    };

    /**
     * Processes of one kind start together (each bundles or loads on its own, none needs another),
     * as do the API and media pools. All settle before a failure is thrown, so the stop that
     * follows finds every child that started.
     */
    const allStarted = async <T>(starts: Promise<T>[]): Promise<T[]> => {
      const settled = await Promise.allSettled(starts);
      const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
    };
    const startEach = (count: number, startOne: (i: number) => Promise<Upstream>) => allStarted(Array.from({ length: count }, (_, i) => startOne(i + 1)));
    const workers = await startEach(cluster.CLUSTER_WORKER_PROCESSES, async (i) => {
      const metrics = await freePort();
      const health = `http://127.0.0.1:${metrics}/healthz`;
      const first = await up(nodeProcess(`worker-${i}`, 'worker', { WORKER_METRICS_PORT: String(metrics) }, health, 120_000), httpHealth(health));
      // Polling is not proof: a workflow must run an activity that writes MongoDB.
      if (i === 1) await untilReady(first, runSystemCheck(temporalClient, config.TEMPORAL_TASK_QUEUE));
      return { host: '127.0.0.1', port: metrics };
    });
    say('system check passed (a workflow ran an activity that wrote the store)');
    const apiPool = startEach(cluster.CLUSTER_API_PROCESSES, async (i) => {
      const port = await freePort();
      await up(nodeProcess(`api-${i}`, 'api', { PORT: String(port), HOST: '127.0.0.1' }, `http://127.0.0.1:${port}/readyz`, 60_000), httpHealth(`http://127.0.0.1:${port}/healthz`));
      return { host: '127.0.0.1', port };
    });
    const mediaPool = startEach(cluster.CLUSTER_MEDIA_PROCESSES, async (i) => {
      const port = await freePort();
      await up(nodeProcess(`media-${i}`, 'media', { MEDIA_PORT: String(port), HOST: '127.0.0.1' }, `http://127.0.0.1:${port}/healthz`, 60_000), httpHealth(`http://127.0.0.1:${port}/healthz`));
      return { host: '127.0.0.1', port };
    });
    await Promise.allSettled([apiPool, mediaPool]);
    const [apis, medias] = [await apiPool, await mediaPool];
    balancer = await startBalancer({ port: config.PORT, api: apis, media: medias });
    const address = `http://127.0.0.1:${config.PORT}`;
    say(`balancer on ${address}: ${apis.length} API and ${medias.length} media processes behind it (node's http, src/local/cluster/balancer.ts)`);

    const keyFile = join(dataDir, 'demo-api-key');
    const known = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : null;
    const demo = await seedDemoWorkspace(store, {
      workspaceId: DEMO_WORKSPACE_ID,
      name: 'Demo workspace',
      environment: config.API_ENVIRONMENT,
      knownApiKey: known,
      faqDocument: true,
    });
    if (demo.keyCreated) writeFileSync(keyFile, `${demo.apiKey}\n`, { mode: 0o600 });
    await temporalClient.connection.close();
    await mongo.close();
    // Through the balancer, as a client would: the key must work end to end.
    await waitFor('the API through the balancer', () => httpOk(`${address}/readyz`), 30_000);

    stateFile.ready({
      api_url: address,
      temporal_address: temporalAddress,
      temporal_namespace: config.TEMPORAL_NAMESPACE,
      mongodb_url: mongoUrl,
      mongodb_db: config.MONGODB_DB,
      postgres_port: pgPort,
      temporal_ports: ports,
      api: apis,
      media: medias,
      worker_metrics: workers,
      providers: { voice: config.VOICE_PROVIDER, whatsapp: config.WHATSAPP_PROVIDER },
      launcher_pid: process.pid,
    });
    say(`everything ready in ${seconds(Date.now() - began)}; logs in ${logs}`);
    process.stdout.write(`API: ${address}\n`);
    process.stdout.write(`Temporal: ${temporalAddress} (no Web UI in the cluster: \`temporal workflow list --address ${temporalAddress}\`)\n`);
    process.stdout.write(`MongoDB (FerretDB on PostgreSQL): ${mongoUrl}\n`);
    process.stdout.write(`Web console: ${address}/console/\n`);
    process.stdout.write(`Media streams: ws://127.0.0.1:${config.PORT}${MEDIA_STREAM_PATH}/<call id>/<secret>\n`);
    process.stdout.write(`API key: ${demo.apiKey}\n`);
    if (!settings.CONSOLE_TOKEN) process.stdout.write(`Console token: ${consoleToken}\n`);
    say('press Ctrl-C to stop');
  } catch (err) {
    if (!stopping) await stopAll();
    throw err;
  }
});
