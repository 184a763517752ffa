import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
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

function launch(env: Record<string, string>, options: { detached?: boolean } = {}): Promise<Launched> {
  if (!existsSync(launcherPath)) throw new Error(`${launcherPath} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [launcherPath], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
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

const CHILDREN = ['ferretdb', 'temporal', 'worker', 'api', 'media'];

/** The child's pid from the launcher's last `running` or `restarted` line for it. */
function pidOfIn(output: string, name: string): number {
  return Number([...output.matchAll(new RegExp(`\\[start\\] ${name} (?:running|restarted) \\(pid (\\d+)\\)`, 'g'))].pop()![1]);
}

/** Alive and not a zombie (an orphan's zombie may wait for an init that does not reap). */
function processAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function eventuallyTrue(what: string, check: () => Promise<boolean>, timeoutMs: number, context: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s; launcher output:\n${context()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Within the watchdog's grace (10 s, more on a loaded machine): every child gone, every port free. */
async function childrenGone(pids: number[], running: Launched, ports: Record<string, number>): Promise<void> {
  await eventuallyTrue('every child gone', async () => pids.every((pid) => !processAlive(pid)), 60_000, running.output);
  for (const port of Object.values(ports)) expect({ port, inUse: await portInUse(port) }).toEqual({ port, inUse: false });
}

/** Requests that prove the launched system works end to end, and its children's pids. */
function watchSystem(running: Launched, ferretDbPort: number) {
  const api = running.lines.API!;
  const headers = { Authorization: `Bearer ${running.lines['API key']}`, 'Content-Type': 'application/json' };
  const mongo = new MongoClient(`mongodb://127.0.0.1:${ferretDbPort}/`);
  async function eventually<T>(what: string, attempt: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await attempt().catch(() => null);
      if (value !== null) return value;
      if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s; launcher output:\n${running.output()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const pidOf = (name: string) => pidOfIn(running.output(), name);
  return {
    eventually,
    pidOf,
    otherPids: (name: string) => Object.fromEntries(CHILDREN.filter((n) => n !== name).map((n) => [n, pidOf(n)])),
    restarts: (name: string) => running.output().split(`[start] ${name} restarted (pid `).length - 1,
    keyedRequestSucceeds: () =>
      eventually('GET /api/v1/agents answered 200', async () => ((await fetch(`${api}/api/v1/agents`, { headers })).status === 200 ? true : null)),
    /** A template send, then its simulated delivery statuses, which a workflow on the worker records. */
    async messageIsRead() {
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
    },
    close: () => mongo.close(),
  };
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
      MEDIA_PORT: await freePort(),
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
    // The launcher's children too (DATA_DIR/children.json), each answering.
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { mongodb: 'ok', temporal: 'ok' },
      processes: { temporal: 'ok', ferretdb: 'ok', worker: 'ok', api: 'ok', media: 'ok' },
    });
    expect((await fetch(first.lines['Temporal UI']!)).status).toBe(200);
    // The web console's page, as built by npm test before jest (scripts/build-web.sh).
    const page = await fetch(first.lines['Web console']!);
    expect({ status: page.status, type: page.headers.get('content-type') }).toEqual({ status: 200, type: 'text/html; charset=utf-8' });
    expect((await fetch(`http://127.0.0.1:${ports.WORKER_METRICS_PORT}/metrics`)).status).toBe(200);
    expect(first.output()).toContain(`Media streams: ws://127.0.0.1:${ports.MEDIA_PORT}/media-stream/<call id>/<secret>\n`);
    expect(await (await fetch(`http://127.0.0.1:${ports.MEDIA_PORT}/healthz`)).json()).toEqual({ status: 'ok', sessions: 0 });
    expect(await (await fetch(`http://127.0.0.1:${ports.MEDIA_PORT}/metrics`)).text()).toContain('media_sessions_live{service="media"} 0');

    expect(await stop(first.child, 'SIGINT')).toBe(0);
    expect(first.output()).toMatch(/stopping media\n.*stopping api\n.*stopping worker\n.*stopping ferretdb\n.*stopping temporal\n.*stopped/);
    // Nothing thrown while stopping (a probe's retry firing on its closed gRPC channel once killed a launcher).
    expect(first.output()).not.toMatch(/Channel has been shut down|fatal|Unhandled|\n\s+at /);
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
  }, 240_000);

  it("answers the README's inbound example: the demo sender's chat agent replies to \"Where is my order?\" from the demo's FAQ document", async () => {
    const running = await launch(env);
    try {
      const api = running.lines.API!;
      const injected = await fetch(`${api}/console/v1/workspaces/ws_demo/whatsapp/inbound`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${running.lines['Console token']}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ from: '+919812345678', text: 'Where is my order?' }),
      });
      expect(injected.status).toBe(201);
      const { conversation_id: conversationId } = (await injected.json()) as { conversation_id: string };
      const headers = { Authorization: `Bearer ${running.lines['API key']}` };
      let turns: { role: string; text: string }[] = [];
      const deadline = Date.now() + 60_000;
      do {
        turns = ((await (await fetch(`${api}/api/v1/conversations/${conversationId}/messages`, { headers })).json()) as { items: { role: string; text: string }[] }).items;
        if (turns.some((t) => t.role === 'model')) break;
        await new Promise((r) => setTimeout(r, 500));
      } while (Date.now() < deadline);
      // The answer comes from the demo's seeded FAQ, and says so; the console's trail names the document.
      expect(turns.map((t) => [t.role, t.text])).toEqual([
        ['user', 'Where is my order?'],
        [
          'model',
          'Orders ship within 2 working days and arrive 3 to 5 working days later; the tracking link comes by WhatsApp when the order ships. Send us your order number and we will tell you where yours is. (from our "Demo business FAQ")',
        ],
      ]);
      const consoleTurns = (await (
        await fetch(`${api}/console/v1/workspaces/ws_demo/conversations/${conversationId}/transcript`, { headers: { Authorization: `Bearer ${running.lines['Console token']}` } })
      ).json()) as { items: { kind: string; text: string }[] };
      expect(consoleTurns.items.filter((t) => t.kind === 'trail').map((t) => t.text)).toEqual([
        expect.stringMatching(/^Lookup search_knowledge: Searched the knowledge documents for "Where is my order\?": used "Demo business FAQ" \(kdoc_[0-9a-f]{24}\) \(\d+ ms\)$/),
      ]);
    } finally {
      expect(await stop(running.child, 'SIGTERM')).toBe(0);
    }
  }, 240_000);

  it('restarts each child killed with SIGKILL (FerretDB, Temporal, worker, API, media bridge) and answers again: a request, then a message through Temporal and the worker', async () => {
    const running = await launch(env);
    const system = watchSystem(running, ports.FERRETDB_PORT!);
    try {
      await system.messageIsRead();
      for (const name of CHILDREN) {
        const before = system.pidOf(name);
        const others = system.otherPids(name);
        process.kill(before, 'SIGKILL');
        await system.eventually(`${name} restarted`, async () => (system.restarts(name) === 1 ? true : null), 120_000);
        expect(running.output()).toMatch(new RegExp(`\\[start\\] ${name} exited unexpectedly \\(SIGKILL\\) after \\d+\\.\\d s; restarting in 1\\.0 s \\(failure 1 in a row\\)`));
        expect(system.pidOf(name)).not.toBe(before);
        await system.keyedRequestSucceeds();
        await system.messageIsRead();
        // The other children were left running.
        expect(system.otherPids(name)).toEqual(others);
      }
      expect(running.child.exitCode).toBeNull();
    } finally {
      await system.close();
      expect(await stop(running.child, 'SIGTERM')).toBe(0);
    }
  }, 400_000);

  it('stops and restarts each child that stops answering its liveness check (frozen with SIGSTOP), saying why, and answers again', async () => {
    // Checked every 0.5 s, 2 s to answer, 3 misses in a row: short, for the test's sake.
    const running = await launch({ ...env, LIVENESS_INTERVAL_MS: '500', LIVENESS_TIMEOUT_MS: '2000', LIVENESS_FAILURES: '3' });
    const system = watchSystem(running, ports.FERRETDB_PORT!);
    try {
      expect(running.output()).toContain('[start] each child is checked every 0.5 s (2.0 s to answer); one that misses 3 checks in a row is stopped and restarted\n');
      await system.messageIsRead();
      for (const name of CHILDREN) {
        const before = system.pidOf(name);
        const others = system.otherPids(name);
        process.kill(before, 'SIGSTOP');
        await system.eventually(`${name} restarted`, async () => (system.restarts(name) === 1 ? true : null), 120_000);
        expect(running.output()).toContain(`[start] ${name} (pid ${before}) stopped answering: 3 checks in a row failed (last: no answer within 2.0 s); stopping it to restart it\n`);
        expect(running.output()).toMatch(new RegExp(`\\[start\\] ${name} was stopped for not answering \\((?:\\d+|SIG[A-Z]+)\\) after \\d+\\.\\d s; restarting in 1\\.0 s \\(failure 1 in a row\\)`));
        expect(system.pidOf(name)).not.toBe(before);
        expect(processAlive(before)).toBe(false);
        await system.keyedRequestSucceeds();
        await system.messageIsRead();
        expect(system.otherPids(name)).toEqual(others);
      }
      expect(running.child.exitCode).toBeNull();
    } finally {
      await system.close();
      expect(await stop(running.child, 'SIGTERM')).toBe(0);
    }
  }, 400_000);

  it('keeps the rest serving while the media bridge cannot start (its port taken): retries it with capped pauses, /readyz names it, and it comes back once the port is free', async () => {
    // Pauses of 1 s doubling to 2 s, for the test's sake (the default cap is 5 min).
    const running = await launch({ ...env, RESTART_BACKOFF_MS: '1000', RESTART_MAX_BACKOFF_MS: '2000' });
    const system = watchSystem(running, ports.FERRETDB_PORT!);
    const holder = createServer((socket) => socket.destroy());
    try {
      expect(running.output()).toContain('[start] a child that dies is restarted after 1.0 s (doubling to at most 2.0 s), for as long as it fails, while the others keep serving; /readyz names a child that is down\n');
      const others = system.otherPids('media');
      // A real fault: the media process dies and something else takes its port before it restarts.
      process.kill(system.pidOf('media'), 'SIGKILL');
      await system.eventually(
        'MEDIA_PORT taken by the test',
        () => new Promise<true | null>((resolve) => {
          holder.once('error', () => resolve(null));
          holder.listen(ports.MEDIA_PORT, '127.0.0.1', () => {
            holder.removeAllListeners('error');
            resolve(true);
          });
        }),
        10_000,
      );
      // Retried on past the five failures that used to stop everything (and exit 1), each pause at most 2 s.
      const gone = () => running.child.exitCode !== null || running.child.signalCode !== null;
      await system.eventually('six failures in a row', async () => (gone() || running.output().includes('failure 6 in a row') ? true : null), 120_000);
      expect({ exitCode: running.child.exitCode, gaveUp: running.output().includes('giving up') }).toEqual({ exitCode: null, gaveUp: false });
      expect(running.output()).toMatch(/\[start\] media is degraded: exited unexpectedly \(failed to start: media exited \(1\) during start-up\. Last log lines from \S+media\.log:\) after \d+\.\d s, failure 3 in a row/);
      expect(running.output()).toMatch(/\[start\] media is degraded: [^\n]*failure 6 in a row, each within 60\.0 s of its start; restarting in 2\.0 s, and on for as long as it fails \(at most 2\.0 s apart\) while the others keep serving\. See \S+media\.log\n/);
      expect(running.child.exitCode).toBeNull();

      // Everything else serves: a keyed request, a message through Temporal and the worker.
      const ping = await fetch(`${running.lines.API}/api/v1/ping`, { headers: { Authorization: `Bearer ${running.lines['API key']}` } });
      expect(ping.status).toBe(200);
      await system.messageIsRead();
      const ready = await fetch(`${running.lines.API}/readyz`);
      const body = (await ready.json()) as { status: string; checks: unknown; processes: Record<string, string> };
      expect({ status: ready.status, body }).toEqual({
        status: 200,
        body: {
          status: 'degraded',
          checks: { mongodb: 'ok', temporal: 'ok' },
          processes: { temporal: 'ok', ferretdb: 'ok', worker: 'ok', api: 'ok', media: expect.any(String) },
        },
      });
      expect(body.processes.media).toMatch(
        /^down since \d{4}-\d\d-\d\dT[\d:.]+Z: \d+ failures in a row \(last: failed to start: media exited \(1\) during start-up\. Last log lines from \S+media\.log:\); next restart at \d{4}-\d\d-\d\dT[\d:.]+Z$/,
      );
      expect(system.otherPids('media')).toEqual(others);

      // The fault cleared: the next restart comes up, and /readyz is whole again.
      await new Promise((resolve) => holder.close(resolve));
      await system.eventually('the media bridge back', async () => (/\[start\] media restarted \(pid \d+\); no longer degraded, down for \d+\.\d s\n/.test(running.output()) ? true : null), 60_000);
      expect(await (await fetch(`http://127.0.0.1:${ports.MEDIA_PORT}/healthz`)).json()).toEqual({ status: 'ok', sessions: 0 });
      await system.eventually('/readyz ready', async () => {
        const res = await fetch(`${running.lines.API}/readyz`);
        return res.status === 200 && ((await res.json()) as { status: string }).status === 'ready' ? true : null;
      });
      expect(running.child.exitCode).toBeNull();
    } finally {
      if (holder.listening) await new Promise((resolve) => holder.close(resolve));
      await system.close();
      if (running.child.exitCode === null && running.child.signalCode === null) expect(await stop(running.child, 'SIGTERM')).toBe(0);
    }
  }, 300_000);

  it('stops cleanly when stopped during its start-up (SIGTERM as the API starts): exit 0, no fatal line, no child left, every port free', async () => {
    const child = spawn(process.execPath, [launcherPath], { env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const running = { child, output: () => output, lines: {} };
    // The worker is up and its check passed: the launcher goes on to start the API, and the stop meets it starting.
    await eventuallyTrue('the worker ready', async () => output.includes('[start] worker ready, system check passed') || child.exitCode !== null, 90_000, running.output);
    const pids = ['temporal', 'ferretdb', 'worker'].map((name) => pidOfIn(output, name));
    child.kill('SIGTERM');
    expect({ code: await exited, fatal: /fatal|Channel has been shut down|\n\s+at /.test(output) }).toEqual({ code: 0, fatal: false });
    expect(output).toMatch(/\[start\] SIGTERM: shutting down\n(.*\n)*\[start\] stopped\n$/);
    expect(output).not.toContain('press Ctrl-C to stop');
    await childrenGone(pids, running, ports);
  });

  it('leaves no child running and every port free when the launcher is killed with SIGKILL', async () => {
    const running = await launch(env);
    const pids = CHILDREN.map((name) => pidOfIn(running.output(), name));
    running.child.kill('SIGKILL');
    await childrenGone(pids, running, ports);
  });

  it('survives a closed stdout (`npm start | tee log`, then SIGTERM to the group): stops every child and exits 0', async () => {
    // A group of its own, as a terminal's pipeline is; the children are in groups of their own.
    const running = await launch(env, { detached: true });
    const pids = CHILDREN.map((name) => pidOfIn(running.output(), name));
    const exited = new Promise<number | null>((resolve) => running.child.once('exit', (code) => resolve(code)));
    // The reader (tee) goes first: the launcher's next line meets a closed pipe (EPIPE).
    running.child.stdout!.destroy();
    running.child.stderr!.destroy();
    process.kill(-running.child.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    await childrenGone(pids, running, ports);
  });

  it('refuses a busy port in one line naming the process that holds it, with no stack', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(ports.TEMPORAL_PORT, '127.0.0.1', resolve));
    try {
      const child = spawn(process.execPath, [launcherPath], { env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
      expect(stderr).toMatch(
        new RegExp(`^port ${ports.TEMPORAL_PORT} for Temporal is already in use by pid ${process.pid} \\(\\S*node [^\\n]+\\); stop it, or choose another port with TEMPORAL_PORT\\n$`),
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

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
