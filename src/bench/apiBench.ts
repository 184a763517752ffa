import autocannon from 'autocannon';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { KeyStore } from '../auth/keyStore';
import { seedDemoWorkspace } from '../demo/seedDemoWorkspace';
import { startProcess, untilReady, type ManagedProcess } from '../local/childProcess';
import { freePort, waitFor } from '../local/net';
import { toolPath } from '../local/paths';
import { startFerretDb, startTemporalDevServer } from '../local/servers';

/**
 * `npm run bench:api`: requests per second and latency of an authenticated, rate-limited
 * GET /api/v1/agents spread over many keys, next to a bare Koa JSON route, in one run on
 * the embedded defaults (FerretDB on SQLite, the Temporal dev server). Loopback only,
 * bounded in time. Prints the figures, the ratio, and the CPU each process used.
 *
 * BENCH_SECONDS (default 10), BENCH_CONNECTIONS (50), BENCH_WORKSPACES (20), BENCH_KEYS (20 per workspace),
 * RATE_LIMIT_STORE (mongodb, the default, or memory).
 */

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const workspaceCount = Number(process.env.BENCH_WORKSPACES ?? 20);
const keysPerWorkspace = Number(process.env.BENCH_KEYS ?? 20);

/** CPU seconds a process has used so far (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function load(url: string, keys: string[] | null): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          if (!keys) return req;
          const key = keys[next++ % keys.length]!;
          return { ...req, headers: { ...req.headers, authorization: `Bearer ${key}` } };
        },
      },
    ],
  });
}

function line(name: string, r: autocannon.Result): string {
  return `${name.padEnd(28)} ${String(Math.round(r.requests.average)).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-api-'));
  const children: ManagedProcess[] = [];
  try {
    const [mongoPort, temporalPort, uiPort, apiPort, barePort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const ferret = await startFerretDb({ binary: toolPath('.tools', 'ferretdb'), port: mongoPort, dataDir: dir, logFile: join(dir, 'ferretdb.log') });
    children.push(ferret.process);
    const temporal = await startTemporalDevServer({
      binary: toolPath('.tools', 'temporal'),
      port: temporalPort,
      uiPort,
      dataDir: dir,
      logFile: join(dir, 'temporal.log'),
    });
    children.push(temporal.process);

    const mongo = await new MongoClient(ferret.address).connect();
    const db = mongo.db('bench');
    const keyStore = new KeyStore(db);
    const keys: string[] = [];
    for (let w = 0; w < workspaceCount; w++) {
      const seeded = await seedDemoWorkspace(db, { workspaceId: `ws_bench_${w}`, name: `bench ${w}`, environment: 'test' });
      keys.push(seeded.apiKey);
      for (let k = 1; k < keysPerWorkspace; k++) keys.push((await keyStore.create(`ws_bench_${w}`, ['agents:read'], 'test')).plaintext);
    }
    await mongo.close();

    const env = {
      ...process.env,
      PORT: String(apiPort),
      MONGODB_URL: ferret.address,
      MONGODB_DB: 'bench',
      TEMPORAL_ADDRESS: temporal.address,
      CONSOLE_TOKEN: 'bench-console-token-0123456789',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_STORE: process.env.RATE_LIMIT_STORE ?? 'mongodb',
      WORKER_METRICS_PORT: String(await freePort()),
    };
    const api = startProcess('api', process.execPath, [join(__dirname, '../main/api.js')], { env, logFile: join(dir, 'api.log') });
    children.push(api);
    await untilReady(api, waitFor('API', async () => (await fetch(`http://127.0.0.1:${apiPort}/readyz`)).ok, 30_000));

    const bare = startProcess('bare-koa', process.execPath, [join(__dirname, 'bareKoa.js'), String(barePort)], { logFile: join(dir, 'bare.log') });
    children.push(bare);
    await untilReady(bare, waitFor('bare Koa', async () => (await fetch(`http://127.0.0.1:${barePort}/`)).ok, 10_000));

    process.stdout.write(
      `GET /api/v1/agents over ${keys.length} keys in ${workspaceCount} workspaces; ${connections} connections; ${seconds} s each; embedded FerretDB (SQLite); rate-limit counters in ${env.RATE_LIMIT_STORE}\n`,
    );
    const bareResult = await load(`http://127.0.0.1:${barePort}/`, null);
    process.stdout.write(`${line('bare Koa JSON route', bareResult)}\n`);

    // The keyed runs, each with the CPU the API and FerretDB spent on it: the profile that
    // shows where the time goes. /ping makes 3 database round trips, /agents 5.
    let agentsResult: autocannon.Result | undefined;
    const counter = env.RATE_LIMIT_STORE === 'mongodb' ? ', rate-limit counter' : '';
    for (const [path, trips] of [
      ['/api/v1/agents', `key, workspace${counter}, agents, numbers`],
      ['/api/v1/ping', `key, workspace${counter}`],
    ] as const) {
      const before = { api: cpuSeconds(api.child.pid!), ferret: cpuSeconds(ferret.process.child.pid!) };
      const result = await load(`http://127.0.0.1:${apiPort}${path}`, keys);
      const used = { api: cpuSeconds(api.child.pid!) - before.api, ferret: cpuSeconds(ferret.process.child.pid!) - before.ferret };
      agentsResult ??= result;
      process.stdout.write(`${line(`GET ${path} (keyed)`, result)}\n`);
      process.stdout.write(
        `  CPU: api ${used.api.toFixed(1)} s, FerretDB ${used.ferret.toFixed(1)} s in ${seconds} s on 2 cores; per request api ${((used.api / result.requests.total) * 1e6).toFixed(0)} µs, FerretDB ${((used.ferret / result.requests.total) * 1e6).toFixed(0)} µs (round trips: ${trips})\n`,
      );
    }
    process.stdout.write(`ratio keyed /agents to bare: ${(agentsResult!.requests.average / bareResult.requests.average).toFixed(3)}\n`);
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
