import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchTarget,
  clusterCpuMeter,
  processesByRole,
  processTreeCpuSeconds,
  refuseClusterTarget,
  refuseSettingsOnCluster,
  roleCpuBetween,
  type RoleCpuMark,
} from '../../../bench/clusterTarget';
import { treeCpuSeconds } from '../../../bench/benchStats';
import { writeClusterState } from '../../../src/local/cluster/clusterState';
import { clusterStateNaming } from '../../support/clusterStates';

/**
 * BENCH_TARGET=cluster measures the cluster's processes by the pids its launcher writes: a
 * figure must be the role's whole CPU (every process of it, PostgreSQL's exited backends too),
 * and a process replaced during a measurement must show as not measured, never as a number.
 */

const state = clusterStateNaming;

const mark = (pids: Record<string, number>, cpu: Record<string, number | null>): RoleCpuMark => ({ pids, cpu, bench: 0, machine: 0, at: 0, us: 0 });

/** A child that burns `cpuMs` of CPU, then idles until killed. */
function burner(cpuMs: number): ChildProcess {
  return spawn(process.execPath, ['-e', `const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1000 < ${cpuMs}); setInterval(() => {}, 1000);`], { stdio: 'ignore' });
}

/** A process that burns `cpuMs` of CPU only once told to (SIGUSR2), so a mark taken before that cannot already hold the burn. */
async function burnerOnCue(cpuMs: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['-e', `process.on('SIGUSR2', () => { const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1000 < ${cpuMs}); }); setInterval(() => {}, 1000); console.log('ready');`],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the burner exited (${code}) before it was ready`)));
  });
  return child;
}

async function until(what: string, check: () => boolean, withinMs = 30_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the cluster as a bench target', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'cluster-target-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    delete process.env.BENCH_TARGET;
  });

  it('groups the launcher’s children into roles, our numbered processes into one each, in the report’s order', () => {
    const byRole = processesByRole({
      'temporal-history': 11,
      'api-2': 22,
      postgresql: 1,
      'worker-1': 31,
      'media-1': 41,
      'api-1': 21,
      ferretdb: 5,
      'temporal-frontend': 12,
      'worker-2': 32,
    });
    expect(Object.keys(byRole)).toEqual(['api', 'worker', 'media', 'ferretdb', 'postgresql', 'temporal-frontend', 'temporal-history']);
    expect(byRole.api).toEqual({ 'api-1': 21, 'api-2': 22 });
    expect(byRole.worker).toEqual({ 'worker-1': 31, 'worker-2': 32 });
  });

  it('sums a role’s processes between two marks, and makes a role NaN, named, when one of its processes was replaced or is gone', () => {
    const from = mark({ 'api-1': 21, 'api-2': 22, ferretdb: 5, postgresql: 1 }, { 'api-1': 1, 'api-2': 2, ferretdb: 3, postgresql: 4 });
    const to = mark({ 'api-1': 21, 'api-2': 99, ferretdb: 5, postgresql: 1 }, { 'api-1': 1.5, 'api-2': 0.1, ferretdb: 3.25, postgresql: null });
    const { cpu, restarted } = roleCpuBetween(from, to);
    expect(cpu).toEqual({ api: NaN, ferretdb: 0.25, postgresql: NaN });
    expect(restarted).toEqual(['api-2 (pid 22 → 99)', 'postgresql (pid 1 → 1)']);
    const same = roleCpuBetween(from, mark(from.pids, { 'api-1': 1.5, 'api-2': 2.75, ferretdb: 3, postgresql: 4 }));
    expect(same).toEqual({ cpu: { api: 1.25, ferretdb: 0, postgresql: 0 }, restarted: [] });
  });

  it("counts the CPU of a child its process has reaped (a PostgreSQL backend that exited), which the embedded benches' tree measure loses", async () => {
    // A shell waits for a node child that burns 300 ms and exits: its CPU moves to the shell's cutime.
    const shell = spawn('sh', ['-c', `"${process.execPath}" -e 'const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1000 < 300);'; sleep 60`], { stdio: 'ignore' });
    children.push(shell);
    const pid = shell.pid!;
    const childrenOf = () => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
    // The node child ran and is gone: the shell's only child is now `sleep`.
    await until('the burner exited', () => {
      const kids = childrenOf();
      return kids.length === 1 && readFileSync(`/proc/${kids[0]}/comm`, 'utf8').trim() === 'sleep';
    });
    expect(processTreeCpuSeconds(pid)!).toBeGreaterThanOrEqual(0.29);
    expect(treeCpuSeconds(pid)).toBeLessThan(0.1);
    expect(processTreeCpuSeconds(2 ** 22 + 1)).toBeNull();
  });

  it('measures the processes the state file names at each mark, and reports a process the launcher replaced meanwhile as not measured', async () => {
    const file = join(tempDir(), 'cluster.json');
    const first = await burnerOnCue(300);
    const [second, replacement] = [burner(0), burner(0)];
    children.push(first, second, replacement);
    writeClusterState(file, state({ 'worker-1': first.pid!, 'worker-2': second.pid!, ferretdb: second.pid! }));
    const meter = clusterCpuMeter(file);
    const before = meter.mark();
    const idle = processTreeCpuSeconds(first.pid!)!;
    // Its 300 ms burnt after the mark, told to only now (the kernel's ticks count at least 0.2 s of them).
    first.kill('SIGUSR2');
    await until('the burner burnt its CPU', () => processTreeCpuSeconds(first.pid!)! >= idle + 0.2);
    const kept = meter.since(before);
    expect(kept.restarted).toBeUndefined();
    expect(Object.keys(kept.cpu_seconds)).toEqual(['worker', 'ferretdb', 'bench']);
    expect(kept.cpu_seconds.worker).toBeGreaterThan(0);

    // The launcher restarted worker-2 under a new pid and rewrote the file.
    writeClusterState(file, state({ 'worker-1': first.pid!, 'worker-2': replacement.pid!, ferretdb: second.pid! }));
    const replaced = meter.since(before);
    expect(replaced.cpu_seconds.worker).toBeNaN();
    expect(replaced.restarted).toEqual([`worker-2 (pid ${second.pid} → ${replacement.pid})`]);
    expect(JSON.parse(JSON.stringify(replaced)).cpu_seconds.worker).toBeNull();
  });

  it('refuses, under BENCH_TARGET=cluster, a bench that starts its own servers and the settings that need them; anything else but embedded or cluster is refused too', () => {
    expect(benchTarget({})).toBe('embedded');
    expect(() => benchTarget({ BENCH_TARGET: 'clusters' })).toThrow('BENCH_TARGET must be embedded or cluster, not "clusters"');
    expect(() => refuseClusterTarget('bench:webhooks')).not.toThrow();
    process.env.BENCH_TARGET = 'cluster';
    expect(() => refuseClusterTarget('bench:webhooks')).toThrow(
      'bench:webhooks does not run against the cluster: it starts servers of its own, so BENCH_TARGET=cluster would not measure the cluster (unset BENCH_TARGET; bench:calls and bench:campaigns support it)',
    );
    const why = { BENCH_CPU_PROF: 'profiles need our processes', BENCH_OP_TALLY: 'the tally is set at start' };
    expect(() => refuseSettingsOnCluster('bench:campaigns', why, { BENCH_CPU_PROF: '0' })).not.toThrow();
    expect(() => refuseSettingsOnCluster('bench:campaigns', why, { BENCH_CPU_PROF: '1', BENCH_OP_TALLY: '1' })).toThrow(
      'bench:campaigns with BENCH_TARGET=cluster: BENCH_CPU_PROF is not available (profiles need our processes); BENCH_OP_TALLY is not available (the tally is set at start)',
    );
  });
});
