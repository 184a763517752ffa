import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { KeyStore } from '../src/auth/keyStore';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { startProcess, untilReady, type ManagedProcess } from '../src/local/childProcess';
import { freePort, waitFor } from '../src/local/net';
import { toolPath } from '../src/local/paths';
import { startFerretDb, startTemporalDevServer } from '../src/local/servers';
import { formatProfile, summariseProfiles } from './cpuProfileSummary';
import { formatForgedForms, measureForgedFormStall } from './forgedFormStall';
import { cpuMeter, formatPerUnit, perUnit, writeBenchFigures, type CpuUse } from './processCpu';
import { refuseClusterTarget } from './clusterTarget';

/**
 * `npm run bench:api`: requests per second and latency of an authenticated, rate-limited
 * GET /api/v1/agents spread over many keys, next to a bare Koa JSON route, in one run on
 * the embedded defaults (FerretDB on SQLite, the Temporal dev server). Loopback only,
 * bounded in time. Prints the figures, the ratio, and the CPU each process spent per
 * request; writes them to .bench/api-<time>.json. Then the forged-forms phase (issue 32,
 * bench/forgedFormStall.ts): the API's longest event-loop stall under three forged 4 MB Twilio
 * forms, beside its 250 ms target.
 *
 * BENCH_SECONDS (default 10), BENCH_WARMUP_SECONDS (3, both paths' keys unmeasured first),
 * BENCH_CONNECTIONS (50), BENCH_WORKSPACES (20), BENCH_KEYS (30 per workspace and path: each
 * measured path has keys of its own, enough that none reaches the 120 a minute limit at
 * 6,000 requests/s, so a 429 never passes for throughput),
 * RATE_LIMIT_STORE (mongodb, the default, or memory), BENCH_CPU_PROF (1: profile the API and
 * summarise each run), BENCH_FORM_ROUNDS (5: rounds of the forged forms), BENCH_KEEP_DIR (1: keep
 * the data folder, profiles and logs), TOOLS_DIR.
 */

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const workspaceCount = Number(process.env.BENCH_WORKSPACES ?? 20);
const keysPerWorkspace = Number(process.env.BENCH_KEYS ?? 30);
const PATHS = ['/api/v1/agents', '/api/v1/ping'] as const;
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const cpuProfile = process.env.BENCH_CPU_PROF === '1';
const formRounds = Number(process.env.BENCH_FORM_ROUNDS ?? 5);
const tools = process.env.TOOLS_DIR ?? '.tools';

async function load(url: string, keys: string[] | null, duration = seconds): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url,
    connections,
    duration,
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

interface RunFigures {
  path: string;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
  cpu: CpuUse;
  cpu_ms_per_request: Record<string, number | null>;
}

