import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, loadLauncherConfig } from '../config';
import { connectMongo } from '../db/mongo';
import { ensureEveryIndex } from './indexes';
import { connectTemporalClient } from '../temporal/client';
import { refuseCredentialsForEmbeddedTemporal } from '../temporal/connectionSettings';
import { runSystemCheck } from '../temporal/systemCheck';
import { DEMO_WORKSPACE_ID, seedDemoWorkspace } from '../demo/seedDemoWorkspace';
import { startProcess, untilReady, type ManagedProcess } from '../local/childProcess';
import { DEFAULT_RESTART_POLICY, seconds, supervise, type RestartPolicy, type Supervised } from '../local/supervisor';
import { writeChildrenStatus, type ChildrenStatus } from '../local/childrenStatus';
import { refuseBusyPort, waitFor } from '../local/net';
import { DEFAULT_LIVENESS_POLICY, httpHealth, mongoPing, temporalHealth, type LivenessPolicy, type LivenessProbe } from '../local/liveness';
import { startWatchdog } from '../local/watchdog';
import { stopInReverse, stopOnSignals } from '../local/shutdown';
import { fromRoot, toolPath } from '../local/paths';
import { startFerretDb, startTemporalDevServer } from '../local/servers';
import { MEDIA_STREAM_PATH } from '../calls/line/streamUrl';
import { runMain } from './runMain';

/**
 * `npm start`: brings up the whole system on loopback (Temporal dev server, FerretDB, the
 * worker, the API, the media bridge), waits for each, seeds the demo workspace, prints where everything is,
 * and stops every child in order on Ctrl-C. A child that dies, or stops answering its
 * liveness check, is restarted (src/local/supervisor.ts) while the others keep running, for as
 * long as it fails; DATA_DIR/children.json says which is down, for the API's /readyz. No
 * child outlives the launcher, however it ends (src/local/watchdog.ts). MONGODB_URL or
 * TEMPORAL_ADDRESS, when set, are used as they are and no local server is started for them.
 */

// A reader that went away (`npm start | tee log`, tee killed first) must not kill the
// launcher mid-shutdown with EPIPE: its lines are dropped and it carries on stopping.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
const say = (line: string) => {
  if (process.stdout.writable) process.stdout.write(`[start] ${line}\n`);
};

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  return res.ok;
}

