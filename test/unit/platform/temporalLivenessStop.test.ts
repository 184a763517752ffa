import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../src/local/net';
import { fromRoot } from '../../../src/local/paths';

/**
 * The launchers' Temporal liveness probes (`npm start`'s and the cluster's) stopped while a
 * check is still being retried: a supervised child whose Temporal address refuses
 * connections, checks that time out, then the supervisor's stop, as a launcher's shutdown
 * does. Run in a process of its own, as the launcher is, because what went wrong was an
 * exception thrown from a timer after the stop ("Channel has been shut down"), which kills
 * the process it happens in.
 */

jest.setTimeout(60_000);

const SCRIPT = `
const { join } = require('node:path');
const { startProcess } = require('./src/local/childProcess.ts');
const { supervise } = require('./src/local/supervisor.ts');
const { temporalHealth } = require('./src/local/liveness.ts');
const { temporalServiceHealth } = require('./src/local/cluster/temporalServer.ts');
const [dir, port] = [process.argv[1], Number(process.argv[2])];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const services = { frontend: { grpc: port, membership: port }, history: { grpc: port, membership: port }, matching: { grpc: port, membership: port }, worker: { grpc: port, membership: port } };
const probes = { 'npm start temporal': temporalHealth('127.0.0.1:' + port), 'cluster frontend': temporalServiceHealth({ services, frontendHttp: port }, 'frontend') };
(async () => {
  for (const [name, probe] of Object.entries(probes)) {
    const first = startProcess(name, process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { logFile: join(dir, 'child.log') });
    const lines = [];
    const supervised = supervise({ name, first, start: async () => first, log: (l) => lines.push(l), liveness: { probe, policy: { intervalMs: 50, timeoutMs: 400, failures: 1000 } } });
    // Several checks given up on at their deadline, the last one still in flight.
    await sleep(1_500);
    await supervised.stop();
    process.stdout.write(name + ' stopped; ' + lines.length + ' lines\\n');
  }
  // The SDK's retry pauses are at most 5 s: any retry left behind has fired by now.
  await sleep(6_000);
  process.stdout.write('no exception after the stops\\n');
})();
`;

describe("the launchers' Temporal liveness probes", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'liveness-stop-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stop while a check against an unreachable Temporal is retrying, and nothing throws afterwards (no "Channel has been shut down")', async () => {
    const closedPort = await freePort();
    const child = spawn(process.execPath, ['-r', './test/support/registerTs.cjs', '-e', SCRIPT, dir, String(closedPort)], {
      cwd: fromRoot('.'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect({ code, stdout, stderr }).toEqual({
      code: 0,
      stdout: 'npm start temporal stopped; 0 lines\ncluster frontend stopped; 0 lines\nno exception after the stops\n',
      stderr: '',
    });
  });
});