async function main(): Promise<void> {
  refuseClusterTarget('bench:api');
  const dir = mkdtempSync(join(tmpdir(), 'bench-api-'));
  const profileDir = join(dir, 'profiles');
  const children: ManagedProcess[] = [];
  try {
    const [mongoPort, temporalPort, uiPort, apiPort, barePort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const ferret = await startFerretDb({ binary: toolPath(tools, 'ferretdb'), port: mongoPort, dataDir: dir, logFile: join(dir, 'ferretdb.log') });
    children.push(ferret.process);
    const temporal = await startTemporalDevServer({
      binary: toolPath(tools, 'temporal'),
      port: temporalPort,
      uiPort,
      dataDir: dir,
      logFile: join(dir, 'temporal.log'),
    });
    children.push(temporal.process);

    const mongo = await new MongoClient(ferret.address).connect();
    const db = mongo.db('bench');
    const keyStore = new KeyStore(db);
    const keysByPath = new Map<string, string[]>(PATHS.map((path) => [path, []]));
    for (let w = 0; w < workspaceCount; w++) {
      const seeded = await seedDemoWorkspace(db, { workspaceId: `ws_bench_${w}`, name: `bench ${w}`, environment: 'test' });
      for (const [i, path] of PATHS.entries()) {
        const keys = keysByPath.get(path)!;
        if (i === 0) keys.push(seeded.apiKey);
        while (keys.length < (w + 1) * keysPerWorkspace) keys.push((await keyStore.create(`ws_bench_${w}`, ['agents:read'], 'test')).plaintext);
      }
    }
    const keys = [...keysByPath.values()].flat();
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
      // The Twilio webhooks are mounted for the forged-forms phase; nothing else reads these.
      VOICE_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000',
      TWILIO_AUTH_TOKEN: 'bench-twilio-auth-token',
      TWILIO_PUBLIC_URL: 'https://voice.example.test',
      TWILIO_MEDIA_STREAM_URL: 'wss://media.example.test/media-stream',
    };
    if (cpuProfile) mkdirSync(profileDir, { recursive: true });
    const profileArgs = cpuProfile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const api = startProcess('api', process.execPath, [...profileArgs, join(__dirname, '../src/main/api.js')], { env, logFile: join(dir, 'api.log') });
    children.push(api);
    await untilReady(api, waitFor('API', async () => (await fetch(`http://127.0.0.1:${apiPort}/readyz`)).ok, 30_000));

    const bare = startProcess('bare-koa', process.execPath, [join(__dirname, 'bareKoa.js'), String(barePort)], { logFile: join(dir, 'bare.log') });
    children.push(bare);
    await untilReady(bare, waitFor('bare Koa', async () => (await fetch(`http://127.0.0.1:${barePort}/`)).ok, 10_000));

    process.stdout.write(
      `GET /api/v1/agents and /api/v1/ping, each over ${keysByPath.get(PATHS[0])!.length} keys of its own in ${workspaceCount} workspaces; ${connections} connections; ${seconds} s each; embedded FerretDB (SQLite); rate-limit counters in ${env.RATE_LIMIT_STORE}\n`,
    );
    const bareResult = await load(`http://127.0.0.1:${barePort}/`, null);
    process.stdout.write(`${line('bare Koa JSON route', bareResult)}\n`);

    // The keyed runs, each with the CPU every process spent on it: the profile that shows
    // where the time goes.
    const meter = cpuMeter(
      { api: api.child.pid!, ferretdb: ferret.process.child.pid!, temporal: temporal.process.child.pid! },
      ['ferretdb', 'temporal'],
    );
    // Unmeasured: fills the connection pools, the credential cache and the first claims.
    await load(`http://127.0.0.1:${apiPort}/api/v1/agents`, keys, warmupSeconds);
    const runs: RunFigures[] = [];
    for (const path of PATHS) {
      const from = meter.mark();
      const result = await load(`http://127.0.0.1:${apiPort}${path}`, keysByPath.get(path)!);
      const cpu = meter.since(from);
      runs.push({
        path,
        requests_per_second: Math.round(result.requests.average),
        p50_ms: result.latency.p50,
        p99_ms: result.latency.p99,
        non_2xx: result.non2xx,
        errors: result.errors,
        cpu,
        cpu_ms_per_request: perUnit(cpu, result.requests.total),
      });
      process.stdout.write(`${line(`GET ${path} (keyed)`, result)}\n`);
      process.stdout.write(`${formatPerUnit(cpu, result.requests.total, 'request')} (bench = the load generator)\n`);
      if (result.non2xx > 0) process.stdout.write(`  ${result.non2xx} answers were not 2xx: this run's rate does not count (npm run bench's summary says so)\n`);
    }
    process.stdout.write(`ratio keyed /agents to bare: ${(runs[0]!.requests_per_second / bareResult.requests.average).toFixed(3)}\n`);
    const forgedForms = await measureForgedFormStall(apiPort, formRounds);
    process.stdout.write(`${formatForgedForms(forgedForms)}\n`);

    for (const child of children.reverse()) await child.stop();
    children.length = 0;
    if (cpuProfile) {
      for (const run of runs) {
        process.stdout.write(`CPU profile of the API, GET ${run.path}:\n`);
        for (const summary of summariseProfiles(profileDir, run.cpu.window)) process.stdout.write(`${formatProfile('api', summary)}\n`);
      }
    }
    const file = writeBenchFigures('api', {
      at: new Date().toISOString(),
      settings: { seconds, connections, keys: keys.length, workspaces: workspaceCount, rate_limit_store: env.RATE_LIMIT_STORE },
      bare_requests_per_second: Math.round(bareResult.requests.average),
      runs: runs.map(({ cpu, ...run }) => ({ ...run, cpu: { ...cpu, window: undefined } })),
      forged_forms: forgedForms,
    });
    process.stdout.write(`written to ${file}\n`);
  } finally {
    for (const child of children.reverse()) await child.stop();
    if (process.env.BENCH_KEEP_DIR === '1') process.stdout.write(`kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
