import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MongoClient } from 'mongodb';
import { generateApiKey } from '../src/auth/apiKeys';
import { collections } from '../src/db/collections';
import { newId } from '../src/domain/ids';
import { SCOPES } from '../src/domain/scopes';
import { startProcess, untilReady } from '../src/local/childProcess';
import { freePort, waitFor } from '../src/local/net';
import { toolPath } from '../src/local/paths';
import { startFerretDb, startTemporalDevServer } from '../src/local/servers';
import type { OpCount } from '../src/observability/databaseOpTally';
import { cpuSeconds, distribution, loadAverage, peakRssMiB, sleep } from './benchStats';
import { person } from './scaleData';
import { readManifest, scaleDir, type SeedManifest } from './seedScale';
import { BENCH_CONSOLE_TOKEN } from './embeddedSystem';
import { runWorkerLoad, scaleDataDir, startScaleWorker, withWorker, type WorkerLoad } from './scaleWorker';
import { refuseClusterTarget } from './clusterTarget';

/**
 * `npm run bench:scale` (docs/scale.md): on the data `npm run seed:scale` wrote under
 * SCALE_DIR, every public and console list, filter, search and detail route of the big
 * workspace, one route at a time, BENCH_SCALE_CLIENTS (20) requests in flight for
 * BENCH_SCALE_REQUESTS (100) requests (or BENCH_SCALE_SECONDS, 20, whichever ends first).
 * Per route: p50 and p99 (target p99 < 150 ms), the documents FerretDB sent back per request
 * (`docs_read`, counted by the API's command monitor, src/observability/databaseOpTally.ts)
 * beside the documents the answer holds (target: at most that plus DOCS_SLACK), and FerretDB's
 * CPU per request (which shows a scan that returns little but reads everything). Written to
 * `.bench/scale-<time>.json`. FerretDB runs on the seeded files; Temporal (which the API
 * needs to start) in a temporary directory; no worker, so nothing changes the seeded data.
 */

const clients = Number(process.env.BENCH_SCALE_CLIENTS ?? 20);
const requestsPerRoute = Number(process.env.BENCH_SCALE_REQUESTS ?? 100);
const secondsPerRoute = Number(process.env.BENCH_SCALE_SECONDS ?? 20);
const only = process.env.BENCH_SCALE_ROUTES ? new RegExp(process.env.BENCH_SCALE_ROUTES) : null;
/** What every request needs besides its answer's documents: the key, the workspace, the record a sub-list belongs to. */
export const DOCS_SLACK = 5;
export const P99_TARGET_MS = 150;
/** The API's and worker's peak resident memory on the year's data (issue 36). */
export const MEMORY_TARGET_MIB = 500;
/** A client gives up after this; the API itself answers 503 after its 2 s database budget. */
const CLIENT_TIMEOUT_MS = 10_000;
/** The bench's own keys in the big workspace: requests rotate over them, under each key's rate limit. */
const KEYS = 60;

export interface ScaleRoute {
  name: string;
  path: (i: number) => string;
  console: boolean;
}

/** The day half a year before the seeded year's end, `YYYY-MM-DD`. */
const midYear = (m: SeedManifest): string => new Date(Date.parse(m.now) - 182 * 86_400_000).toISOString().slice(0, 10);

