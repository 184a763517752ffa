import { KeyStore } from '../src/auth/keyStore';
import { collections } from '../src/db/collections';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { duesCollections } from '../src/dues/store';
import { distribution, formatDistribution, loadAverage, sleep } from './benchStats';
import { startEmbeddedSystem } from './embeddedSystem';
import { TEMPORAL_MINIMUM } from './targets';
import { formatUnitCost, workflowCost, type WorkflowCost } from './workflowCost';
import { cpuMeter, formatPerUnit, perUnit, writeBenchFigures } from './processCpu';

/**
 * `npm run bench:dues`: the dues app on the embedded defaults (FerretDB on SQLite, the
 * Temporal dev server, one API and one worker process), loopback only.
 *
 * DUES_BENCH_SUBSCRIBERS (10,000) subscribers created through `POST
 * /api/v1/apps/dues/subscribers`, DUES_BENCH_CONCURRENCY (8) requests in flight; each
 * creates a contact, raises two dues (`payment.due_created` each), starts their two chases
 * and the subscriber's cycle. Throughput and latency (p50–p99) of the creates; then the time
 * until the worker has planned every chase (`planDueChase`) and every cycle's next raise
 * (`nextDuesRaise`), read from the worker's /metrics; CPU per process per subscriber and per
 * chase over the whole stretch; history events of a sample of chases and cycles as they wait.
 *
 * The per-key rate limit (120 requests a minute) is not what is measured: the creates are
 * spread round-robin over DUES_BENCH_KEYS (100) keys of one workspace, 200 requests a second
 * between them; a 429 is counted, waited out and asked again. Start dates are
 * DUES_BENCH_START_IN_DAYS (30) days ahead, so every chase waits on its reminder timer
 * (nothing is sent during the run: this measures raising and starting, not the messages).
 * Figures go to .bench/dues-<time>.json.
 */

const subscriberCount = Number(process.env.DUES_BENCH_SUBSCRIBERS ?? 10_000);
const concurrency = Number(process.env.DUES_BENCH_CONCURRENCY ?? 8);
const keyCount = Number(process.env.DUES_BENCH_KEYS ?? 100);
const startInDays = Number(process.env.DUES_BENCH_START_IN_DAYS ?? 30);
const settleTimeoutMs = Number(process.env.DUES_BENCH_SETTLE_SECONDS ?? 900) * 1000;
const HISTORY_SAMPLE = 50;
const TENANT = 'ws_bench_dues';

