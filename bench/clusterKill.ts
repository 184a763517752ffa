import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { DEMO_WORKSPACE_ID } from '../src/demo/seedDemoWorkspace';
import { pingMongoServer } from '../src/local/liveness';
import { waitFor } from '../src/local/net';
import { portHolder } from '../src/local/portHolder';
import { fromRoot } from '../src/local/paths';
import { temporalServiceHealth, type TemporalClusterPorts } from '../src/local/cluster/temporalServer';

/**
 * `npm run cluster:kill` (docs/deploy.md, "The kill test"), against a running
 * `npm run start:cluster`: places CLUSTER_KILL_CALLS (10, the demo workspace's cap) live calls through the one address,
 * then SIGKILLs one of each of the launcher's children in turn — an API, a worker, a media
 * process, Temporal's history service, FerretDB — each once the one before has recovered. It
 * prints each one's time to recover (from the kill until a new process answers its check) and
 * the requests the balancer failed meanwhile, then checks that every call settled exactly once.
 * Not part of `npm test`: it needs the cluster (and its Go build).
 */

interface ClusterFile {
  api_url: string;
  mongodb_url: string;
  temporal_ports: TemporalClusterPorts;
  api: { port: number }[];
  media: { port: number }[];
  worker_metrics: { port: number }[];
  launcher_pid: number;
}

const dataDir = join(fromRoot(process.env.DATA_DIR ?? '.data'), 'cluster');
const cluster = JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as ClusterFile;
const apiKey = readFileSync(join(dataDir, 'demo-api-key'), 'utf8').trim();
const consoleToken = process.env.CONSOLE_TOKEN ?? readFileSync(join(dataDir, 'console-token'), 'utf8').trim();
// The demo workspace's cap on live calls (LIMITS): the 20 need a second workspace, not made here.
const CALLS = Number(process.env.CLUSTER_KILL_CALLS ?? 10);
// src/calls/types.ts: a call ends completed (with its outcome) or failed.
const TERMINAL = new Set(['completed', 'failed']);

/** The launcher's children whose command line matches, as `pid args` lines of `ps`. */
function children(match: RegExp): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(cluster.launcher_pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => match.test(line))
    .map((line) => Number(line.split(/\s+/)[0]));
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.body?.cancel();
  return res.ok;
}

const api = (path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) =>
  fetch(`${cluster.api_url}${path}`, { ...init, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...init.headers }, signal: AbortSignal.timeout(30_000) });

interface Victim {
  role: string;
  /** The process to kill now, and whether a new one has taken its place and answers. */
  pid: () => number | undefined;
  recovered: (killed: number) => Promise<boolean>;
}

/** The one of our processes listening on `port` (restarted on the same port): killed, then back when another pid answers `url`. */
function onPort(role: string, port: number, url: string): Victim {
  return {
    role,
    pid: () => portHolder(port)?.pid,
    recovered: async (killed) => {
      const now = portHolder(port)?.pid;
      return now !== undefined && now !== killed && (await httpOk(url));
    },
  };
}

/** A server under the launcher, found by its command line. */
function byCommand(role: string, match: RegExp, answers: () => Promise<boolean>): Victim {
  return {
    role,
    pid: () => children(match)[0],
    recovered: async (killed) => {
      const now = children(match);
      return now.length > 0 && !now.includes(killed) && (await answers());
    },
  };
}

const victims: Victim[] = [
  onPort('api', cluster.api[0]!.port, `http://127.0.0.1:${cluster.api[0]!.port}/healthz`),
  onPort('worker', cluster.worker_metrics[0]!.port, `http://127.0.0.1:${cluster.worker_metrics[0]!.port}/healthz`),
  onPort('media', cluster.media[0]!.port, `http://127.0.0.1:${cluster.media[0]!.port}/healthz`),
  byCommand('temporal history', /temporal-server .*--service history/, async () => {
    const probe = temporalServiceHealth(cluster.temporal_ports, 'history');
    try {
      await probe.check(2_000);
      return true;
    } finally {
      await probe.close();
    }
  }),
  byCommand('ferretdb', /ferretdb --handler=postgresql/, async () => (await pingMongoServer(cluster.mongodb_url, 2_000), true)),
];