function routesFor(m: SeedManifest): ScaleRoute[] {
  const ws = m.big.tenantId;
  const c = `/console/v1/workspaces/${ws}`;
  const pick = (list: string[], i: number) => list[i % list.length]!;
  const publicRoute = (name: string, path: (i: number) => string): ScaleRoute => ({ name, path, console: false });
  const consoleRoute = (name: string, path: (i: number) => string): ScaleRoute => ({ name, path, console: true });
  const calls = m.samples.callIds;
  const conversations = m.samples.conversationIds;
  const campaigns = m.samples.campaignIds;
  const largest = m.samples.largestCampaignId;
  const tickets = m.samples.ticketIds;
  const whk = m.big.endpointId;
  // The big workspace's first person: called, messaged and a contact.
  const someone = encodeURIComponent(person(ws, 0).phone);
  return [
    publicRoute('GET /api/v1/calls/{id}', (i) => `/api/v1/calls/${pick(calls, i)}`),
    publicRoute('GET /api/v1/conversations', () => '/api/v1/conversations'),
    publicRoute('GET /api/v1/conversations/{id}', (i) => `/api/v1/conversations/${pick(conversations, i)}`),
    publicRoute('GET /api/v1/conversations/{id}/messages', (i) => `/api/v1/conversations/${pick(conversations, i)}/messages`),
    publicRoute('GET /api/v1/campaigns', () => '/api/v1/campaigns'),
    publicRoute('GET /api/v1/campaigns?status=completed', () => '/api/v1/campaigns?status=completed'),
    publicRoute('GET /api/v1/campaigns/{id}', (i) => `/api/v1/campaigns/${pick(campaigns, i)}`),
    publicRoute('GET /api/v1/campaigns/{largest}/recipients', () => `/api/v1/campaigns/${largest}/recipients`),
    publicRoute('GET /api/v1/contacts/lookup?phone', () => `/api/v1/contacts/lookup?phone=${someone}`),
    publicRoute('GET /api/v1/apps/dues/subscribers', () => '/api/v1/apps/dues/subscribers'),
    publicRoute('GET /api/v1/apps/dues/dues', () => '/api/v1/apps/dues/dues'),
    publicRoute('GET /api/v1/apps/dues/dues?scope=overdue', () => '/api/v1/apps/dues/dues?scope=overdue'),
    publicRoute('GET /api/v1/apps/dues/dues?scope=upcoming', () => '/api/v1/apps/dues/dues?scope=upcoming'),
    publicRoute('GET /api/v1/apps/dues/dues?status=paid', () => '/api/v1/apps/dues/dues?status=paid'),
    publicRoute('GET /api/v1/tickets/{id}', (i) => `/api/v1/tickets/${pick(tickets, i)}`),
    consoleRoute('GET console calls', () => `${c}/calls`),
    consoleRoute('GET console calls?status=completed', () => `${c}/calls?status=completed`),
    consoleRoute('GET console calls?outcome=no_answer', () => `${c}/calls?outcome=no_answer`),
    consoleRoute('GET console calls?status=failed', () => `${c}/calls?status=failed`),
    consoleRoute('GET console calls?to=<number>', () => `${c}/calls?to=${someone}`),
    // The seeded calls have all ended and none was placed by a campaign: a live status and a WhatsApp campaign's id list none (the old scan read every call for it).
    consoleRoute('GET console calls?status=in_progress', () => `${c}/calls?status=in_progress`),
    consoleRoute('GET console calls?campaign_id=<campaign>', () => `${c}/calls?campaign_id=${campaigns[0]}`),
    // A day half a year before the seeded year's end: its calls by creation time.
    consoleRoute('GET console calls?created_from&created_to=<a day>', () => `${c}/calls?created_from=${midYear(m)}&created_to=${midYear(m)}`),
    consoleRoute('GET console calls/{id}', (i) => `${c}/calls/${pick(calls, i)}`),
    consoleRoute('GET console find?q=<number>', () => `${c}/find?q=${someone}`),
    consoleRoute('GET console find?q=<name>', () => `${c}/find?q=Priya`),
    consoleRoute('GET console conversations', () => `${c}/conversations`),
    consoleRoute('GET console conversations?q=<name>', () => `${c}/conversations?q=Priya`),
    consoleRoute('GET console conversations?q=<number>', () => `${c}/conversations?q=${someone}`),
    consoleRoute('GET console conversations/{id}/transcript', (i) => `${c}/conversations/${pick(conversations, i)}/transcript`),
    consoleRoute('GET console campaigns', () => `${c}/campaigns`),
    consoleRoute('GET console campaigns/{id}', (i) => `${c}/campaigns/${pick(campaigns, i)}`),
    consoleRoute('GET console campaigns/{largest}/recipients', () => `${c}/campaigns/${largest}/recipients`),
    consoleRoute('GET console apps/dues/subscribers', () => `${c}/apps/dues/subscribers`),
    consoleRoute('GET console apps/dues/dues', () => `${c}/apps/dues/dues`),
    consoleRoute('GET console webhooks/{id}/deliveries', () => `${c}/webhooks/${whk}/deliveries`),
    consoleRoute('GET console webhooks/{id}/deliveries?status=failed', () => `${c}/webhooks/${whk}/deliveries?status=failed`),
    consoleRoute('GET console tickets/{id}', (i) => `${c}/tickets/${pick(tickets, i)}`),
  ].filter((r) => !only || only.test(r.name));
}

