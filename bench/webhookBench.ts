import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { createTemporalDispatcher } from '../src/events/dispatcher';
import { createEventPublisher } from '../src/events/publisher';
import { endpointWorkflowId } from '../src/webhooks/contracts';
import { newWebhookEndpoint, webhookEndpoints } from '../src/webhooks/endpoints';
import { startEmbeddedSystem } from './embeddedSystem';
import { cpuMeter, formatPerUnit, perUnit, writeBenchFigures, type CpuUse } from './processCpu';

/**
 * `npm run bench:webhooks`: webhook deliveries per second to a fast local receiver, and the
 * latency the delivery path adds from an event's creation (the producer's publish call) to
 * its first attempt arriving, on the embedded defaults: FerretDB (SQLite), the Temporal dev
 * server, one real worker process (dist/src/main/worker.js) with its default options.
 * Loopback only; bounded in count and time.
 *
 * Two phases: a burst of BENCH_EVENTS (default 500) published by BENCH_CONCURRENCY (32)
 * producers as fast as they can (throughput), then BENCH_RATE events per second (default
 * 5, under the capacity measured on a shared 2-core machine) for BENCH_SECONDS (10): the
 * latency the path adds when there is no backlog.
 * BENCH_ENDPOINTS (default 1) endpoints each receive every event. BENCH_TIMEOUT_SECONDS
 * (90) bounds each phase. Each phase prints the CPU each process spent per delivery (the
 * bench process is the producers and the receiver); the figures go to .bench/webhooks-<time>.json.
 */

