import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { Client } from '@temporalio/client';
import { createTemporalDispatcher } from '../src/webhooks/dispatcher';
import { createEventPublisher } from '../src/events/publisher';
import { endpointWorkflowId } from '../src/webhooks/contracts';
import { actionsIn, formatUnitCost } from './workflowCost';
import { newWebhookEndpoint, webhookEndpoints } from '../src/webhooks/endpoints';
import { startEmbeddedSystem } from './embeddedSystem';
import { loadAverage } from './benchStats';
import { cpuMeter, formatPerUnit, perUnit, writeBenchFigures, type CpuUse } from './processCpu';
import { TEMPORAL_MINIMUM, WEBHOOK_TARGETS } from './targets';
import { formatOpTally } from './opTallyReport';
import { tallyDatabaseOps } from '../src/observability/databaseOpTally';

/**
 * `npm run bench:webhooks`: webhook deliveries per second to a fast local receiver, and the
 * latency the delivery path adds from an event's creation (the producer's publish call) to
 * its first attempt arriving, on the embedded defaults: FerretDB (SQLite), the Temporal dev
 * server, one real worker process (dist/src/main/worker.js) with its default options.
 * Loopback only; bounded in count and time. Each figure is printed beside issue 28's target
 * (bench/targets.ts).
 *
 * Phases:
 * 1. burst: BENCH_EVENTS (default 500) published by BENCH_CONCURRENCY (32) producers as fast
 *    as they can (throughput);
 * 2. paced, one endpoint: BENCH_RATE events per second (default 50) for BENCH_SECONDS (10),
 *    then BENCH_RATE_HIGH (200) for as long;
 * 3. paced, many endpoints: BENCH_MULTI_ENDPOINTS (20) endpoints, each in a workspace of its
 *    own, sharing BENCH_MULTI_RATE events per second (200; each event goes to one endpoint,
 *    round robin) for BENCH_SECONDS: many endpoint workflows, each mostly idle.
 * BENCH_ENDPOINTS (default 1) endpoints of the first workspace each receive every event of
 * phases 1 and 2. BENCH_TIMEOUT_SECONDS (90) bounds each phase. Each phase prints the CPU each
 * process spent per delivery (the bench process is the producers and the receiver); the
 * figures go to .bench/webhooks-<time>.json. BENCH_OP_TALLY=1 counts the database commands of
 * the worker and of the producers (src/observability/databaseOpTally.ts) and prints them per
 * delivery for the whole run.
 */

const burstEvents = Number(process.env.BENCH_EVENTS ?? 500);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const rate = Number(process.env.BENCH_RATE ?? WEBHOOK_TARGETS.pacedRates[0]);
const highRate = Number(process.env.BENCH_RATE_HIGH ?? WEBHOOK_TARGETS.pacedRates[1]);
const paceSeconds = Number(process.env.BENCH_SECONDS ?? 10);
const endpointCount = Number(process.env.BENCH_ENDPOINTS ?? 1);
const multiEndpoints = Number(process.env.BENCH_MULTI_ENDPOINTS ?? WEBHOOK_TARGETS.multiEndpoints);
const multiRate = Number(process.env.BENCH_MULTI_RATE ?? WEBHOOK_TARGETS.multiRate);
const phaseTimeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 90) * 1000;
const TENANT = 'ws_bench_webhooks';
const multiTenant = (i: number) => `ws_bench_webhooks_${i}`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

