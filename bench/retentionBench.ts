import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MongoClient, type Db } from 'mongodb';
import { sweepExpiredCallTranscripts } from '../src/calls/transcriptRetention';
import { callCollections } from '../src/calls/callStore';
import { sweepExpiredTurns } from '../src/conversations/retention';
import { conversationsCollection } from '../src/conversations/store';
import { SWEEP_PAUSE_MS } from '../src/db/idRangeSweep';
import { idRange } from '../src/domain/ids';
import { freePort } from '../src/local/net';
import { toolPath } from '../src/local/paths';
import { startFerretDb } from '../src/local/servers';
import { distribution, loadAverage } from './benchStats';
import { readManifest, scaleDir } from './seedScale';
import { refuseClusterTarget } from './clusterTarget';

/**
 * Issue 36 §1, retention: do live reads stay fast while the retention pass deletes? On a copy
 * of the seeded year (`npm run seed:scale`; the copy is deleted after), `RETENTION_READERS` (8)
 * readers run the reads the console and API make most (a call by id, a conversation by id, the
 * newest page of the big workspace's calls) for `RETENTION_SECONDS` (10) with no sweep, then as
 * long again while the worker's sweeps run as the worker runs them (BULK_WRITE_MAX a batch,
 * SWEEP_PAUSE_MS between batches) and, for comparison, unpaced. Transcripts older than
 * `RETENTION_TRANSCRIPT_DAYS` (180) before the seed's year end go, trail rows older than 30 days.
 * Prints each phase's read p50/p99 and the documents removed per second.
 */

const readers = Number(process.env.RETENTION_READERS ?? 8);
const seconds = Number(process.env.RETENTION_SECONDS ?? 10);
const transcriptDays = Number(process.env.RETENTION_TRANSCRIPT_DAYS ?? 180);
const trailDays = Number(process.env.RETENTION_TRAIL_DAYS ?? 30);
const DAY_MS = 86_400_000;

interface Phase {
  phase: string;
  reads: number;
  p50_ms: number;
  p99_ms: number;
  removed: number;
  removed_per_s: number;
}

async function readLoop(db: Db, tenantId: string, callIds: string[], conversationIds: string[], until: number, times: number[]): Promise<void> {
  const { calls } = callCollections(db);
  const conversations = conversationsCollection(db);
  let n = 0;
  while (performance.now() < until) {
    const t0 = performance.now();
    const kind = n++ % 3;
    if (kind === 0) await calls.findOne({ _id: callIds[n % callIds.length]! });
    else if (kind === 1) await conversations.findOne({ _id: conversationIds[n % conversationIds.length]! });
    else await calls.find({ _id: idRange('call'), tenant_id: tenantId }).sort({ _id: -1 }).limit(25).toArray();
    times.push(performance.now() - t0);
  }
}

async function phase(db: Db, name: string, tenantId: string, callIds: string[], conversationIds: string[], sweep: ((signal: AbortSignal) => Promise<number>) | null): Promise<Phase> {
  const times: number[] = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  const stop = new AbortController();
  let removed = 0;
  const sweeping = (async () => {
    while (sweep && !stop.signal.aborted) {
      const n = await sweep(stop.signal);
      removed += n;
      if (n === 0) break;
    }
  })();
  await Promise.all(Array.from({ length: readers }, () => readLoop(db, tenantId, callIds, conversationIds, until, times)));
  stop.abort();
  await sweeping;
  const elapsed = (performance.now() - started) / 1000;
  const d = distribution(times);
  return { phase: name, reads: times.length, p50_ms: d.p50 ?? 0, p99_ms: d.p99 ?? 0, removed, removed_per_s: Math.round(removed / elapsed) };
}

async function main(): Promise<void> {
  refuseClusterTarget('bench:retention');
  const source = scaleDir();
  const manifest = readManifest(source);
  if (!manifest) throw new Error(`no seeded data in ${source}: run npm run seed:scale first`);
  const work = mkdtempSync(join(tmpdir(), 'bench-retention-'));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  try {
    cpSync(source, join(work, 'data'), { recursive: true });
    const ferret = await startFerretDb({ binary: toolPath(process.env.TOOLS_DIR ?? '.tools', 'ferretdb'), port: await freePort(), dataDir: join(work, 'data'), logFile: join(work, 'ferretdb.log') });
    const mongo = await new MongoClient(ferret.address).connect();
    try {
      const db = mongo.db('bench');
      const yearEnd = new Date(manifest.now);
      const cutoffs = { turnsBefore: new Date(yearEnd.getTime() - transcriptDays * DAY_MS), trailBefore: new Date(yearEnd.getTime() - trailDays * DAY_MS) };
      const { callIds, conversationIds } = manifest.samples;
      const tenantId = manifest.big.tenantId;
      say(`bench:retention on a copy of ${source} (SCALE=${manifest.scale}), ${readers} readers, ${seconds} s a phase, load average ${loadAverage()}`);
      say(`sweeps: turns before ${cutoffs.turnsBefore.toISOString()}, trail rows before ${cutoffs.trailBefore.toISOString()}, call transcripts before the former`);
      const sweepAll = (pauseMs: number) => async (signal: AbortSignal) => {
        const turns = await sweepExpiredTurns(db, cutoffs, { pauseMs, signal });
        const transcripts = await sweepExpiredCallTranscripts(db, cutoffs.turnsBefore, { pauseMs, signal });
        return turns.turns + turns.trail + transcripts;
      };
      const results = [
        await phase(db, 'no sweep', tenantId, callIds, conversationIds, null),
        await phase(db, `sweep, ${SWEEP_PAUSE_MS} ms between batches (the worker's pace)`, tenantId, callIds, conversationIds, sweepAll(SWEEP_PAUSE_MS)),
        await phase(db, 'sweep, unpaced (for comparison)', tenantId, callIds, conversationIds, sweepAll(0)),
      ];
      for (const r of results) say(`${r.phase.padEnd(52)} reads ${String(r.reads).padStart(6)}  p50 ${String(r.p50_ms).padStart(6)} ms  p99 ${String(r.p99_ms).padStart(7)} ms  removed ${r.removed} (${r.removed_per_s}/s)`);
    } finally {
      await mongo.close();
      await ferret.process.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