const burstEvents = Number(process.env.BENCH_EVENTS ?? 500);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const rate = Number(process.env.BENCH_RATE ?? 5);
const paceSeconds = Number(process.env.BENCH_SECONDS ?? 10);
const endpointCount = Number(process.env.BENCH_ENDPOINTS ?? 1);
const phaseTimeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 90) * 1000;
const TENANT = 'ws_bench_webhooks';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const taskQueue = 'bench-webhooks';
  const system = await startEmbeddedSystem({
    name: 'bench-webhooks',
    taskQueue,
    env: { NODE_ENV: 'development' },
    api: false,
    workerReadyMs: 120_000,
    temporalClient: true,
  });
  // The receiver: answers 204 at once and notes when each (event, endpoint) first arrived.
  const firstArrival = new Map<string, number>();
  let requests = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      const key = `${req.headers['webhook-id']} ${req.url}`;
      if (!firstArrival.has(key)) firstArrival.set(key, performance.now());
      res.writeHead(204).end();
    });
  });
  try {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverPort = (receiver.address() as AddressInfo).port;
    const { db } = system;
    const client = system.temporalClient!;
    const now = new Date();
    for (let i = 0; i < endpointCount; i++) {
      await webhookEndpoints(db).insertOne(newWebhookEndpoint({ _id: `whk_bench_${i}`, tenant_id: TENANT, url: `http://127.0.0.1:${receiverPort}/hook/${i}` }, now));
    }
    const events = createEventPublisher(db, createTemporalDispatcher(db, client, taskQueue));
    let sequence = 0;
    const createdAt = new Map<string, number>();
    async function publishOne(phase: string): Promise<string> {
      const n = sequence++;
      const started = performance.now();
      const event = await events.publish({ tenantId: TENANT, type: 'ticket.created', dedupeKey: `${phase}:${n}`, data: { ticket_id: `tkt_${n}`, public_ref: `B-${n}` }, createdAt: new Date() });
      createdAt.set(event._id, started);
      return event._id;
    }
    const arrived = (ids: string[]) => ids.filter((id) => Array.from({ length: endpointCount }, (_, i) => firstArrival.has(`${id} /hook/${i}`)).every(Boolean)).length;
    async function untilDelivered(ids: string[], since: number): Promise<boolean> {
      while (arrived(ids) < ids.length) {
        if (performance.now() - since > phaseTimeoutMs) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    }
    function latencies(ids: string[]): number[] {
      const out: number[] = [];
      for (const id of ids) for (let i = 0; i < endpointCount; i++) {
        const at = firstArrival.get(`${id} /hook/${i}`);
        if (at !== undefined) out.push(at - createdAt.get(id)!);
      }
      return out.sort((a, b) => a - b);
    }
    const meter = cpuMeter(system.pids, ['temporal', 'ferretdb']);

    // Warm-up: compile paths, open connections.
    const warm = await Promise.all(Array.from({ length: 20 }, () => publishOne('warm')));
    await untilDelivered(warm, performance.now());

    say(`embedded defaults: FerretDB (SQLite) + Temporal dev server (SQLite) + 1 worker process, default worker options; ${endpointCount} endpoint(s); receiver answers 204 on 127.0.0.1`);

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
    const lastArrival = Math.max(...burst.flatMap((id) => Array.from({ length: endpointCount }, (_, i) => firstArrival.get(`${id} /hook/${i}`) ?? 0)));
    const elapsed = lastArrival - t0;
    const deliveries = arrived(burst) * endpointCount;
    const burstCpu: CpuUse = meter.since(before);
    // CPU is divided by the attempts that arrived in the phase's window, whichever event they were for.
    const burstAttempts = requests - requestsBefore;
    say(`burst: ${burstEvents} events published by ${concurrency} producers in ${(publishedIn / 1000).toFixed(1)} s (${(burstEvents / (publishedIn / 1000)).toFixed(0)} events/s)`);
    say(`  ${deliveries} deliveries in ${(elapsed / 1000).toFixed(1)} s: ${(deliveries / (elapsed / 1000)).toFixed(0)} deliveries/s${complete ? '' : ` (INCOMPLETE after ${phaseTimeoutMs / 1000} s)`}`);
    const burstLatency = latencies(burst);
    say(`  creation to first attempt under this backlog: p50 ${percentile(burstLatency, 50).toFixed(0)} ms, p99 ${percentile(burstLatency, 99).toFixed(0)} ms`);
    say(`${formatPerUnit(burstCpu, burstAttempts, 'delivery', 'deliveries')} (bench = producers and receiver)`);

    say(await whereTimeGoes(client, burst.filter((_, i) => i % Math.ceil(burst.length / 25) === 0), createdAt, firstArrival));

    // Phase 2: latency at a steady rate below capacity.
    const paced: string[] = [];
    const pending: Promise<void>[] = [];
    const p0 = performance.now();
    const pacedFrom = meter.mark();
    const pacedRequestsBefore = requests;
    const total = Math.round(rate * paceSeconds);
    for (let i = 0; i < total; i++) {
      const due = p0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(publishOne('paced').then((id) => void paced.push(id)));
    }
    await Promise.all(pending);
    const pacedComplete = await untilDelivered(paced, p0);
    const pacedLatency = latencies(paced);
    const pacedCpu = meter.since(pacedFrom);
    const pacedAttempts = requests - pacedRequestsBefore;
    say(`paced: ${total} events at ${rate}/s for ${paceSeconds} s${pacedComplete ? '' : ' (INCOMPLETE)'}`);
    say(`  creation to first attempt: p50 ${percentile(pacedLatency, 50).toFixed(0)} ms, p90 ${percentile(pacedLatency, 90).toFixed(0)} ms, p99 ${percentile(pacedLatency, 99).toFixed(0)} ms, max ${pacedLatency.at(-1)?.toFixed(0)} ms`);
    say(`${formatPerUnit(pacedCpu, pacedAttempts, 'delivery', 'deliveries')} (bench = producers and receiver; a burst backlog delivered meanwhile counts here)`);
    say(await whereTimeGoes(client, paced.filter((_, i) => i % Math.ceil(paced.length / 25) === 0), createdAt, firstArrival));
    say(`receiver saw ${requests} requests in all (a retry would show as more than one per delivery)`);
    const round = (n: number) => Math.round(n);
    const file = writeBenchFigures('webhooks', {
      at: new Date().toISOString(),
      settings: { burst_events: burstEvents, concurrency, rate, pace_seconds: paceSeconds, endpoints: endpointCount },
      burst: {
        deliveries,
        complete,
        deliveries_per_second: Math.round((deliveries / (elapsed / 1000)) * 10) / 10,
        first_attempt_p50_ms: round(percentile(burstLatency, 50)),
        first_attempt_p99_ms: round(percentile(burstLatency, 99)),
        cpu: { ...burstCpu, window: undefined },
        cpu_ms_per_delivery: perUnit(burstCpu, burstAttempts),
      },
      paced: {
        events_per_second: rate,
        complete: pacedComplete,
        first_attempt_p50_ms: round(percentile(pacedLatency, 50)),
        first_attempt_p99_ms: round(percentile(pacedLatency, 99)),
        cpu: { ...pacedCpu, window: undefined },
        cpu_ms_per_delivery: perUnit(pacedCpu, pacedAttempts),
      },
    });
    say(`written to ${file}`);
  } finally {
    if (receiver.listening) await new Promise((resolve) => receiver.close(resolve));
    await system.stop();
  }
}

