import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Db } from 'mongodb';
import { broadcastRequest, insertDrafted } from '../test/support/campaignDrafts';
import { collections } from '../src/db/collections';
import { startProcess, untilReady, type ManagedProcess } from '../src/local/childProcess';
import { freePort, waitFor } from '../src/local/net';
import { peakRssMiB, rssMiB, sleep } from './benchStats';
import { BENCH_CONSOLE_TOKEN } from './embeddedSystem';

/**
 * `BENCH_SCALE_WORKER=1 npm run bench:scale` (issue 36 §1: the worker's memory on the year's
 * data): the worker runs beside the API, on a copy of the seeded files (its sweeps, its backfills
 * and the campaign below change what they touch, and the seed must stay as written). After the
 * routes, a segment campaign of the big workspace (`BENCH_SCALE_WORKER_TAG`, `customer`; comma-separated tags, all held) is
 * evaluated, launched at 600 a minute in a zone where its window is open, left to run
 * `BENCH_SCALE_WORKER_SECONDS` (30), then cancelled; the worker's peak resident memory (VmHWM:
 * its start-up backfills, sweeps and the run) is printed beside the 500 MiB target.
 */
export const withWorker = process.env.BENCH_SCALE_WORKER === '1';
const workerSeconds = Number(process.env.BENCH_SCALE_WORKER_SECONDS ?? 30);
/** Comma-separated: people holding every tag (a segment's `$all`). A campaign reaches at most 50,000 people, so at SCALE 1 one tag (about 150,000) evaluates but does not launch: `customer,vip` does. */
const segmentTags = (process.env.BENCH_SCALE_WORKER_TAG ?? 'customer').split(',').map((t) => t.trim()).filter(Boolean);
const segmentTag = segmentTags.join(',');

/** The files FerretDB runs on: the seeded ones, or, with the worker, a copy in `work`. */
export function scaleDataDir(seeded: string, work: string): string {
  if (!withWorker) return seeded;
  const copy = join(work, 'data');
  cpSync(seeded, copy, { recursive: true });
  return copy;
}

export async function startScaleWorker(env: NodeJS.ProcessEnv, work: string): Promise<ManagedProcess> {
  const metricsPort = await freePort();
  const worker = startProcess('worker', process.execPath, [join(__dirname, '../src/main/worker.js')], {
    env: { ...env, PORT: undefined, WORKER_METRICS_PORT: String(metricsPort), MONGODB_OP_TALLY: undefined },
    logFile: join(work, 'worker.log'),
  });
  await untilReady(worker, waitFor('worker', async () => (await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).ok, 180_000, 250));
  return worker;
}

/** An `Etc/GMT` zone whose hour now is 11:00 to 17:59, inside the 09–21 window with hours to spare. */
function zoneOpenNow(now = new Date()): string {
  const offset = [...Array(27).keys()].map((i) => i - 12).find((n) => (now.getUTCHours() + n + 24) % 24 >= 11 && (now.getUTCHours() + n + 24) % 24 < 18)!;
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

export interface WorkerLoad {
  tag: string;
  eligible: number | null;
  evaluate_ms: number;
  launched: boolean;
  seconds_run: number;
  /** The worker's resident memory, sampled every second while the campaign ran. */
  worker_rss_max_mib: number;
  worker_peak_rss_mib: number;
}

/** The phase described above; answers what it saw. */
export async function runWorkerLoad(db: Db, base: string, tenantId: string, worker: ManagedProcess, say: (line: string) => void): Promise<WorkerLoad> {
  const call = async (method: 'POST' | 'GET', path: string, body?: unknown) => {
    const res = await fetch(`${base}/console/v1/workspaces/${tenantId}${path}`, {
      method,
      headers: { authorization: `Bearer ${BENCH_CONSOLE_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, any> | null };
  };
  const workspace = (await collections(db).workspaces.findOne({ _id: tenantId }))!;
  const request = broadcastRequest({
    name: `bench:scale worker (${segmentTag})`,
    audience: { kind: 'segment', contact_ids: [], tags: segmentTags },
    schedule: { throttle_per_minute: 600, timezone: zoneOpenNow() },
  });
  const id = (await insertDrafted(db, request, { workspace, createdBy: { kind: 'console', id: 'bench-scale' }, now: new Date() }))._id;
  const started = performance.now();
  const evaluated = await call('POST', `/campaigns/${id}/evaluate`);
  const evaluateMs = Math.round(performance.now() - started);
  const eligible = evaluated.status === 200 ? Number(evaluated.body!.eligible) : null;
  say(`worker phase: evaluate of segment [${segmentTag}]: ${evaluated.status}, ${eligible ?? '-'} eligible, ${evaluateMs} ms`);
  const launched = eligible ? await call('POST', `/campaigns/${id}/launch`, { expected_version: 1, confirm_recipients: eligible }) : null;
  if (launched && launched.status !== 200) say(`worker phase: launch answered ${launched.status} ${JSON.stringify(launched.body)}`);
  let rssMax = 0;
  const runFrom = performance.now();
  if (launched?.status === 200) {
    while (performance.now() - runFrom < workerSeconds * 1000) {
      rssMax = Math.max(rssMax, rssMiB(worker.child.pid!));
      await sleep(1_000);
    }
    const read = await call('GET', `/campaigns/${id}`);
    const cancelled = await call('POST', `/campaigns/${id}/cancel`, { expected_version: Number(read.body?.version ?? launched.body!.version) });
    say(`worker phase: ran ${workerSeconds} s (counters ${JSON.stringify(read.body?.counters ?? null)}), cancel ${cancelled.status}`);
  }
  return {
    tag: segmentTag,
    eligible,
    evaluate_ms: evaluateMs,
    launched: launched?.status === 200,
    seconds_run: launched?.status === 200 ? workerSeconds : 0,
    worker_rss_max_mib: rssMax,
    worker_peak_rss_mib: peakRssMiB(worker.child.pid!),
  };
}