async function main(): Promise<void> {
  const taskQueue = 'bench-webhooks';
  const tallyPrefix = process.env.BENCH_OP_TALLY === '1' ? join(mkdtempSync(join(tmpdir(), 'webhooks-tally-')), 'ops') : null;
  const system = await startEmbeddedSystem({
    name: 'bench-webhooks',
    taskQueue,
    env: { NODE_ENV: 'development', ...(tallyPrefix ? { MONGODB_OP_TALLY: tallyPrefix, MONGODB_OP_TALLY_EVERY_MS: '1000' } : {}) },
    api: false,
    workerReadyMs: 120_000,
    temporalClient: true,
  });
  // The receiver: answers 204 at once and notes when each (event, endpoint path) first arrived.
  const firstArrival = new Map<string, number>();
  let requests = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      const key = `${String(req.headers['webhook-id'])} ${req.url ?? ''}`;
      if (!firstArrival.has(key)) firstArrival.set(key, performance.now());
      res.writeHead(204).end();
    });
  });
  try {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverPort = (receiver.address() as AddressInfo).port;
    // The producers publish through a client of their own when their commands are counted.
    let producersClient: MongoClient | null = null;
    if (tallyPrefix) {
      process.env.MONGODB_OP_TALLY = tallyPrefix;
      process.env.MONGODB_OP_TALLY_EVERY_MS = '1000';
      producersClient = await new MongoClient(system.ferret.address, { monitorCommands: true }).connect();
      tallyDatabaseOps(producersClient, 'producers');
    }
    const { db } = system;
    const producersDb = producersClient?.db(db.databaseName) ?? db;
    const client = system.temporalClient!;
    const now = new Date();
    // Which endpoint paths each workspace's events go to.
    const pathsOf = new Map<string, string[]>();
    const endpointIds: string[] = [];
    async function addEndpoint(id: string, tenant: string, path: string): Promise<void> {
      await webhookEndpoints(db).insertOne(newWebhookEndpoint({ _id: id, tenant_id: tenant, url: `http://127.0.0.1:${receiverPort}${path}` }, now));
      pathsOf.set(tenant, [...(pathsOf.get(tenant) ?? []), path]);
      endpointIds.push(id);
    }
    for (let i = 0; i < endpointCount; i++) await addEndpoint(`whk_bench_${i}`, TENANT, `/hook/${i}`);
    for (let i = 0; i < multiEndpoints; i++) await addEndpoint(`whk_bench_multi_${i}`, multiTenant(i), `/multi/${i}`);
    const events = createEventPublisher(producersDb, createTemporalDispatcher(producersDb, client, taskQueue));
    let sequence = 0;
    const createdAt = new Map<string, number>();
    const expected = new Map<string, string[]>();
    const publishMs: number[] = [];
    async function publishOne(phase: string, tenantId = TENANT): Promise<string> {
      const n = sequence++;
      const started = performance.now();
      const event = await events.publish({ tenantId, type: 'ticket.created', dedupeKey: `${phase}:${n}`, data: { ticket_id: `tkt_${n}`, public_ref: `B-${n}` }, createdAt: new Date() });
      publishMs.push(performance.now() - started);
      createdAt.set(event._id, started);
      expected.set(event._id, pathsOf.get(tenantId)!.map((path) => `${event._id} ${path}`));
      return event._id;
    }
    const keysOf = (ids: string[]) => ids.flatMap((id) => expected.get(id)!);
    const arrived = (ids: string[]) => keysOf(ids).filter((key) => firstArrival.has(key)).length;
    async function untilDelivered(ids: string[], since: number): Promise<boolean> {
      const want = keysOf(ids).length;
      while (arrived(ids) < want) {
        if (performance.now() - since > phaseTimeoutMs) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    }
    function latencies(ids: string[]): number[] {
      const out: number[] = [];
      for (const id of ids) for (const key of expected.get(id)!) {
        const at = firstArrival.get(key);
        if (at !== undefined) out.push(at - createdAt.get(id)!);
      }
      return out.sort((a, b) => a - b);
    }
    const meter = cpuMeter(system.pids, ['temporal', 'ferretdb']);
    const round = (n: number) => Math.round(n);

    // Warm-up: compile paths, open connections, start the endpoints' workflows.
    const warm = await Promise.all([
      ...Array.from({ length: 20 }, () => publishOne('warm')),
      ...Array.from({ length: multiEndpoints }, (_, i) => publishOne('warm', multiTenant(i))),
    ]);
    await untilDelivered(warm, performance.now());

    say(`embedded defaults: FerretDB (SQLite) + Temporal dev server (SQLite) + 1 worker process, default worker options; receiver answers 204 on 127.0.0.1; load average ${loadAverage()}`);

    // Phase 1: throughput.
    const before = meter.mark();
    const requestsBefore = requests;
    const t0 = performance.now();
    const burst: string[] = [];
    let published = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (published < burstEvents) {
          published++;
          burst.push(await publishOne('burst'));
        }
      }),
    );
    const publishedIn = performance.now() - t0;
    const complete = await untilDelivered(burst, t0);
    const lastArrival = Math.max(...keysOf(burst).map((key) => firstArrival.get(key) ?? 0));
    const elapsed = lastArrival - t0;
    const deliveries = arrived(burst);
    const burstCpu: CpuUse = meter.since(before);
    // CPU is divided by the attempts that arrived in the phase's window, whichever event they were for.
    const burstAttempts = requests - requestsBefore;
    const burstRate = deliveries / (elapsed / 1000);
    say(`burst: ${burstEvents} events to ${endpointCount} endpoint(s) published by ${concurrency} producers in ${(publishedIn / 1000).toFixed(1)} s (${(burstEvents / (publishedIn / 1000)).toFixed(0)} events/s)`);
    say(
      `  ${deliveries} deliveries in ${(elapsed / 1000).toFixed(1)} s: ${burstRate.toFixed(0)} deliveries/s${complete ? '' : ` (INCOMPLETE after ${phaseTimeoutMs / 1000} s)`}   target ≥ ${WEBHOOK_TARGETS.burstDeliveriesPerSecond}/s: ${verdict(complete && burstRate >= WEBHOOK_TARGETS.burstDeliveriesPerSecond)}`,
    );
    const burstLatency = latencies(burst);
    say(`  creation to first attempt under this backlog: p50 ${percentile(burstLatency, 50).toFixed(0)} ms, p99 ${percentile(burstLatency, 99).toFixed(0)} ms`);
    say(`${formatPerUnit(burstCpu, burstAttempts, 'delivery', 'deliveries')} (bench = producers and receiver)`);
    say(`  load average after: ${loadAverage()}`);

    // Phases 2 and 3: latency at a steady rate.
    async function pacedPhase(label: string, perSecond: number, tenants: string[]) {
      const paced: string[] = [];
      const pending: Promise<void>[] = [];
      const publishFrom = publishMs.length;
      const p0 = performance.now();
      const from = meter.mark();
      const requestsFrom = requests;
      const total = Math.round(perSecond * paceSeconds);
      for (let i = 0; i < total; i++) {
        const due = p0 + (i * 1000) / perSecond;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        pending.push(publishOne(label, tenants[i % tenants.length]).then((id) => void paced.push(id)));
      }
      await Promise.all(pending);
      const done = await untilDelivered(paced, p0);
      const lat = latencies(paced);
      const cpu = meter.since(from);
      const attempts = requests - requestsFrom;
      const p99 = percentile(lat, 99);
      const publishes = publishMs.slice(publishFrom).sort((a, b) => a - b);
      say(`${label}: ${total} events at ${perSecond}/s for ${paceSeconds} s to ${tenants.length === 1 ? `${endpointCount} endpoint(s)` : `${tenants.length} endpoints (one workspace each, round robin)`}${done ? '' : ' (INCOMPLETE)'}`);
      say(
        `  creation to first attempt: p50 ${percentile(lat, 50).toFixed(0)} ms, p90 ${percentile(lat, 90).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${lat.at(-1)?.toFixed(0)} ms   target p99 < ${WEBHOOK_TARGETS.firstAttemptP99Ms} ms: ${verdict(done && p99 < WEBHOOK_TARGETS.firstAttemptP99Ms)}`,
      );
      say(`  the producer's publish call: p50 ${percentile(publishes, 50).toFixed(0)} ms, p99 ${percentile(publishes, 99).toFixed(0)} ms`);
      say(`${formatPerUnit(cpu, attempts, 'delivery', 'deliveries')} (bench = producers and receiver)`);
      say(`  load average after: ${loadAverage()}`);
      return {
        events_per_second: perSecond,
        endpoints: tenants.length === 1 ? endpointCount : tenants.length,
        complete: done,
        first_attempt_p50_ms: round(percentile(lat, 50)),
        first_attempt_p99_ms: round(p99),
        publish_p99_ms: round(percentile(publishes, 99)),
        cpu: { ...cpu, window: undefined },
        cpu_ms_per_delivery: perUnit(cpu, attempts),
      };
    }
    const paced = await pacedPhase('paced', rate, [TENANT]);
    const pacedHigh = await pacedPhase('paced-high', highRate, [TENANT]);
    const multi = multiEndpoints > 0 ? await pacedPhase('many-endpoints', multiRate, Array.from({ length: multiEndpoints }, (_, i) => multiTenant(i))) : null;
    say(await temporalCost(client, endpointIds, firstArrival.size));
    say(`receiver saw ${requests} requests in all for ${firstArrival.size} deliveries (a retry would show as more than one per delivery)`);
    if (tallyPrefix) {
      // The processes write their counts every second.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      say(`database commands per delivery, the whole run with its warm-up (BENCH_OP_TALLY):\n${formatOpTally(tallyPrefix, firstArrival.size, 'delivery')}`);
    }
    await producersClient?.close();
    const file = writeBenchFigures('webhooks', {
      at: new Date().toISOString(),
      settings: { burst_events: burstEvents, concurrency, rate, high_rate: highRate, pace_seconds: paceSeconds, endpoints: endpointCount, multi_endpoints: multiEndpoints, multi_rate: multiRate },
      burst: {
        deliveries,
        complete,
        deliveries_per_second: Math.round(burstRate * 10) / 10,
        first_attempt_p50_ms: round(percentile(burstLatency, 50)),
        first_attempt_p99_ms: round(percentile(burstLatency, 99)),
        cpu: { ...burstCpu, window: undefined },
        cpu_ms_per_delivery: perUnit(burstCpu, burstAttempts),
      },
      paced,
      paced_high: pacedHigh,
      many_endpoints: multi,
    });
    say(`written to ${file}`);
  } finally {
    if (receiver.listening) await new Promise((resolve) => receiver.close(resolve));
    await system.stop();
  }
}