async function main(): Promise<void> {
  const began = Date.now();
  // Calls long enough to be live through every kill: about 60 s of talk each.
  const numbers = Array.from({ length: CALLS }, (_, i) => `+9198111${String(Math.floor(Math.random() * 90_000) + i).padStart(5, '0')}`);
  for (const to of numbers) {
    const res = await fetch(`${cluster.api_url}/console/v1/workspaces/${DEMO_WORKSPACE_ID}/simulator/calls/${encodeURIComponent(to)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${consoleToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ring_seconds: 1, seconds_per_turn: 6 }),
    });
    if (res.status !== 200) throw new Error(`scripting ${to}: ${res.status} ${await res.text()}`);
  }
  const run = `kill${Date.now()}`;
  const callIds: string[] = [];
  for (const [i, to] of numbers.entries()) {
    const res = await api('/api/v1/calls', { method: 'POST', headers: { 'idempotency-key': `${run}-${i}` }, body: JSON.stringify({ to, purpose: 'cluster kill test' }) });
    const body = (await res.json()) as { call_id?: string };
    if (res.status !== 201 || !body.call_id) throw new Error(`placing ${to}: ${res.status} ${JSON.stringify(body)}`);
    callIds.push(body.call_id);
  }
  process.stdout.write(`[kill] ${CALLS} calls placed through ${cluster.api_url}\n`);

  // Through the balancer all along: what a client saw while each one was down.
  let probes = 0;
  let failures = 0;
  const failed: Record<string, number> = {};
  let probing = true;
  const prober = (async () => {
    while (probing) {
      probes += 1;
      try {
        const res = await api(`/api/v1/calls/${callIds[probes % callIds.length]}`);
        await res.body?.cancel();
        if (!res.ok) {
          failures += 1;
          failed[res.status] = (failed[res.status] ?? 0) + 1;
        }
      } catch {
        failures += 1;
        failed.network = (failed.network ?? 0) + 1;
      }
      // With the settle poll below, under the key's 120 requests a minute.
      await new Promise((r) => setTimeout(r, 1_500));
    }
  })();

  const recoveries: { role: string; seconds: number; failedRequests: number }[] = [];
  for (const victim of victims) {
    const pid = victim.pid();
    if (!pid) throw new Error(`no ${victim.role} process under the launcher (pid ${cluster.launcher_pid})`);
    const failuresBefore = failures;
    const killedAt = Date.now();
    process.kill(pid, 'SIGKILL');
    await waitFor(`${victim.role} back`, () => victim.recovered(pid), 180_000, 250);
    const seconds = (Date.now() - killedAt) / 1000;
    recoveries.push({ role: victim.role, seconds, failedRequests: failures - failuresBefore });
    process.stdout.write(`[kill] ${victim.role} (pid ${pid}) SIGKILLed: recovered in ${seconds.toFixed(1)} s; ${failures - failuresBefore} requests through the balancer failed meanwhile\n`);
  }

  // Every call settles, each once.
  const settled = (await waitFor(
    'every call settled',
    async () => {
      const states = await Promise.all(callIds.map(async (id) => ((await (await api(`/api/v1/calls/${id}`)).json()) as { status: string }).status));
      return states.every((s) => TERMINAL.has(s)) ? states : null;
    },
    600_000,
    10_000,
  ))!;
  probing = false;
  await prober;
  const mongo = await new MongoClient(cluster.mongodb_url).connect();
  try {
    const records = await mongo.db(process.env.MONGODB_DB ?? 'orchestrator').collection('calls').countDocuments({ _id: { $in: callIds as never[] } });
    const byStatus: Record<string, number> = {};
    for (const s of settled) byStatus[s] = (byStatus[s] ?? 0) + 1;
    const distinct = new Set(callIds).size;
    process.stdout.write(
      `[kill] ${CALLS} calls: ${distinct} distinct ids, ${records} records, settled ${JSON.stringify(byStatus)}; ` +
        `${failures} of ${probes} requests through the balancer failed over the whole run (${JSON.stringify(failed)}); ${((Date.now() - began) / 1000).toFixed(0)} s\n`,
    );
    const ok = distinct === CALLS && records === CALLS && settled.length === CALLS;
    process.stdout.write(`${ok ? 1 : 0} passed, ${ok ? 0 : 1} failed\n`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    await mongo.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[kill] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
