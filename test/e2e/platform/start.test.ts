import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort, portInUse } from '../../../src/local/net';
import { fromRoot } from '../../../src/local/paths';
import { testServers, uniqueName } from '../../support/env';

/**
 * The launcher behind `npm start`, run as a person runs it (compiled, as a child process)
 * on free ports with its own data folder. Needs `npm run build` first (`npm test` does it).
 */

const launcherPath = fromRoot('dist/src/main/start.js');

// Each test starts and stops whole systems; a cold machine needs more than the default.
jest.setTimeout(180_000);

interface Launched {
  child: ChildProcess;
  output: () => string;
  lines: Record<string, string>;
}

function launch(env: Record<string, string>): Promise<Launched> {
  if (!existsSync(launcherPath)) throw new Error(`${launcherPath} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [launcherPath], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`launcher exited ${code} before ready:\n${output}`));
    };
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      reject(new Error(`launcher not ready in 90 s:\n${output}`));
    }, 90_000);
    child.once('exit', onExit);
    const onData = () => {
      if (!output.includes('[start] press Ctrl-C to stop')) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout!.off('data', onData);
      const lines: Record<string, string> = {};
      for (const m of output.matchAll(/^(API|Temporal UI|Web console|API key|Console token): (.+)$/gm)) lines[m[1]!] = m[2]!;
      resolve({ child, output: () => output, lines });
    };
    child.stdout!.on('data', onData);
  });
}

function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

describe('npm start (the launcher)', () => {
  let dataDir: string;
  let ports: Record<string, number>;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(testServers.runDir(), 'launcher-'));
    ports = {
      PORT: await freePort(),
      WORKER_METRICS_PORT: await freePort(),
      TEMPORAL_PORT: await freePort(),
      TEMPORAL_UI_PORT: await freePort(),
      FERRETDB_PORT: await freePort(),
    };
    env = { DATA_DIR: dataDir, TOOLS_DIR: testServers.toolsDir(), ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
  });

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts everything, prints the key, stops every child on SIGINT, and reuses the data on restart', async () => {
    const first = await launch(env);
    expect(first.lines.API).toBe(`http://127.0.0.1:${ports.PORT}`);
    expect(first.lines['Temporal UI']).toBe(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}`);
    expect(first.lines['Web console']).toBe(`http://127.0.0.1:${ports.PORT}/console/`);
    expect(first.lines['API key']).toMatch(/^ork_test_[A-Za-z0-9]{40}$/);
    expect(first.lines['Console token']).toMatch(/^ctk_[0-9a-f]{48}$/);

    const ready = await fetch(`${first.lines.API}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { mongodb: 'ok', temporal: 'ok' } });
    expect((await fetch(first.lines['Temporal UI']!)).status).toBe(200);
    // The web console's page, as built by npm test before jest (scripts/build-web.sh).
    const page = await fetch(first.lines['Web console']!);
    expect({ status: page.status, type: page.headers.get('content-type') }).toEqual({ status: 200, type: 'text/html; charset=utf-8' });
    expect((await fetch(`http://127.0.0.1:${ports.WORKER_METRICS_PORT}/metrics`)).status).toBe(200);

    expect(await stop(first.child, 'SIGINT')).toBe(0);
    expect(first.output()).toMatch(/stopping api\n.*stopping worker\n.*stopping ferretdb\n.*stopping temporal\n.*stopped/);
    for (const port of Object.values(ports)) expect({ port, inUse: await portInUse(port) }).toEqual({ port, inUse: false });

    const second = await launch(env);
    try {
      expect(second.lines['API key']).toBe(first.lines['API key']);
      expect(second.lines['Console token']).toBe(first.lines['Console token']);
      expect(readFileSync(join(dataDir, 'demo-api-key'), 'utf8').trim()).toBe(first.lines['API key']);
      // Each start runs one system check; both are in the database, so the data was kept.
      const mongo = await new MongoClient(`mongodb://127.0.0.1:${ports.FERRETDB_PORT}/`).connect();
      try {
        expect(await mongo.db('orchestrator').collection('system_checks').countDocuments()).toBe(2);
      } finally {
        await mongo.close();
      }
    } finally {
      expect(await stop(second.child, 'SIGTERM')).toBe(0);
    }
  });

  it('places a call with a capture against the demo workspace and, polling as the spec advises, gets a ready result with typed fields', async () => {
    const running = await launch(env);
    try {
      const api = running.lines.API!;
      const headers = { Authorization: `Bearer ${running.lines['API key']}`, 'Content-Type': 'application/json' };
      const placed = await fetch(`${api}/api/v1/calls`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          to: '9811133344',
          ring_seconds: 10,
          purpose: 'confirming a delivery',
          capture: {
            goal: 'Confirm the delivery',
            fields: [
              { label: 'Will someone be home?', type: 'yes_no', required: true },
              { label: 'Preferred slot', type: 'choice', options: ['Morning', 'Evening'] },
              { label: 'How many parcels?', type: 'number' },
            ],
            success: { field: 'will_someone_be_home', equals: 'yes' },
          },
        }),
      });
      expect(placed.status).toBe(201);
      const call = (await placed.json()) as { call_id: string; status: string; to: string };
      expect(call).toMatchObject({ status: 'ringing', to: '+919811133344' });

      // api-core §4: wait about ring_seconds, then read every few seconds until ended_at is
      // set, and on until result.state is no longer pending.
      await new Promise((r) => setTimeout(r, 10_000));
      let body: { ended_at: string | null; result: { state: string; fields: Record<string, unknown>; success: boolean | null; disposition: string } };
      const deadline = Date.now() + 60_000;
      do {
        body = (await (await fetch(`${api}/api/v1/calls/${call.call_id}`, { headers })).json()) as typeof body;
        if (body.ended_at !== null && body.result.state !== 'pending') break;
        await new Promise((r) => setTimeout(r, 2_000));
      } while (Date.now() < deadline);
      expect(body.result).toMatchObject({
        state: 'ready',
        disposition: 'completed',
        success: true,
        fields: { will_someone_be_home: true, preferred_slot: 'Morning', how_many_parcels: 2 },
      });
    } finally {
      expect(await stop(running.child, 'SIGTERM')).toBe(0);
    }
  }, 120_000);

  it('restarts each child killed with SIGKILL (FerretDB, Temporal, worker, API) and answers again: a request, then a message through Temporal and the worker', async () => {
    const running = await launch(env);
    const api = running.lines.API!;
    const headers = { Authorization: `Bearer ${running.lines['API key']}`, 'Content-Type': 'application/json' };
    const pidOf = (name: string) => Number([...running.output().matchAll(new RegExp(`\\[start\\] ${name} (?:running|restarted) \\(pid (\\d+)\\)`, 'g'))].pop()![1]);
    const restarts = (name: string) => running.output().split(`[start] ${name} restarted (pid `).length - 1;
    async function eventually<T>(what: string, attempt: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await attempt().catch(() => null);
        if (value !== null) return value;
        if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s; launcher output:\n${running.output()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const keyedRequestSucceeds = () =>
      eventually('GET /api/v1/agents answered 200', async () => ((await fetch(`${api}/api/v1/agents`, { headers })).status === 200 ? true : null));
    const mongo = await new MongoClient(`mongodb://127.0.0.1:${ports.FERRETDB_PORT}/`).connect();
    /** A template send, then its simulated delivery statuses, which a workflow on the worker records. */
    const messageIsRead = async () => {
      const sent = await eventually('POST /api/v1/messages answered 201', async () => {
        const res = await fetch(`${api}/api/v1/messages`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ to: '+919812345678', template: { name: 'order_update', variables: ['Asha', 'A-1', 'Friday'] } }),
        });
        return res.status === 201 ? ((await res.json()) as { message_id: string }) : null;
      });
      await eventually('the message was read', async () => {
        const doc = await mongo.db('orchestrator').collection('outbound_messages').findOne({ _id: sent.message_id as never });
        return doc?.status === 'read' ? true : null;
      });
    };
    try {
      await messageIsRead();
      for (const name of ['ferretdb', 'temporal', 'worker', 'api']) {
        const before = pidOf(name);
        const others = Object.fromEntries(['ferretdb', 'temporal', 'worker', 'api'].filter((n) => n !== name).map((n) => [n, pidOf(n)]));
        process.kill(before, 'SIGKILL');
        await eventually(`${name} restarted`, async () => (restarts(name) === 1 ? true : null), 120_000);
        expect(running.output()).toMatch(new RegExp(`\\[start\\] ${name} exited unexpectedly \\(SIGKILL\\) after \\d+\\.\\d s; restarting in 1\\.0 s \\(fast failure 1 of 5\\)`));
        expect(pidOf(name)).not.toBe(before);
        await keyedRequestSucceeds();
        await messageIsRead();
        // The other children were left running.
        for (const [other, pid] of Object.entries(others)) expect({ other, pid: pidOf(other) }).toEqual({ other, pid });
      }
      expect(running.child.exitCode).toBeNull();
    } finally {
      await mongo.close();
      expect(await stop(running.child, 'SIGTERM')).toBe(0);
    }
  }, 400_000);

  it('uses MONGODB_URL and TEMPORAL_ADDRESS when set, and starts no local server for them', async () => {
    const external = await launch({
      ...env,
      MONGODB_URL: testServers.mongoUrl(),
      MONGODB_DB: uniqueName('launcher'),
      TEMPORAL_ADDRESS: testServers.temporalAddress(),
      TEMPORAL_TASK_QUEUE: uniqueName('launcher'),
      CONSOLE_TOKEN: 'given-console-token-0123456789',
    });
    try {
      expect(external.output()).toContain(`[start] using Temporal at ${testServers.temporalAddress()}`);
      expect(external.output()).toContain('[start] using MongoDB at MONGODB_URL');
      expect(await portInUse(ports.TEMPORAL_PORT!)).toBe(false);
      expect(await portInUse(ports.FERRETDB_PORT!)).toBe(false);
      expect((await fetch(`${external.lines.API}/readyz`)).status).toBe(200);
      // A token that was given is not printed back.
      expect(external.lines['Console token']).toBeUndefined();
    } finally {
      expect(await stop(external.child)).toBe(0);
    }
  });
});

describe('a bad setting', () => {
  it('stops a process at start with a message naming the variable, and no stack', () => {
    const run = spawnSync(process.execPath, [fromRoot('dist/src/main/api.js')], {
      env: { PATH: process.env.PATH!, PORT: 'abc' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('Invalid configuration:\n  PORT: expected a port number (got "abc")\n');
  });
});
