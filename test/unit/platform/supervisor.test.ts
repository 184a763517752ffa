import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, untilReady, type ManagedProcess } from '../../../src/local/childProcess';
import { httpHealth, type LivenessPolicy } from '../../../src/local/liveness';
import { freePort, waitFor } from '../../../src/local/net';
import { supervise, type RestartPolicy } from '../../../src/local/supervisor';

/** The launcher's restart rules, on real child processes with short pauses. */

// A run under 20 s is fast: even a loaded machine starts `node -e` well within that.
const policy: RestartPolicy = { initialBackoffMs: 100, maxBackoffMs: 400, fastFailureMs: 20_000, maxFastFailures: 3 };

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
  it('restarts a child killed with SIGKILL, logs the restart, and leaves other children running', async () => {
    const lines: string[] = [];
    const gaveUp: string[] = [];
    const a = supervise({ name: 'a', first: longLived('a'), start: async () => longLived('a'), policy, log: (l) => lines.push(l), onGiveUp: (r) => gaveUp.push(r) });
    const b = supervise({ name: 'b', first: longLived('b'), start: async () => longLived('b'), policy, log: (l) => lines.push(l), onGiveUp: (r) => gaveUp.push(r) });
    const firstPid = a.current().child.pid;
    const otherPid = b.current().child.pid;
    try {
      process.kill(firstPid!, 'SIGKILL');
      await until(() => lines.some((l) => l.startsWith('a restarted')));
      expect(lines[0]).toMatch(/^a exited unexpectedly \(SIGKILL\) after \d+\.\d s; restarting in 0\.1 s \(fast failure 1 of 3\)$/);
      expect(lines[1]).toBe(`a restarted (pid ${a.current().child.pid})`);
      expect(a.current().child.pid).not.toBe(firstPid);
      expect(a.current().child.exitCode).toBeNull();
      expect(b.current().child.pid).toBe(otherPid);
      expect(b.current().child.exitCode).toBeNull();
      expect(gaveUp).toEqual([]);
    } finally {
      await a.stop();
      await b.stop();
    }
    // A stopped child is not restarted.
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.filter((l) => l.startsWith('a restarted'))).toHaveLength(1);
    expect(lines.some((l) => l.startsWith('b '))).toBe(false);
  });

  it('gives up after the set number of fast failures in a row, with growing pauses', async () => {
    const lines: string[] = [];
    let reason = '';
    const crashing = () => node('crashing', 'process.exit(3)');
    const supervised = supervise({ name: 'crashing', first: crashing(), start: async () => crashing(), policy, log: (l) => lines.push(l), onGiveUp: (r) => (reason = r) });
    await until(() => reason !== '');
    expect(lines.filter((l) => l.includes('exited unexpectedly')).map((l) => /restarting in (\S+ s) \(fast failure (\d) of 3\)/.exec(l)!.slice(1))).toEqual([
      ['0.1 s', '1'],
      ['0.2 s', '2'],
    ]);
    expect(reason).toMatch(/^crashing failed 3 times in a row, each within 20 s of its start \(last: 3\); giving up\./);
    await supervised.stop();
  });

  it('counts a restart that fails to come up as a failure', async () => {
    let reason = '';
    const supervised = supervise({
      name: 'unready',
      first: node('unready', 'process.exit(1)'),
      start: async () => {
        throw new Error('unready was not ready within 1 s');
      },
      policy,
      log: () => undefined,
      onGiveUp: (r) => (reason = r),
    });
    await until(() => reason !== '');
    expect(reason).toMatch(/^unready failed 3 times in a row, each within 20 s of its start \(last: failed to start: unready was not ready within 1 s\); giving up\./);
    await supervised.stop();
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
    const gaveUp: string[] = [];
    const first = await serving();
    const supervised = supervise({ name: 'frozen', first, start: serving, policy, log: (l) => lines.push(l), onGiveUp: (r) => gaveUp.push(r), liveness: { probe: httpHealth(url), policy: liveness } });
    try {
      // Answering, it is left alone.
      await new Promise((r) => setTimeout(r, 500));
      expect(lines).toEqual([]);
      process.kill(first.child.pid!, 'SIGSTOP');
      await until(() => lines.some((l) => l.startsWith('frozen restarted')));
      expect(lines).toHaveLength(3);
      expect(lines[0]).toBe(`frozen (pid ${first.child.pid}) stopped answering: 3 checks in a row failed (last: no answer within 1.0 s); stopping it to restart it`);
      // SIGTERM with SIGCONT: the frozen process runs again just long enough to die of it.
      expect(lines[1]).toMatch(/^frozen was stopped for not answering \(SIGTERM\) after \d+\.\d s; restarting in 0\.1 s \(fast failure 1 of 3\)$/);
      expect(lines[2]).toBe(`frozen restarted (pid ${supervised.current().child.pid})`);
      expect(supervised.current().child.pid).not.toBe(first.child.pid);
      await httpHealth(url).check(2_000);
      // The new process answers, so it is not stopped again.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(lines).toHaveLength(3);
      expect(gaveUp).toEqual([]);
    } finally {
      await supervised.stop();
    }
  });
});
