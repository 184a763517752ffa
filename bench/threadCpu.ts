import { readdirSync, readFileSync } from 'node:fs';

/**
 * A Node process's CPU by thread, from the kernel's accounts (`/proc/<pid>/task/<tid>/stat`):
 * a profiler's samples count a preempted thread's wall time on a loaded machine, the kernel
 * counts only time on a core (docs/decisions/performance.md, "Where a turn's CPU goes").
 * Threads are grouped by what they are: the main thread; Node's own threads named `node` that
 * started with the process (V8's platform threads: garbage collection and JIT compilation);
 * `node` threads started later (worker threads: the Temporal worker's workflow sandbox); and
 * the rest by their name (the core SDK's tokio threads, libuv's pool).
 */

const TICKS_PER_SECOND = 100;
/** Threads started this soon after their process are its start-up threads (V8's platform pool). */
const STARTUP_TICKS = 100;

interface ThreadTicks {
  group: string;
  ticks: number;
}

function threadTicks(pid: number): Map<number, ThreadTicks> {
  const threads = new Map<number, ThreadTicks>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  const fields = (tid: string) => readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  let processStart: number;
  try {
    processStart = Number(fields(String(pid))[19]);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const stat = fields(tid);
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      // Fields after the name, from 0: 11 utime, 12 stime, 19 starttime (clock ticks).
      const ticks = Number(stat[11]) + Number(stat[12]);
      const group =
        Number(tid) === pid ? 'main' : name === 'node' ? (Number(stat[19]) - processStart <= STARTUP_TICKS ? 'V8 platform (GC, JIT)' : 'worker threads') : name;
      threads.set(Number(tid), { group, ticks });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

export interface ThreadMark {
  threads: Record<string, Map<number, ThreadTicks>>;
}

export function markThreads(pids: Record<string, number>): ThreadMark {
  return { threads: Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, threadTicks(pid)])) };
}

/** CPU milliseconds per unit, by process and thread group, since the mark (threads that ended meanwhile are not counted). */
export function threadCpuSince(from: ThreadMark, pids: Record<string, number>, units: number): Record<string, Record<string, number>> {
  const result: Record<string, Record<string, number>> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const before = from.threads[name] ?? new Map<number, ThreadTicks>();
    const groups: Record<string, number> = {};
    for (const [tid, now] of threadTicks(pid)) {
      const ticks = now.ticks - (before.get(tid)?.ticks ?? 0);
      groups[now.group] = (groups[now.group] ?? 0) + ticks;
    }
    result[name] = Object.fromEntries(
      Object.entries(groups)
        .filter(([, ticks]) => ticks > 0)
        .sort((a, b) => b[1] - a[1])
        .map(([group, ticks]) => [group, Math.round(((ticks / TICKS_PER_SECOND) * 1000 * 100) / units) / 100]),
    );
  }
  return result;
}

/** `worker: main 14.8, worker threads 5.4, … ms per turn`, one line per process. */
export function formatThreadCpu(split: Record<string, Record<string, number>>, unit: string): string {
  return Object.entries(split)
    .map(([name, groups]) => `  ${name} CPU per ${unit} by thread: ${Object.entries(groups).map(([group, ms]) => `${group} ${ms.toFixed(2)}`).join(', ')} ms`)
    .join('\n');
}
