import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, untilReady, type ManagedProcess } from '../../../src/local/childProcess';
import { httpHealth, type LivenessPolicy } from '../../../src/local/liveness';
import { freePort, waitFor } from '../../../src/local/net';
import type { ChildState } from '../../../src/local/childrenStatus';
import { livenessFailure, supervise, type RestartPolicy } from '../../../src/local/supervisor';

/** The launcher's restart rules, on real child processes with short pauses. */

// A run under 20 s is fast: even a loaded machine starts `node -e` well within that.
const policy: RestartPolicy = { initialBackoffMs: 100, maxBackoffMs: 400, fastFailureMs: 20_000, degradedAfter: 3 };

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'supervisor-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const node = (name: string, script: string): ManagedProcess =>
  startProcess(name, process.execPath, ['-e', script], { logFile: join(dir, `${name}.log`) });
const longLived = (name: string) => node(name, 'setInterval(() => {}, 1000)');

async function until(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('supervise', () => {
  it('restarts a child killed with SIGKILL, logs the restart, reports each state, and leaves other children running', async () => {
    const lines: string[] = [];
    const states: ChildState[] = [];
    const a = supervise({ name: 'a', first: longLived('a'), start: async () => longLived('a'), policy, log: (l) => lines.push(l), onStatus: (s) => states.push(s) });
    const b = supervise({ name: 'b', first: longLived('b'), start: async () => longLived('b'), policy, log: (l) => lines.push(l) });
    const firstPid = a.current().child.pid;
    const otherPid = b.current().child.pid;
    try {
      process.kill(firstPid!, 'SIGKILL');
      await until(() => lines.some((l) => l.startsWith('a restarted')));
      expect(lines[0]).toMatch(/^a exited unexpectedly \(SIGKILL\) after \d+\.\d s; restarting in 0\.1 s \(failure 1 in a row\)$/);
      expect(lines[1]).toBe(`a restarted (pid ${a.current().child.pid})`);
      expect(a.current().child.pid).not.toBe(firstPid);
      expect(a.current().child.exitCode).toBeNull();
      expect(b.current().child.pid).toBe(otherPid);
      expect(b.current().child.exitCode).toBeNull();
      expect(states).toEqual([
        { state: 'running', pid: firstPid, since: expect.any(String) },
        { state: 'restarting', since: expect.any(String), failures: 1, last_exit: 'SIGKILL', next_attempt_at: expect.any(String) },
        { state: 'running', pid: a.current().child.pid, since: expect.any(String) },
      ]);
    } finally {
      await a.stop();
      await b.stop();
    }
    // A stopped child is not restarted.
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.filter((l) => l.startsWith('a restarted'))).toHaveLength(1);
    expect(lines.some((l) => l.startsWith('b '))).toBe(false);
  });

  it('never gives up on a child that always exits at once: retries on, the pause doubling to its cap, saying from the third failure that it is degraded', async () => {
    const lines: string[] = [];
    const states: ChildState[] = [];
    const crashing = () => node('crashing', "console.error('cannot listen: EADDRINUSE'); process.exit(3)");
    const supervised = supervise({ name: 'crashing', first: crashing(), start: async () => crashing(), policy, log: (l) => lines.push(l), onStatus: (s) => states.push(s) });
    try {
      // Twice the failures that used to stop everything.
      await until(() => lines.filter((l) => !l.startsWith('crashing restarted')).length >= 7);
    } finally {
      await supervised.stop();
    }
    const failures = lines.filter((l) => !l.startsWith('crashing restarted')).slice(0, 7);
    expect(failures.slice(0, 2).map((l) => /^crashing exited unexpectedly \(3\) after \d+\.\d s; restarting in (\S+ s) \(failure (\d) in a row\)$/.exec(l)?.slice(1))).toEqual([
      ['0.1 s', '1'],
      ['0.2 s', '2'],
    ]);
    const degraded = failures.slice(2).map((l) => /^crashing is degraded: exited unexpectedly \(3\) after \d+\.\d s, failure (\d) in a row, each within 20\.0 s of its start; restarting in (\S+ s), and on for as long as it fails \(at most 0\.4 s apart\) while the others keep serving\. See ([^\s:]+)/.exec(l)?.slice(1));
    expect(degraded).toEqual([
      ['3', '0.4 s', join(dir, 'crashing.log')],
      ['4', '0.4 s', join(dir, 'crashing.log')],
      ['5', '0.4 s', join(dir, 'crashing.log')],
      ['6', '0.4 s', join(dir, 'crashing.log')],
      ['7', '0.4 s', join(dir, 'crashing.log')],
    ]);
    // The log's tail once, when it first becomes degraded, not on every retry.
    expect(failures[2]).toMatch(/crashing\.log:\n(.*\n)*cannot listen: EADDRINUSE$/);
    expect(failures.slice(3).every((l) => !l.includes('\n'))).toBe(true);
    expect(states.filter((s) => s.state === 'restarting').slice(0, 7).map((s) => s.state === 'restarting' && [s.failures, s.last_exit])).toEqual([
      [1, '3'],
      [2, '3'],
      [3, '3'],
      [4, '3'],
      [5, '3'],
      [6, '3'],
      [7, '3'],
    ]);
    // Down since the first failure, not the last.
    const down = states.filter((s) => s.state === 'restarting');
    expect(new Set(down.map((s) => s.since)).size).toBe(1);
    // Stopped, it is not restarted again.
    const seen = lines.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(lines).toHaveLength(seen);
  });

  it('counts a restart that fails to come up as a failure, keeps trying, and says when the child is back', async () => {
    const lines: string[] = [];
    let attempts = 0;
    const supervised = supervise({
      name: 'unready',
      first: node('unready', 'process.exit(1)'),
      start: async () => {
        attempts += 1;
        if (attempts <= 3) throw new Error('unready was not ready within 1 s\nlog lines');
        return longLived('unready');
      },
      policy,
      log: (l) => lines.push(l),
    });
    try {
      await until(() => lines.some((l) => l.startsWith('unready restarted')));
      expect(lines.slice(0, 4).map((l) => /\((1|failed to start: [^)]*)\)/.exec(l)![1])).toEqual([
        '1',
        'failed to start: unready was not ready within 1 s',
        'failed to start: unready was not ready within 1 s',
        'failed to start: unready was not ready within 1 s',
      ]);
      expect(lines[3]).toMatch(/^unready is degraded: exited unexpectedly \(failed to start: unready was not ready within 1 s\) after \d+\.\d s, failure 4 in a row/);
      expect(lines[4]).toMatch(new RegExp(`^unready restarted \\(pid ${supervised.current().child.pid}\\); no longer degraded, down for \\d+\\.\\d s$`));
      expect(supervised.current().child.exitCode).toBeNull();
    } finally {
      await supervised.stop();
    }
  });

  it('counts a restart that takes longer than a fast failure to fail coming up as a failure in a row all the same', async () => {
    const lines: string[] = [];
    const slow: RestartPolicy = { ...policy, fastFailureMs: 50 };
    const supervised = supervise({
      name: 'slow',
      first: node('slow', 'process.exit(1)'),
      start: async () => {
        // Longer than `fastFailureMs`: a readiness wait that runs out.
        await new Promise((r) => setTimeout(r, 150));
        throw new Error('slow was not ready within 0.15 s');
      },
      policy: slow,
      log: (l) => lines.push(l),
    });
    try {
      await until(() => lines.length >= 4);
    } finally {
      await supervised.stop();
    }
    expect(lines.slice(0, 4).map((l) => /failure (\d) in a row/.exec(l)?.[1])).toEqual(['1', '2', '3', '4']);
  });

  it('stops a child that stops answering its liveness check (frozen with SIGSTOP), says why in one line, and restarts it', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/healthz`;
    const serving = async () => {
      const proc = node('frozen', `require('node:http').createServer((req, res) => res.end('ok')).listen(${port}, '127.0.0.1')`);
      return untilReady(proc, waitFor('frozen', () => httpHealth(url).check(2_000).then(() => proc), 20_000, 50));
    };
    // Checked every 0.1 s, 1 s to answer: a live `node` answers well within that on a loaded machine.
    const liveness: LivenessPolicy = { intervalMs: 100, timeoutMs: 1_000, failures: 3 };
    const lines: string[] = [];
    const first = await serving();
    const supervised = supervise({ name: 'frozen', first, start: serving, policy, log: (l) => lines.push(l), liveness: { probe: httpHealth(url), policy: liveness } });
    try {
      // Answering, it is left alone.
      await new Promise((r) => setTimeout(r, 500));
      expect(lines).toEqual([]);
      process.kill(first.child.pid!, 'SIGSTOP');
      await until(() => lines.some((l) => l.startsWith('frozen restarted')));
      expect(lines).toHaveLength(3);
      expect(lines[0]).toBe(`frozen (pid ${first.child.pid}) stopped answering: 3 checks in a row failed (last: no answer within 1.0 s); stopping it to restart it`);
      // SIGTERM with SIGCONT: the frozen process runs again just long enough to die of it.
      expect(lines[1]).toMatch(/^frozen was stopped for not answering \(SIGTERM\) after \d+\.\d s; restarting in 0\.1 s \(failure 1 in a row\)$/);
      expect(lines[2]).toBe(`frozen restarted (pid ${supervised.current().child.pid})`);
      expect(supervised.current().child.pid).not.toBe(first.child.pid);
      await httpHealth(url).check(2_000);
      // The new process answers, so it is not stopped again.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(lines).toHaveLength(3);
    } finally {
      await supervised.stop();
    }
  });

  it('words every timed-out check the same, also a probe deadline that fired a little early by the wall clock', () => {
    // fetch's AbortSignal.timeout on a busy loop: its timer counts from the loop's cached time (CI saw this wording leak out).
    const aborted = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(livenessFailure(aborted, 1_995, 2_000)).toBe('no answer within 2.0 s');
    expect(livenessFailure(aborted, 300, 2_000)).toBe('no answer within 2.0 s');
    expect(livenessFailure(new Error('server selection timed out'), 1_850, 2_000)).toBe('no answer within 2.0 s');
    expect(livenessFailure(null, 2_000, 2_000)).toBe('no answer within 2.0 s');
    // A child that answers with a failure, or cannot be reached, is told apart.
    expect(livenessFailure(new Error('HTTP 503'), 40, 2_000)).toBe('HTTP 503');
    expect(livenessFailure(new Error('connect ECONNREFUSED 127.0.0.1:1\nmore'), 5, 2_000)).toBe('connect ECONNREFUSED 127.0.0.1:1');
  });
});