interface RouteResult {
  route: string;
  requests: number;
  statuses: Record<string, number>;
  p50_ms: number | null;
  p99_ms: number | null;
  /** Documents FerretDB sent back to the API, per request. */
  docs_read: number;
  /** Documents (items) in the answer, per request. */
  docs_returned: number;
  /** Database commands per request. */
  commands: number;
  ferretdb_cpu_ms: number;
  api_cpu_ms: number;
  p99_met: boolean;
  docs_met: boolean;
}

/** The API rewrites its tally file in place: a read that meets it half written reads again. */
function parsedTally(file: string): { counts: OpCount[] } {
  for (let attempt = 0; ; attempt++) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as { counts: OpCount[] };
    } catch (err) {
      if (attempt >= 20) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

function readTally(prefix: string): { returned: number; commands: number } {
  const dir = join(prefix, '..');
  let returned = 0;
  let commands = 0;
  for (const file of readdirSync(dir)) {
    if (!file.startsWith('ops.api.')) continue;
    const tally = parsedTally(join(dir, file));
    for (const c of tally.counts) {
      // The bench's own reads of the tally and the API's background sweeps are not requests' work:
      // only commands against the routes' collections count, which is every command here but
      // the rate-limit and idempotency sweeps (none run within a phase of a few seconds).
      returned += c.returned ?? 0;
      commands += c.commands;
    }
  }
  return { returned, commands };
}

/** The tally file is rewritten every TALLY_EVERY_MS; waiting twice that makes sure a phase's last commands are in it. */
const TALLY_EVERY_MS = 200;

async function settledTally(prefix: string): Promise<{ returned: number; commands: number }> {
  await sleep(TALLY_EVERY_MS * 3);
  return readTally(prefix);
}

function itemsIn(body: unknown): number {
  if (body && typeof body === 'object') {
    const items = (body as { items?: unknown }).items;
    if (Array.isArray(items)) return items.length;
    const messages = (body as { messages?: unknown }).messages;
    if (Array.isArray(messages)) return messages.length + 1;
  }
  return 1;
}

/**
 * Waits (at most SETTLE_MAX_MS) until FerretDB is idle: a request the API gave up on (503 after
 * its 2 s budget) leaves its scan running in FerretDB, which would be charged to the next route.
 */
async function settled(ferretPid: number): Promise<void> {
  const deadline = performance.now() + SETTLE_MAX_MS;
  while (performance.now() < deadline) {
    const before = cpuSeconds(ferretPid);
    await sleep(500);
    if (cpuSeconds(ferretPid) - before < 0.05) return;
  }
}
const SETTLE_MAX_MS = 60_000;

async function runRoute(route: ScaleRoute, base: string, keys: string[], pids: { api: number; ferret: number }, tallyPrefix: string): Promise<RouteResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let items = 0;
  await settled(pids.ferret);
  const before = await settledTally(tallyPrefix);
  const cpu0 = { api: cpuSeconds(pids.api), ferret: cpuSeconds(pids.ferret) };
  const deadline = performance.now() + secondsPerRoute * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const i = next++;
        if (i >= requestsPerRoute) return;
        const headers = { authorization: `Bearer ${route.console ? BENCH_CONSOLE_TOKEN : keys[i % keys.length]!}` };
        const t = performance.now();
        try {
          const res = await fetch(`${base}${route.path(i)}`, { headers, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
          const body = (await res.json().catch(() => null)) as unknown;
          latencies.push(performance.now() - t);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.ok) items += itemsIn(body);
        } catch {
          latencies.push(performance.now() - t);
          statuses.timeout = (statuses.timeout ?? 0) + 1;
        }
      }
    }),
  );
  const cpu1 = { api: cpuSeconds(pids.api), ferret: cpuSeconds(pids.ferret) };
  const after = await settledTally(tallyPrefix);
  const n = latencies.length;
  const d = distribution(latencies);
  const ok = statuses['200'] ?? 0;
  const docsRead = (after.returned - before.returned) / n;
  const docsReturned = ok ? items / ok : 0;
  return {
    route: route.name,
    requests: n,
    statuses,
    p50_ms: d.p50,
    p99_ms: d.p99,
    docs_read: Math.round(docsRead * 10) / 10,
    docs_returned: Math.round(docsReturned * 10) / 10,
    commands: Math.round(((after.commands - before.commands) / n) * 10) / 10,
    ferretdb_cpu_ms: Math.round(((cpu1.ferret - cpu0.ferret) / n) * 10_000) / 10,
    api_cpu_ms: Math.round(((cpu1.api - cpu0.api) / n) * 10_000) / 10,
    p99_met: ok === n && d.p99 !== null && d.p99 < P99_TARGET_MS,
    docs_met: ok === n && docsRead <= docsReturned + DOCS_SLACK,
  };
}

