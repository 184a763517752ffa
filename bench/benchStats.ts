import { readFileSync } from 'node:fs';

/** Small measuring helpers shared by the benchmark scripts. */

export interface Distribution {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

/** Nearest-rank percentiles of a sample (ms, or whatever unit it holds). */
export function distribution(values: number[]): Distribution {
  if (values.length === 0) return { count: 0, p50: null, p90: null, p99: null, max: null, mean: null };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    count: sorted.length,
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1]!),
    mean: round(sorted.reduce((a, b) => a + b, 0) / sorted.length),
  };
}

export function formatDistribution(d: Distribution, unit = 'ms'): string {
  if (d.count === 0) return 'no samples';
  return `p50 ${d.p50} ${unit}, p90 ${d.p90} ${unit}, p99 ${d.p99} ${unit}, max ${d.max} ${unit} (n=${d.count})`;
}

/** CPU seconds a process has used so far (user + system), from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of a process and all its descendants (Temporal's and FerretDB's helpers included). */
export function treeCpuSeconds(pid: number): number {
  let total = 0;
  const visit = (p: number) => {
    try {
      total += cpuSeconds(p);
      const children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim();
      for (const child of children ? children.split(' ') : []) visit(Number(child));
    } catch {
      // Gone in the meantime.
    }
  };
  visit(pid);
  return total;
}

/** Busy CPU seconds of the whole machine so far (every process, ours or not), from /proc/stat. */
export function machineBusySeconds(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = cpu as number[];
  return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
}

export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Peak resident memory of a process so far (VmHWM from /proc), in MiB. */
export function peakRssMiB(pid: number): number {
  return statusMiB(pid, 'VmHWM');
}

/** Resident memory of a process now (VmRSS from /proc), in MiB. */
export function rssMiB(pid: number): number {
  return statusMiB(pid, 'VmRSS');
}

function statusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
}