/**
 * The profile: for a sample of events, creation → arrival, and the Temporal cost of the whole
 * run so far, read from the endpoint workflows' histories (every run, following
 * continue-as-new back to the first): history events, signals (one may carry many
 * deliveries) and drains (local activity markers), per delivery. Events start no workflow
 * of their own (docs/webhooks.md, "Delivery").
 */
async function whereTimeGoes(client: Client, sample: string[], createdAt: Map<string, number>, firstArrival: Map<string, number>): Promise<string> {
  const origin = performance.timeOrigin;
  const wanted = new Set(sample);
  const signalledAt = new Map<string, number>();
  const taskWaits: number[] = [];
  const drainTimes: number[] = [];
  let events = 0;
  let signals = 0;
  let drains = 0;
  let runs = 0;
  type HistoryEvent = NonNullable<Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']>[number];
  const at = (e: HistoryEvent | undefined) => (e?.eventTime ? Number(e.eventTime.seconds) * 1000 + Math.round(Number(e.eventTime.nanos) / 1e6) : NaN);
  for (let i = 0; i < endpointCount; i++) {
    let runId: string | undefined;
    do {
      const history = (await client.workflow.getHandle(endpointWorkflowId(`whk_bench_${i}`), runId).fetchHistory()).events ?? [];
      runs++;
      events += history.length;
      let scheduled: HistoryEvent | undefined;
      let started: HistoryEvent | undefined;
      for (const e of history) {
        if (e.workflowExecutionSignaledEventAttributes) {
          signals++;
          const payload = e.workflowExecutionSignaledEventAttributes.input?.payloads?.[0]?.data;
          const refs = payload ? (JSON.parse(Buffer.from(payload).toString('utf8')) as { eventId: string }[]) : [];
          for (const ref of refs) if (i === 0 && wanted.has(ref.eventId)) signalledAt.set(ref.eventId, at(e));
        } else if (e.workflowTaskScheduledEventAttributes) scheduled = e;
        else if (e.workflowTaskStartedEventAttributes) {
          started = e;
          if (scheduled) taskWaits.push(at(e) - at(scheduled));
        } else if (e.markerRecordedEventAttributes) {
          drains++;
          if (started) drainTimes.push(at(e) - at(started));
        }
      }
      runId = history[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
    } while (runId);
  }
  const median = (xs: number[]) => ([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN).toFixed(0);
  const toSignal = sample.filter((id) => signalledAt.has(id)).map((id) => signalledAt.get(id)! - (origin + createdAt.get(id)!));
  const toArrival = sample.filter((id) => signalledAt.has(id)).map((id) => origin + firstArrival.get(`${id} /hook/0`)! - signalledAt.get(id)!);
  const total = sample.map((id) => firstArrival.get(`${id} /hook/0`)! - createdAt.get(id)!);
  const delivered = firstArrival.size;
  const per = (n: number) => (n / Math.max(1, delivered)).toFixed(2);
  return [
    `where the time goes (medians; ${sample.length} sampled events, and every workflow task and drain of the endpoint workflows):`,
    `  publish (store, signal-with-start the endpoint's workflow) → signal recorded     ${median(toSignal).padStart(6)} ms`,
    `  signal recorded → request arrives (wait for the drain under way, then this one) ${median(toArrival).padStart(6)} ms`,
    `  total: creation → arrival                                                       ${median(total).padStart(6)} ms`,
    `  workflow task scheduled → started                                               ${median(taskWaits).padStart(6)} ms`,
    `  drain (workflow task started → its local activity's marker)                     ${median(drainTimes).padStart(6)} ms`,
    `  Temporal so far (${delivered} deliveries): ${endpointCount} endpoint workflow(s) in ${runs} run(s), ${events} history events (${per(events)} per delivery), ${signals} signals (${per(signals)}), ${drains} drains (${per(drains)}); no workflow per event`,
  ].join('\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