async function main(): Promise<void> {
  refuseClusterTarget('bench:scale');
  const dir = scaleDir();
  const manifest = readManifest(dir);
  if (!manifest) throw new Error(`no seeded data in ${dir}: run npm run seed:scale first (SCALE_DIR names another place)`);
  const tools = process.env.TOOLS_DIR ?? '.tools';
  const work = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const tallyDir = join(work, 'tally');
  mkdirSync(tallyDir);
  const tallyPrefix = join(tallyDir, 'ops');
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void stopAll().then(() => process.exit(130)));
  try {
    const [mongoPort, temporalPort, uiPort, apiPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const ferret = await startFerretDb({ binary: toolPath(tools, 'ferretdb'), port: mongoPort, dataDir: scaleDataDir(dir, work), logFile: join(work, 'ferretdb.log') });
    stops.push(() => ferret.process.stop());
    const temporal = await startTemporalDevServer({ binary: toolPath(tools, 'temporal'), port: temporalPort, uiPort, dataDir: work, logFile: join(work, 'temporal.log') });
    stops.push(() => temporal.process.stop());
    const mongo = await new MongoClient(ferret.address).connect();
    stops.push(() => mongo.close());
    const db = mongo.db('bench');
    const keys: string[] = [];
    const now = new Date();
    for (let k = 0; k < KEYS; k++) {
      const key = generateApiKey('live');
      await collections(db).apiKeys.insertOne({
        _id: key.hash,
        key_id: newId('key', now),
        tenant_id: manifest.big.tenantId,
        name: `bench:scale ${k}`,
        environment: 'live',
        scopes: [...SCOPES],
        display_prefix: key.displayPrefix,
        created_at: now,
        revoked_at: null,
        expires_at: null,
      });
      keys.push(key.plaintext);
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      LOG_LEVEL: 'warn',
      PORT: String(apiPort),
      CONSOLE_TOKEN: BENCH_CONSOLE_TOKEN,
      API_ENVIRONMENT: 'live',
      MONGODB_URL: ferret.address,
      MONGODB_DB: 'bench',
      TEMPORAL_ADDRESS: temporal.address,
      MONGODB_OP_TALLY: tallyPrefix,
      MONGODB_OP_TALLY_EVERY_MS: String(TALLY_EVERY_MS),
    };
    const api = startProcess('api', process.execPath, [join(__dirname, '../src/main/api.js')], { env, logFile: join(work, 'api.log') });
    stops.push(() => api.stop());
    const base = `http://127.0.0.1:${apiPort}`;
    await untilReady(api, waitFor('API', async () => (await fetch(`${base}/readyz`)).ok, 120_000));
    const total = Object.values(manifest.documents).reduce((a, b) => a + b, 0);
    say(
      `bench:scale on ${dir}: SCALE=${manifest.scale} (${total.toLocaleString('en')} documents; big workspace ${JSON.stringify(manifest.sizes)}), ${clients} clients, ${requestsPerRoute} requests or ${secondsPerRoute} s per route; FerretDB (SQLite); load average ${loadAverage()}`,
    );
    say(`targets: p99 < ${P99_TARGET_MS} ms; documents read per request <= documents returned + ${DOCS_SLACK}`);
    say(`${'route'.padEnd(52)} ${'p50'.padStart(7)} ${'p99'.padStart(7)} ${'read'.padStart(7)} ${'ret'.padStart(5)} ${'cmds'.padStart(5)} ${'fdb ms'.padStart(7)}  statuses`);
    const results: RouteResult[] = [];
    for (const route of routesFor(manifest)) {
      const r = await runRoute(route, base, keys, { api: api.child.pid!, ferret: ferret.process.child.pid! }, tallyPrefix);
      results.push(r);
      const mark = (met: boolean) => (met ? ' ' : '!');
      say(
        `${r.route.padEnd(52)} ${String(r.p50_ms).padStart(7)} ${String(r.p99_ms).padStart(6)}${mark(r.p99_met)} ${String(r.docs_read).padStart(6)}${mark(r.docs_met)} ${String(r.docs_returned).padStart(5)} ${String(r.commands).padStart(5)} ${String(r.ferretdb_cpu_ms).padStart(7)}  ${JSON.stringify(r.statuses)}`,
      );
    }
    const met = results.filter((r) => r.p99_met && r.docs_met).length;
    say(`${met} of ${results.length} routes meet both targets ('!' marks a figure that misses; a route with any answer other than 200 misses both)`);
    // Issue 36: the API's memory stays under 500 MiB on the year's data (no worker runs here).
    const memory = { api_peak_rss_mib: peakRssMiB(api.child.pid!), ferretdb_peak_rss_mib: peakRssMiB(ferret.process.child.pid!), target_mib: MEMORY_TARGET_MIB };
    say(`peak RSS (VmHWM): API ${memory.api_peak_rss_mib} MiB${memory.api_peak_rss_mib < MEMORY_TARGET_MIB ? '' : '!'} (target < ${MEMORY_TARGET_MIB} MiB), FerretDB ${memory.ferretdb_peak_rss_mib} MiB`);
    // BENCH_SCALE_WORKER=1: the worker's memory too, after the routes (bench/scaleWorker.ts).
    let workerLoad: WorkerLoad | null = null;
    if (withWorker) {
      const worker = await startScaleWorker(env, work);
      stops.push(() => worker.stop());
      workerLoad = await runWorkerLoad(db, base, manifest.big.tenantId, worker, say);
      say(`peak RSS (VmHWM): worker ${workerLoad.worker_peak_rss_mib} MiB${workerLoad.worker_peak_rss_mib < MEMORY_TARGET_MIB ? '' : '!'} (target < ${MEMORY_TARGET_MIB} MiB; at most ${workerLoad.worker_rss_max_mib} MiB while the campaign ran)`);
    }
    mkdirSync('.bench', { recursive: true });
    const file = join('.bench', `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      file,
      `${JSON.stringify(
        {
          at: new Date().toISOString(),
          load_average: loadAverage(),
          scale: manifest.scale,
          documents: manifest.documents,
          sizes: manifest.sizes,
          settings: { clients, requests_per_route: requestsPerRoute, seconds_per_route: secondsPerRoute },
          targets: { p99_ms: P99_TARGET_MS, docs_slack: DOCS_SLACK },
          routes: Object.fromEntries(results.map((r) => [r.route, r])),
          memory,
          worker: workerLoad,
        },
        null,
        1,
      )}\n`,
    );
    say(`written to ${file}`);
  } finally {
    await stopAll();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`bench:scale failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
