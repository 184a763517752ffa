import { performance } from 'node:perf_hooks';
import type { Collection } from 'mongodb';
import { cpuSeconds, distribution, formatDistribution, loadAverage } from './benchStats';
import { withBenchFerret } from './benchFerret';

/**
 * `npm run bench:id-index`: point reads and updates by `_id`, and reads of 100 ids (as 100
 * point reads and as one `_id: {$in}`), on one collection of BENCH_DOCS (20,000) documents in
 * the embedded FerretDB, BENCH_SECONDS (5) each with BENCH_CONNECTIONS (8) requests in
 * flight. Shows what scripts/patches' `_id` index fix does: run it once with
 * BENCH_FERRETDB_BINARY pointing at an unpatched build to compare.
 */

const docs = Number(process.env.BENCH_DOCS ?? 20_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const inFlight = Number(process.env.BENCH_CONNECTIONS ?? 8);

interface BenchDoc {
  _id: string;
  tenant_id: string;
  status: string;
  n: number;
}

const idOf = (i: number) => `doc_${String(i).padStart(6, '0')}`;
/** A campaign recount's chunk: 100 consecutive ids. */
const BATCH = 100;
const batchFrom = (i: number) => Array.from({ length: BATCH }, (_, j) => idOf((i + j) % docs));

async function measure(name: string, ferretPid: number, op: (i: number) => Promise<unknown>): Promise<void> {
  const latencies: number[] = [];
  const cpuBefore = cpuSeconds(ferretPid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < deadline) {
        const i = (next++ * 7919) % docs; // spread over the collection, not its first pages
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(ferretPid) - cpuBefore;
  process.stdout.write(
    `${name.padEnd(26)} ${String(Math.round(latencies.length / elapsed)).padStart(6)} ops/s   ${formatDistribution(distribution(latencies))}   FerretDB CPU ${((cpu / latencies.length) * 1e6).toFixed(0)} µs/op\n`,
  );
}

async function main(): Promise<void> {
  await withBenchFerret('bench-id-index-', async ({ mongo, pid, binary }) => {
    const coll: Collection<BenchDoc> = mongo.db('bench').collection<BenchDoc>('docs');
    for (let from = 0; from < docs; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, docs - from) }, (_, j) => ({
        _id: idOf(from + j),
        tenant_id: `ws_${(from + j) % 20}`,
        status: 'new',
        n: 0,
      }));
      await coll.insertMany(batch);
    }
    const pushedDown = async (filter: object) => ((await coll.find(filter).explain()) as { filterPushdown?: boolean }).filterPushdown;
    const pushdown = await pushedDown({ _id: idOf(1) });
    const inPushdown = await pushedDown({ _id: { $in: batchFrom(1) } });
    process.stdout.write(
      `${docs} documents, ${inFlight} in flight, ${seconds} s each; FerretDB ${binary}; _id filter pushed down: ${pushdown}, _id $in: ${inPushdown}; load average ${loadAverage()}\n`,
    );
    await measure('findOne by _id', pid, (i) => coll.findOne({ _id: idOf(i) }));
    await measure('findOne _id + tenant', pid, (i) => coll.findOne({ _id: idOf(i), tenant_id: `ws_${i % 20}` }));
    await measure('updateOne by _id', pid, (i) => coll.updateOne({ _id: idOf(i) }, { $set: { status: 'seen' }, $inc: { n: 1 } }));
    await measure(`${BATCH} ids: ${BATCH} findOne`, pid, (i) => Promise.all(batchFrom(i).map((id) => coll.findOne({ _id: id }))));
    await measure(`${BATCH} ids: one _id $in`, pid, (i) => coll.find({ _id: { $in: batchFrom(i) } }).toArray());
  }, { maxPoolSize: inFlight });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