/**
 * The Temporal cost of the whole run, read from the endpoint workflows' histories (every run,
 * following continue-as-new back to the first): history events, signals (wake-ups, or
 * deliveries before an endpoint's inbox state exists), drains (local activity markers) and
 * hand-overs, per delivery. Events start no workflow of their own (docs/webhooks.md).
 */
async function temporalCost(client: Client, endpointIds: string[], delivered: number): Promise<string> {
  let events = 0;
  let actions = 0;
  let signals = 0;
  let drains = 0;
  let runs = 0;
  for (const endpointId of endpointIds) {
    let runId: string | undefined;
    do {
      const history = (await client.workflow.getHandle(endpointWorkflowId(endpointId), runId).fetchHistory()).events ?? [];
      runs++;
      events += history.length;
      actions += actionsIn(history);
      for (const e of history) {
        if (e.workflowExecutionSignaledEventAttributes) signals++;
        else if (e.markerRecordedEventAttributes && e.markerRecordedEventAttributes.markerName !== 'core_patch') drains++;
      }
      runId = history[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    } while (runId);
  }
  const per = (n: number) => (n / Math.max(1, delivered)).toFixed(2);
  const perDelivery = { events: events / Math.max(1, delivered), actions: actions / Math.max(1, delivered) };
  return (
    `Temporal for the whole run (${delivered} deliveries): ${endpointIds.length} endpoint workflow(s) in ${runs} run(s), ${events} history events (${per(events)} per delivery), ${signals} signals (${per(signals)}), ${drains} drains (${per(drains)}); no workflow per event\n` +
    formatUnitCost('delivery', perDelivery, TEMPORAL_MINIMUM.delivery)
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