/** A token given once stays valid across restarts, so a person's CLI keeps working. */
function consoleToken(dataDir: string, fromEnv: string | undefined): { token: string; generated: boolean } {
  if (fromEnv) return { token: fromEnv, generated: false };
  const file = join(dataDir, 'console-token');
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), generated: true };
  const token = `ctk_${randomBytes(24).toString('hex')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, generated: true };
}

runMain(async () => {
  const began = Date.now();
  const launcher = loadLauncherConfig();
  const settings = loadConfig();
  const dataDir = fromRoot(launcher.DATA_DIR);
  const logs = join(dataDir, 'logs');
  mkdirSync(logs, { recursive: true });
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
  // What /readyz reports of the other children: rewritten on each change, one write at a time.
  const statusFile = join(dataDir, 'children.json');
  const statuses: ChildrenStatus = {};
  let statusWritten = Promise.resolve();
  const recordStatus = () => {
    statusWritten = statusWritten
      .then(() => writeChildrenStatus(statusFile, statuses))
      .catch((err: unknown) => say(`could not write ${statusFile}: ${err instanceof Error ? err.message : String(err)}`));
  };
  // A file left by an earlier run must not speak for this one's children.
  recordStatus();

  const children: Supervised[] = [];
  let stopping = false;
  const watchdog = startWatchdog((code) => {
    if (!stopping) say(`the watchdog exited (${code}): if the launcher is killed now, Temporal and FerretDB will outlive it`);
  });
  const stopAll = async () => {
    stopping = true;
    // Reverse start order: the media bridge, the API and the worker finish their work before the servers go.
    await stopInReverse(children, say);
  };
  /** From here on the child is restarted when it dies or stops answering `probe`; `start` is how it came up the first time. */
  const keep = async (first: ManagedProcess, start: () => Promise<ManagedProcess>, probe: LivenessProbe) => {
    // A signal began the stop while this child was starting: the stop did not see it, so it goes here, and the start-up ends.
    if (stopping) {
      await first.stop();
      throw new Error(`${first.name} came up after the stop began`);
    }
    say(`${first.name} running (pid ${first.child.pid})`);
    const onStatus = (status: ChildrenStatus[string]) => {
      statuses[first.name] = status;
      recordStatus();
    };
    children.push(supervise({ name: first.name, first, start, policy: restart, log: say, onStatus, liveness: { probe, policy: liveness } }));
  };
  stopOnSignals(() => stopping, stopAll, say);

  try {
    /** Starts one of the embedded servers, supervised (restarted the same way), and answers its address. */
    const embedded = async (label: string, start: () => Promise<{ process: ManagedProcess; address: string }>, probe: (address: string) => LivenessProbe) => {
      const t0 = Date.now();
      const server = await start();
      await keep(server.process, async () => (await start()).process, probe(server.address));
      say(`${label} ready on ${server.address} (${seconds(Date.now() - t0)})`);
      return server.address;
    };

    let temporalAddress = settings.TEMPORAL_ADDRESS;
    let temporalUi = process.env.TEMPORAL_UI_URL ?? '(external Temporal: open its own Web UI)';
    if (process.env.TEMPORAL_ADDRESS) {
      say(`using Temporal at ${temporalAddress}`);
    } else {
      refuseCredentialsForEmbeddedTemporal(settings, '`npm start`');
      const startTemporal = () =>
        startTemporalDevServer({
          binary: toolPath(launcher.TOOLS_DIR, 'temporal'),
          port: launcher.TEMPORAL_PORT,
          uiPort: launcher.TEMPORAL_UI_PORT,
          dataDir,
          namespace: settings.TEMPORAL_NAMESPACE,
          logFile: join(logs, 'temporal.log'),
          watchdog,
        });
      temporalAddress = await embedded('Temporal dev server', startTemporal, temporalHealth);
      temporalUi = `http://127.0.0.1:${launcher.TEMPORAL_UI_PORT}`;
    }

    let mongoUrl = settings.MONGODB_URL;
    if (process.env.MONGODB_URL) {
      say('using MongoDB at MONGODB_URL');
    } else {
      const startFerret = () =>
        startFerretDb({
          binary: toolPath(launcher.TOOLS_DIR, 'ferretdb'),
          port: launcher.FERRETDB_PORT,
          dataDir,
          logFile: join(logs, 'ferretdb.log'),
          watchdog,
        });
      mongoUrl = await embedded('FerretDB', startFerret, mongoPing);
    }

    const admin = consoleToken(dataDir, settings.CONSOLE_TOKEN);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      MONGODB_URL: mongoUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      CONSOLE_TOKEN: admin.token,
      LAUNCHER_STATUS_FILE: statusFile,
    };
    const config = loadConfig(env);
    await refuseBusyPort(config.PORT, 'the API', 'PORT');
    await refuseBusyPort(config.WORKER_METRICS_PORT, 'the worker', 'WORKER_METRICS_PORT');
    await refuseBusyPort(config.MEDIA_PORT, 'the media process', 'MEDIA_PORT');

    const { client: mongo, db } = await connectMongo(config, 'launcher');
    await ensureEveryIndex(db);
    const temporalClient = await connectTemporalClient(config);

    /** One of our own Node processes (`<name>.js` beside this file), ready when `readyUrl` answers 200. */
    const nodeProcess = (name: string, readyUrl: string, readyWithinMs: number, pollMs: number) => async () => {
      const child = startProcess(name, process.execPath, [join(__dirname, `${name}.js`)], {
        env,
        logFile: join(logs, `${name}.log`),
        watchdog,
        ipc: true,
      });
      await untilReady(child, waitFor(name, () => httpOk(readyUrl), readyWithinMs, pollMs));
      return child;
    };

    let t0 = Date.now();
    const workerHealth = `http://127.0.0.1:${config.WORKER_METRICS_PORT}/healthz`;
    const startWorker = nodeProcess('worker', workerHealth, 120_000, 250);
    const worker = await startWorker();
    // Polling is not proof: a workflow must run an activity that writes MongoDB.
    await untilReady(worker, runSystemCheck(temporalClient, config.TEMPORAL_TASK_QUEUE));
    await keep(worker, startWorker, httpHealth(workerHealth));
    say(`worker ready, system check passed (${seconds(Date.now() - t0)})`);

    t0 = Date.now();
    const apiUrl = `http://127.0.0.1:${config.PORT}`;
    const startApi = nodeProcess('api', `${apiUrl}/readyz`, 60_000, 200);
    await keep(await startApi(), startApi, httpHealth(`${apiUrl}/healthz`));
    say(`API ready (${seconds(Date.now() - t0)})`);

    // The media bridge (Twilio media streams ↔ the realtime model); its calls' sockets live
    // here, so the API stays stateless. Started last, so it stops first.
    t0 = Date.now();
    const mediaUrl = `http://127.0.0.1:${config.MEDIA_PORT}`;
    const startMedia = nodeProcess('media', `${mediaUrl}/healthz`, 60_000, 200);
    await keep(await startMedia(), startMedia, httpHealth(`${mediaUrl}/healthz`));
    say(`media bridge ready (${seconds(Date.now() - t0)})`);

    const keyFile = join(dataDir, 'demo-api-key');
    const known = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : null;
    const demo = await seedDemoWorkspace(db, {
      workspaceId: DEMO_WORKSPACE_ID,
      name: 'Demo workspace',
      environment: config.API_ENVIRONMENT,
      knownApiKey: known,
      faqDocument: true,
    });
    if (demo.keyCreated) writeFileSync(keyFile, `${demo.apiKey}\n`, { mode: 0o600 });
    await temporalClient.connection.close();
    await mongo.close();
    if (stopping) return;

    say(`everything ready in ${seconds(Date.now() - began)}; logs in ${logs}`);
    process.stdout.write(`API: ${apiUrl}\n`);
    process.stdout.write(`Temporal UI: ${temporalUi}\n`);
    process.stdout.write(`Web console: ${apiUrl}/console/\n`);
    process.stdout.write(`Media streams: ws://127.0.0.1:${config.MEDIA_PORT}${MEDIA_STREAM_PATH}/<call id>/<secret>\n`);
    process.stdout.write(`API key: ${demo.apiKey}\n`);
    if (admin.generated) process.stdout.write(`Console token: ${admin.token}\n`);
    say(
      `a child that dies is restarted after ${seconds(restart.initialBackoffMs)} (doubling to at most ${seconds(restart.maxBackoffMs)}), ` +
        `for as long as it fails, while the others keep serving; /readyz names a child that is down`,
    );
    say(
      `each child is checked every ${seconds(liveness.intervalMs)} (${seconds(liveness.timeoutMs)} to answer); ` +
        `one that misses ${liveness.failures} checks in a row is stopped and restarted`,
    );
    say('press Ctrl-C to stop');
  } catch (err) {
    // A stop begun by a signal fails whatever was starting (its servers went): no crash, the stop's handler ends with exit 0.
    if (stopping) return;
    await stopAll();
    throw err;
  }
});
