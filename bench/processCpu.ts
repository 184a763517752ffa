import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../src/local/paths';
import { cpuSeconds, loadAverage, machineBusySeconds, treeCpuSeconds } from './benchStats';

/**
 * CPU per process over a stretch of a benchmark, the way `bench:calls` measures it: each
 * process's user + system seconds from /proc (with its children for the Go servers), the
 * bench process itself (its load generator and any simulator it hosts), and the machine's
 * busy seconds, so the share of other work on the machine shows.
 */

export interface CpuUse {
  seconds: number;
  /** CPU seconds per process name, plus `bench` (this process). */
  cpu_seconds: Record<string, number>;
  /** Busy CPU seconds of everything else on the machine meanwhile. */
  others_on_machine: number;
  load_average_after: string;
  /** The stretch in monotonic microseconds, to cut `--cpu-prof` profiles to it. */
  window: { fromUs: number; toUs: number };
  /** BENCH_TARGET=cluster: processes replaced meanwhile (a restart); their role's figure is NaN, not a guess. */
  restarted?: string[];
}

interface Mark {
  cpu: Record<string, number>;
  machine: number;
  at: number;
  us: number;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** `processes` maps a display name to a pid; `tree` names those whose descendants count too. */
export function cpuMeter(processes: Record<string, number>, tree: string[] = []) {
  const mark = (): Mark => {
    const own = process.cpuUsage();
    const cpu: Record<string, number> = {};
    for (const [name, pid] of Object.entries(processes)) cpu[name] = tree.includes(name) ? treeCpuSeconds(pid) : cpuSeconds(pid);
    cpu.bench = (own.user + own.system) / 1e6;
    return { cpu, machine: machineBusySeconds(), at: performance.now(), us: monotonicUs() };
  };
  return {
    mark,
    since(from: Mark): CpuUse {
      const to = mark();
      const cpu = Object.fromEntries(Object.keys(to.cpu).map((k) => [k, round3(to.cpu[k]! - from.cpu[k]!)]));
      const ours = Object.values(cpu).reduce((a, b) => a + b, 0);
      return {
        seconds: round3((to.at - from.at) / 1000),
        cpu_seconds: cpu,
        others_on_machine: round3(Math.max(0, to.machine - from.machine - ours)),
        load_average_after: loadAverage(),
        window: { fromUs: from.us, toUs: to.us },
      };
    },
  };
}

/** CPU milliseconds per unit of work, per process. */
export function perUnit(use: CpuUse, units: number): Record<string, number | null> {
  return Object.fromEntries(Object.entries(use.cpu_seconds).map(([k, s]) => [k, units > 0 && Number.isFinite(s) ? Math.round((s / units) * 1e5) / 100 : null]));
}

/** One line: `CPU per <unit>: api 0.9 ms, FerretDB 1.2 ms, …; other processes …`. */
export function formatPerUnit(use: CpuUse, units: number, unit: string, unitsName = `${unit}s`): string {
  const per = perUnit(use, units);
  const parts = Object.entries(per).map(([k, ms]) => `${k} ${ms === null ? '–' : ms.toFixed(2)} ms`);
  return (
    `  CPU per ${unit}: ${parts.join(', ')} (${units} ${unitsName} in ${use.seconds.toFixed(1)} s); ` +
    `other processes on the machine ${use.others_on_machine.toFixed(1)} CPU-s; load average after ${use.load_average_after}` +
    (use.restarted ? `; NOT MEASURED (restarted meanwhile): ${use.restarted.join(', ')}` : '')
  );
}

/** Writes a benchmark's figures to `.bench/<name>-<time>.json` (read by `npm run bench`'s summary). */
export function writeBenchFigures(name: string, figures: unknown): string {
  const dir = fromRoot('.bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  return file;
}