const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** Completed attempts of one activity type, from the worker's Prometheus text. */
async function activityDone(metricsUrl: string, type: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('activity_attempts_total{') || !line.includes(`activity_type="${type}"`)) continue;
    if (!/result="(ok|success|completed)"/.test(line)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const system = await startEmbeddedSystem({ name: 'bench-dues', taskQueue: 'bench-dues', env: { NODE_ENV: 'development' }, temporalClient: true });
  try {
    const { db, metricsUrl } = system;
    const base = system.base!;
    const client = system.temporalClient!;
    const seeded = await seedDemoWorkspace(db, { workspaceId: TENANT, name: 'Dues bench', environment: 'test' });
    await collections(db).workspaces.updateOne({ _id: TENANT }, { $set: { installed_apps: ['dues'] } });
    const keyStore = new KeyStore(db);
    const keys = [seeded.apiKey];
    while (keys.length < keyCount) keys.push((await keyStore.create(TENANT, ['campaigns:write', 'campaigns:read'], 'test')).plaintext);
    const start = new Date(Date.now() + startInDays * 86_400_000).toISOString().slice(0, 10);

    say(`embedded defaults: FerretDB (SQLite) + Temporal dev server + 1 API + 1 worker process; load average before ${loadBefore}`);
    say(`${subscriberCount} subscribers through POST /api/v1/apps/dues/subscribers, ${concurrency} in flight over ${keyCount} keys (${(keyCount * 120) / 60}/s under the per-key limit), monthly from ${start}`);

    const meter = cpuMeter(system.pids, ['temporal', 'ferretdb']);
    const before = meter.mark();
    const latencies: number[] = [];
    const failures = new Map<string, number>();
    let rateLimited = 0;
    let unavailable = 0;
    /** Creates answered 503 whose retry (same Idempotency-Key) was 409 duplicate_recipient: none since the retry finishes the create. */
    let claimedBy503 = 0;
    let next = 0;
    const t0 = performance.now();
    const create = async (i: number) => {
      const body = JSON.stringify({ name: `Member ${i}`, phone: `+9198${String(i).padStart(8, '0')}`, amount: 500 + (i % 50) * 10, plan_name: 'Monthly dues', start_date: start });
      let attempts = 0;
      for (;;) {
        const sent = performance.now();
        const res = await fetch(`${base}/api/v1/apps/dues/subscribers`, {
          method: 'POST',
          // The same key and Idempotency-Key on a retry, as a client asks again.
          headers: { authorization: `Bearer ${keys[i % keys.length]!}`, 'content-type': 'application/json', 'idempotency-key': `bench-dues-${i}` },
          body,
        });
        const text = await res.text();
        if (res.status === 201) {
          latencies.push(performance.now() - sent);
          return;
        }
        if (res.status === 429) {
          rateLimited++;
          await sleep(1_000);
          continue;
        }
        // Counted apart: the retry of a create answered 503 must finish it (src/dues/subscribers.ts), never find the phone taken.
        if (res.status === 409 && attempts > 0 && text.includes('duplicate_recipient')) {
          claimedBy503++;
          return;
        }
        // 503: the API's database budget ran out under load; asked again after a pause.
        if (res.status === 503 && attempts++ < 10) {
          unavailable++;
          await sleep(1_000);
          continue;
        }
        const error = (JSON.parse(text || '{}') as { error?: { code?: string; details?: { reason?: string } } }).error;
        const key = `${res.status} ${error?.code ?? ''} ${error?.details?.reason ?? ''}`;
        failures.set(key, (failures.get(key) ?? 0) + 1);
        return;
      }
    };
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < subscriberCount) await create(next++);
      }),
    );
    const createMs = performance.now() - t0;
    const createCpu = meter.since(before);
    const created = latencies.length;
    const latency = distribution(latencies);
    say(`  ${created} created in ${seconds(createMs)} s: ${((created / createMs) * 1000).toFixed(1)} creates/s; latency ${formatDistribution(latency)}`);
    if (rateLimited) say(`  ${rateLimited} answers were 429 (waited out and asked again)`);
    if (unavailable) say(`  ${unavailable} answers were 503 (database budget under load; asked again with the same Idempotency-Key; latency is of the answered attempt)`);
    if (claimedBy503) say(`  WRONG ${claimedBy503}×: a create answered 503 and then 409 duplicate_recipient to its retry with the same Idempotency-Key`);
    for (const [reason, count] of failures) say(`  REFUSED ${count}×: ${reason}`);
    say(formatPerUnit(createCpu, created, 'create'));

    // The worker plans every chase (one per due raised) and every cycle's next raise; wait until
    // it has, or until nothing has moved for 15 s.
    const dues = await duesCollections(db).dues.countDocuments({ tenant_id: TENANT });
    const subscribers = await duesCollections(db).subscribers.countDocuments({ tenant_id: TENANT });
    const chases = dues;
    let planned = 0;
    let cycles = 0;
    let stillSince = performance.now();
    // Counted from the last create: from the first, a run whose creates took longer than the
    // settle time (10,000 did: 947 s) never looked and reported 0 planned.
    const settleFrom = performance.now();
    while (performance.now() - settleFrom < settleTimeoutMs && performance.now() - stillSince < 15_000) {
      const [p, c] = await Promise.all([activityDone(metricsUrl, 'planDueChase'), activityDone(metricsUrl, 'nextDuesRaise')]);
      if (p !== planned || c !== cycles) stillSince = performance.now();
      [planned, cycles] = [p, c];
      if (planned >= chases && cycles >= subscribers) break;
      await sleep(1_000);
    }
    const settledMs = performance.now() - t0;
    const settled = planned >= chases && cycles >= subscribers;
    const cpu = meter.since(before);
    say(`  ${subscribers} subscribers and ${dues} dues stored; ${planned} of ${chases} chases planned and ${cycles} of ${subscribers} cycles waiting ${seconds(settledMs)} s after the first create${settled ? '' : ' (INCOMPLETE)'}`);
    say(formatPerUnit(cpu, subscribers, 'subscriber', 'subscribers, each two dues, two chases and a cycle, first create to settled'));
    say(formatPerUnit(cpu, chases, 'chase', 'chases, the same CPU spread over them'));

    // History of a sample, waiting on their first timers.
    const sampleSubs = await duesCollections(db).subscribers.find({ tenant_id: TENANT }, { projection: { _id: 1 } }).limit(HISTORY_SAMPLE).toArray();
    const sampleDues = await duesCollections(db).dues.find({ tenant_id: TENANT }, { projection: { _id: 1 } }).limit(HISTORY_SAMPLE).toArray();
    // A create cut short and not yet finished (its retry or the setup sweep does) may have a due without its chase: such ids are skipped.
    const eventsOf = async (id: string) => ((await client.workflow.getHandle(id).fetchHistory().catch(() => null))?.events ?? []).length;
    const counted = (values: number[]) => distribution(values.filter((n) => n > 0));
    const chaseEvents = counted(await Promise.all(sampleDues.map((d) => eventsOf(d._id))));
    const cycleEvents = counted(await Promise.all(sampleSubs.map((s) => eventsOf(s._id))));
    say(`  history events per chase waiting on its reminder: mean ${chaseEvents.mean}, max ${chaseEvents.max} (sample of ${chaseEvents.count}; a whole chase to declined is about 25)`);
    const costs = (await Promise.all(sampleDues.map((d) => workflowCost(client, d._id)))).filter((c): c is WorkflowCost => c !== null && c.events > 0);
    const mean = (pick: (c: WorkflowCost) => number) => costs.reduce((a, c) => a + pick(c), 0) / Math.max(1, costs.length);
    say(`  ${formatUnitCost('due (its chase, waiting on its reminder)', { events: mean((c) => c.events), actions: mean((c) => c.actions) }, TEMPORAL_MINIMUM.due)}`);
    say(`  history events per cycle waiting on its next raise: mean ${cycleEvents.mean}, max ${cycleEvents.max} (sample of ${cycleEvents.count})`);
    const loadAfter = loadAverage();
    say(`load average before ${loadBefore}, after ${loadAfter} (2 cores shared with other work)`);

    const file = writeBenchFigures('dues', {
      at: new Date().toISOString(),
      settings: { subscribers: subscriberCount, concurrency, keys: keyCount, start_date: start },
      creates: {
        created,
        refused: Object.fromEntries(failures),
        rate_limited_retried: rateLimited,
        unavailable_retried: unavailable,
        answered_503_then_duplicate: claimedBy503,
        seconds: Math.round(createMs) / 1000,
        creates_per_second: Math.round((created / createMs) * 10_000) / 10,
        latency_ms: latency,
        cpu: { ...createCpu, window: undefined },
        cpu_ms_per_create: perUnit(createCpu, created),
      },
      chases: {
        settled,
        dues,
        chases_planned: planned,
        cycles_waiting: cycles,
        seconds_to_settled: Math.round(settledMs) / 1000,
        cpu: { ...cpu, window: undefined },
        subscribers,
        cpu_ms_per_subscriber: perUnit(cpu, subscribers),
        cpu_ms_per_chase: perUnit(cpu, chases),
        history_events_per_chase: chaseEvents,
        temporal_per_due: { events: mean((c) => c.events), actions: mean((c) => c.actions), minimum: TEMPORAL_MINIMUM.due },
        history_events_per_cycle: cycleEvents,
      },
      load_average_before: loadBefore,
      load_average_after: loadAfter,
    });
    say(`written to ${file}`);
  } finally {
    await system.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
