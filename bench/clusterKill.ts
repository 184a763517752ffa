import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { contactCollections, type ContactDoc } from '../src/contacts/contacts';
import { collections } from '../src/db/collections';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { pingMongoServer } from '../src/local/liveness';
import { outboundMessagesCollection } from '../src/messaging/outboundMessages';
import { sendResolutionsCollection } from '../src/messaging/unknownOutcomes';
import { freePort, waitFor } from '../src/local/net';
import { portHolder } from '../src/local/portHolder';
import { fromRoot } from '../src/local/paths';
import { temporalServiceHealth, type TemporalClusterPorts } from '../src/local/cluster/temporalServer';
import { simulatorScriptSchema, simulatorScriptsCollection, scriptId } from '../src/providers/whatsapp/simulatorScripts';
import { broadcastRequest, insertDrafted } from '../test/support/campaignDrafts';
import { startFakeRealtime, type ModelScript } from '../test/support/fakeRealtime';
import { FakeTwilio } from '../test/support/fakeTwilio';
import type { MediaStreamClient } from '../test/support/mediaStreamClient';
import { speechMulaw } from '../test/support/speechAudio';
import { callBillingChecks, campaignChecks, campaignCountersSettled, planOf, type Check } from './clusterKillLedger';

/**
 * `npm run cluster:kill` (docs/deploy.md, "The kill test"): starts the cluster
 * (src/main/startCluster.ts, DATA_DIR .data/cluster-kill, a free PORT) with VOICE_PROVIDER=twilio
 * against a fake Twilio and a fake realtime model in this process, so every call's audio goes
 * through the balancer to the media processes. Then, during a CLUSTER_KILL_PEOPLE (2,000)-person
 * WhatsApp campaign and CLUSTER_KILL_CALLS (20) live media-carried calls (in two workspaces of
 * their own: the contract caps a workspace at ten live calls), it SIGKILLs in turn an API, a
 * worker and a media process, Temporal's history service and FerretDB, each once the one before
 * has recovered, and prints each one's time to recover (from the kill until a new process answers
 * its check) and the requests through the balancer that failed meanwhile. Once the work is over
 * it checks that nothing was lost or duplicated (every person sent once, every number called
 * once, counters exact), that billing is exact (billable conversations, call minutes), and that
 * every call settled. Last line `N passed, N failed`. Not part of `npm test`: it needs the
 * cluster's tools (scripts/setup-cluster-tools.sh) and about ten minutes.
 */

const CALLS = Number(process.env.CLUSTER_KILL_CALLS ?? 20);
const PEOPLE = Number(process.env.CLUSTER_KILL_PEOPLE ?? 2_000);
/** The contract's live calls per workspace (api-core §8): the calls are spread over workspaces of this many. */
const CALLS_PER_WORKSPACE = 10;
/** Each call's exchanges before the agent says goodbye: long enough (about three minutes, under the demo agent's five) to be live through every kill. */
const EXCHANGES = Number(process.env.CLUSTER_KILL_EXCHANGES ?? 30);
const THROTTLE = 600;
// src/calls/types.ts: a call ends completed (with its outcome) or failed.
const TERMINAL = new Set(['completed', 'failed']);
const MEDIA_STREAM_URL = 'wss://media.example.test/media-stream';
const REALTIME_KEY = 'sk-cluster-kill-realtime';
const OPENING = 'Hello, this is the assistant from Acme about your delivery. Is this a good time?';
const ANSWER = 'Yes, go ahead, I am listening.';
const NOTED = 'Thank you, I have noted that. One more thing about the delivery.';
const GOODBYE = 'Thank you, your delivery is confirmed. Goodbye.';

const say = (line: string) => process.stdout.write(`[kill] ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const run = `k${Date.now().toString(36)}`;
const dataDir = join(fromRoot(process.env.CLUSTER_KILL_DATA_DIR ?? '.data/cluster-kill'), 'cluster');

interface ClusterFile {
  api_url: string;
  mongodb_url: string;
  temporal_ports: TemporalClusterPorts;
  api: { port: number }[];
  media: { port: number }[];
  worker_metrics: { port: number }[];
  launcher_pid: number;
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.body?.cancel();
  return res.ok;
}

/** An Etc/GMT zone whose local hour now is 10:00 to 12:59, so the campaign's send window is open all run. */
function zoneOpenNow(): string {
  const hour = new Date().getUTCHours();
  const offset = [...Array(27).keys()].map((i) => i - 12).find((n) => {
    const h = (hour + n + 24) % 24;
    return h >= 10 && h <= 12;
  })!;
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** The cluster launcher as `npm run start:cluster` runs it, with this run's fakes in its environment; ready once it writes cluster.json. */
async function startCluster(env: NodeJS.ProcessEnv): Promise<{ launcher: ChildProcess; cluster: ClusterFile; log: string }> {
  mkdirSync(dataDir, { recursive: true });
  const clusterFile = join(dataDir, 'cluster.json');
  rmSync(clusterFile, { force: true });
  const log = join(dataDir, 'launcher.log');
  const out = openSync(log, 'a');
  const launcher = spawn(process.execPath, [fromRoot('dist/src/main/startCluster.js')], { env, stdio: ['ignore', out, out] });
  let exited: number | null = null;
  launcher.once('exit', (code) => (exited = code ?? -1));
  await waitFor(
    'the cluster',
    async () => {
      if (exited !== null) throw new Error(`the launcher exited (${exited}): see ${log}`);
      return existsSync(clusterFile);
    },
    900_000,
    1_000,
  ).catch((err: unknown) => {
    launcher.kill('SIGINT');
    if (exited !== null) throw new Error(`the cluster launcher exited (${exited}) before it was ready; its log:\n${readFileSync(log, 'utf8').split('\n').slice(-30).join('\n')}`);
    throw err;
  });
  return { launcher, cluster: JSON.parse(readFileSync(clusterFile, 'utf8')) as ClusterFile, log };
}

interface Victim {
  role: string;
  /** The process to kill now, and whether a new one has taken its place and answers. */
  pid: () => number | undefined;
  recovered: (killed: number) => Promise<boolean>;
}

function victimsOf(cluster: ClusterFile): Victim[] {
  /** The launcher's children whose command line matches. */
  const children = (match: RegExp): number[] =>
    execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(cluster.launcher_pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => match.test(line))
      .map((line) => Number(line.split(/\s+/)[0]));
  /** One of our processes listening on `port` (restarted on the same port): back when another pid answers `url`. */
  const onPort = (role: string, port: number, url: string): Victim => ({
    role,
    pid: () => portHolder(port)?.pid,
    recovered: async (killed) => {
      const now = portHolder(port)?.pid;
      return now !== undefined && now !== killed && (await httpOk(url));
    },
  });
  /** A server under the launcher, found by its command line. */
  const byCommand = (role: string, match: RegExp, answers: () => Promise<boolean>): Victim => ({
    role,
    pid: () => children(match)[0],
    recovered: async (killed) => {
      const now = children(match);
      return now.length > 0 && !now.includes(killed) && (await answers());
    },
  });
  return [
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
}

/** The campaign's workspace: PEOPLE contacts, each answered by the WhatsApp simulator at once, and a draft to launch. */
async function draftPeopleCampaign(db: Db, tenantId: string): Promise<{ campaignId: string; phones: string[] }> {
  const at = new Date();
  const phones: string[] = [];
  const ids: string[] = [];
  const answerAtOnce = simulatorScriptSchema.parse({ delays_ms: { sent: 0, delivered: 0, read: 0, failed: 0 } });
  for (let start = 0; start < PEOPLE; start += 500) {
    const docs: ContactDoc[] = Array.from({ length: Math.min(500, PEOPLE - start) }, (_, k) => {
      const i = start + k;
      return { _id: `cnt_${run}${String(i).padStart(14, '0')}`, tenant_id: tenantId, name: `Person ${i}`, email: null, phone: `+91970${String(i).padStart(7, '0')}`, external_id: null, tags: [], created_at: at, updated_at: at };
    });
    await contactCollections(db).contacts.insertMany(docs);
    await simulatorScriptsCollection(db).insertMany(docs.map((d) => ({ _id: scriptId(tenantId, d.phone!), tenant_id: tenantId, recipient: d.phone!, ...answerAtOnce, updated_at: at })));
    for (const d of docs) {
      ids.push(d._id);
      phones.push(d.phone!);
    }
  }
  const workspace = (await collections(db).workspaces.findOne({ _id: tenantId }))!;
  const request = broadcastRequest({
    name: `Kill test ${run}`,
    audience: { kind: 'contact_ids', contact_ids: ids, tags: [] },
    schedule: { throttle_per_minute: THROTTLE, timezone: zoneOpenNow() },
  });
  const campaign = await insertDrafted(db, request, { workspace, createdBy: { kind: 'console', id: 'cluster-kill' }, now: at });
  return { campaignId: campaign._id, phones };
}

async function main(): Promise<void> {
  const began = Date.now();
  const checks: Check[] = [];

  // The far ends: Twilio's network (the person on each call) and the voice model.
  const twilio = new FakeTwilio();
  const twilioOrigin = await twilio.start();
  const audio = Object.fromEntries([OPENING, ANSWER, NOTED, GOODBYE].map((text) => [text, speechMulaw(text)]));
  const spoken = (text: string) => ({ audio: audio[text]!, transcript: text });
  const script: ModelScript = {
    turns: [{ say: spoken(OPENING) }, ...Array.from({ length: EXCHANGES }, () => ({ say: spoken(NOTED) })), { say: spoken(GOODBYE), call: 'end_call' as const }],
    heard: Array.from({ length: EXCHANGES + 1 }, () => ANSWER),
  };
  const model = await startFakeRealtime({ apiKey: REALTIME_KEY, scriptFor: () => script });
  const port = await freePort();
  twilio.localOrigin = `http://127.0.0.1:${port}`;
  twilio.media = {
    localUrl: `ws://127.0.0.1:${port}/media-stream`,
    // The person answers each of the agent's turns until it says goodbye; a dropped stream ends it.
    person: async (stream: MediaStreamClient) => {
      for (let i = 0; i <= EXCHANGES && stream.open; i += 1) {
        await stream.agentFinished(600, 60_000);
        await stream.say(audio[ANSWER]!);
      }
    },
  };

  say(`starting the cluster (${dataDir}, port ${port}) with VOICE_PROVIDER=twilio against the fake Twilio and realtime model`);
  const { launcher, cluster, log } = await startCluster({
    ...process.env,
    DATA_DIR: join(dataDir, '..'),
    PORT: String(port),
    VOICE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_PUBLIC_URL: twilio.publicOrigin,
    TWILIO_MEDIA_STREAM_URL: MEDIA_STREAM_URL,
    TWILIO_API_BASE_URL: twilioOrigin,
    REALTIME_URL: model.url,
    REALTIME_MODEL: 'fake-realtime',
    REALTIME_API_KEY: REALTIME_KEY,
  });
  say(`cluster ready in ${((Date.now() - began) / 1000).toFixed(0)} s (launcher pid ${launcher.pid}, log ${log})`);
  const consoleToken = readFileSync(join(dataDir, 'console-token'), 'utf8').trim();
  const mongo = await new MongoClient(cluster.mongodb_url).connect();
  try {
    const db = mongo.db(process.env.MONGODB_DB ?? 'orchestrator');

    // Workspaces of this run: the calls' (ten live calls each), the campaign's.
    const callSpaces = await Promise.all(
      Array.from({ length: Math.ceil(CALLS / CALLS_PER_WORKSPACE) }, async (_, w) => {
        const tenantId = `ws_${run}_calls${w}`;
        const seeded = await seedDemoWorkspace(db, { workspaceId: tenantId, name: `Kill test calls ${w}`, environment: 'test' });
        return { tenantId, key: seeded.apiKey, callIds: [] as string[], numbers: [] as string[], planBefore: await planOf(db, tenantId) };
      }),
    );
    const campaignTenant = `ws_${run}_campaign`;
    await seedDemoWorkspace(db, { workspaceId: campaignTenant, name: 'Kill test campaign', environment: 'test' });
    const { campaignId, phones } = await draftPeopleCampaign(db, campaignTenant);
    const campaignPlanBefore = await planOf(db, campaignTenant);

    const api = (key: string, path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) =>
      fetch(`${cluster.api_url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers }, signal: AbortSignal.timeout(30_000) });
    const consoleApi = (tenantId: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
      fetch(`${cluster.api_url}/console/v1/workspaces/${tenantId}${path}`, {
        method,
        headers: { authorization: `Bearer ${consoleToken}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });

    // The calls, through the one address; each person picks up and stays until the agent ends the call.
    for (let i = 0; i < CALLS; i += 1) {
      const space = callSpaces[Math.floor(i / CALLS_PER_WORKSPACE)]!;
      const to = `+9198112${String(i).padStart(5, '0')}`;
      twilio.script(to, { kind: 'answer', ringMs: 200, talkMs: null });
      const res = await api(space.key, '/api/v1/calls', { method: 'POST', headers: { 'idempotency-key': `${run}-${i}` }, body: JSON.stringify({ to, purpose: 'cluster kill test' }) });
      const body = (await res.json()) as { call_id?: string };
      if (res.status !== 201 || !body.call_id) throw new Error(`placing ${to}: ${res.status} ${JSON.stringify(body)}`);
      space.callIds.push(body.call_id);
      space.numbers.push(to);
    }
    const allCalls = callSpaces.flatMap((s) => s.callIds);
    const allNumbers = callSpaces.flatMap((s) => s.numbers);
    await waitFor('every call on a media stream', async () => allNumbers.every((to) => twilio.callsTo(to)[0]?.stream?.open), 120_000, 500);
    say(`${CALLS} calls placed through ${cluster.api_url} in ${callSpaces.length} workspaces, each answered and on a media stream through the balancer`);

    const launched = await consoleApi(campaignTenant, 'POST', `/campaigns/${campaignId}/launch`, { expected_version: 1 });
    if (launched.status !== 200) throw new Error(`launching the campaign: ${launched.status} ${await launched.text()}`);
    const sentSoFar = () => outboundMessagesCollection(db).countDocuments({ tenant_id: campaignTenant });
    await waitFor('the campaign sending', async () => (await sentSoFar()) >= 50, 120_000, 1_000);
    say(`campaign of ${PEOPLE} people launched at ${THROTTLE}/min; ${await sentSoFar()} sent when the kills begin`);

    // Through the balancer all along: what a client saw while each one was down.
    let probes = 0;
    let failures = 0;
    const failed: Record<string, number> = {};
    let probing = true;
    const prober = (async () => {
      while (probing) {
        probes += 1;
        const space = callSpaces[probes % callSpaces.length]!;
        try {
          const res = await api(space.key, `/api/v1/calls/${space.callIds[probes % space.callIds.length]}`);
          await res.body?.cancel();
          if (!res.ok) {
            failures += 1;
            failed[res.status] = (failed[res.status] ?? 0) + 1;
          }
        } catch {
          failures += 1;
          failed.network = (failed.network ?? 0) + 1;
        }
        // Under each key's 120 requests a minute.
        await sleep(1_000);
      }
    })();

    for (const victim of victimsOf(cluster)) {
      const pid = victim.pid();
      if (!pid) throw new Error(`no ${victim.role} process under the launcher (pid ${cluster.launcher_pid})`);
      const failuresBefore = failures;
      const liveCalls = allNumbers.filter((to) => twilio.callsTo(to)[0]?.stream?.open).length;
      const sent = await sentSoFar().catch(() => NaN);
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');
      await waitFor(`${victim.role} back`, () => victim.recovered(pid), 180_000, 250);
      const seconds = (Date.now() - killedAt) / 1000;
      // The campaign's own recovery: its next send after the process is back (a killed worker's
      // batch waits out its activity's timeout), so the next kill also lands on a sending campaign.
      const sentAtRecovery = await waitFor('a count of the sends', () => sentSoFar().then((n) => n + 1), 60_000, 500).then((n) => n - 1);
      const sendsAgain = sentAtRecovery >= PEOPLE ? null : await waitFor(`the campaign sending after the ${victim.role} kill`, async () => (await sentSoFar()) > sentAtRecovery, 300_000, 500);
      say(
        `${victim.role} (pid ${pid}) SIGKILLed with ${liveCalls} calls on a media stream and ${sent} of ${PEOPLE} people sent: ` +
          `recovered in ${seconds.toFixed(1)} s; ${failures - failuresBefore} requests through the balancer failed meanwhile; ` +
          `${sendsAgain === null ? 'the campaign had finished' : `the campaign sent again ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill`}`,
      );
    }

    // Every call settles; the campaign runs to its end and its counters catch up.
    const settled = await waitFor(
      'every call settled',
      async () => {
        const docs = await db.collection<{ _id: string; status: string; outcome: string | null }>('calls').find({ _id: { $in: allCalls } }, { projection: { status: 1, outcome: 1 } }).toArray();
        return docs.length === CALLS && docs.every((d) => TERMINAL.has(d.status)) ? docs : null;
      },
      600_000,
      5_000,
    );
    await waitFor(
      'the campaign completed',
      async () => ((await (await consoleApi(campaignTenant, 'GET', `/campaigns/${campaignId}`)).json()) as { status: string }).status === 'completed',
      900_000,
      5_000,
    );
    // The first late recount (a minute after the end, by a pass every 30 s) brings in the last statuses.
    await waitFor('the campaign counters recounted', () => campaignCountersSettled(db, campaignTenant, campaignId), 180_000, 2_000).catch(() => false);
    probing = false;
    await prober;

    // What a client reads: every call, once, settled, through the API.
    const read = await Promise.all(
      callSpaces.flatMap((s) => s.callIds.map(async (id) => ({ id, res: await api(s.key, `/api/v1/calls/${id}`) }))),
    );
    const readStatuses = await Promise.all(read.map(async ({ res }) => (res.status === 200 ? ((await res.json()) as { status: string }).status : `http ${res.status}`)));
    const outcomes: Record<string, number> = {};
    for (const d of settled ?? []) outcomes[`${d.status}/${d.outcome}`] = (outcomes[`${d.status}/${d.outcome}`] ?? 0) + 1;
    checks.push({
      ok: new Set(allCalls).size === CALLS && readStatuses.every((s) => TERMINAL.has(s)),
      line: `${new Set(allCalls).size === CALLS && readStatuses.every((s) => TERMINAL.has(s)) ? 'ok' : 'FAILED'} every call settled: ${new Set(allCalls).size} distinct ids of ${CALLS}, read through the API as ${JSON.stringify(readStatuses.reduce<Record<string, number>>((a, s) => ({ ...a, [s]: (a[s] ?? 0) + 1 }), {}))}; outcomes ${JSON.stringify(outcomes)}`,
    });
    const dialled = allNumbers.map((to) => twilio.callsTo(to));
    const mediaCarried = dialled.filter((calls) => calls[0]?.stream !== undefined).length;
    const onceEach = dialled.every((calls) => calls.length === 1);
    const ended = dialled.every((calls) => calls.every((c) => ['completed', 'busy', 'failed', 'no-answer', 'canceled'].includes(c.status)));
    checks.push({
      ok: onceEach && ended && mediaCarried === CALLS,
      line: `${onceEach && ended && mediaCarried === CALLS ? 'ok' : 'FAILED'} every number dialled once and hung up at the carrier: ${dialled.reduce((s, c) => s + c.length, 0)} carrier calls for ${CALLS} numbers, ${mediaCarried} carried on a media stream, all ended: ${ended}`,
    });
    checks.push(...(await campaignChecks(db, { tenantId: campaignTenant, campaignId, phones, planBefore: campaignPlanBefore })));
    // Sends whose answer a kill lost, found again from the provider's statuses (src/messaging/unknownOutcomes.ts).
    const resolved = await sendResolutionsCollection(db).countDocuments({ tenant_id: campaignTenant });
    say(`${resolved} campaign send${resolved === 1 ? '' : 's'} of unknown outcome resolved from the provider's statuses`);
    checks.push(...(await callBillingChecks(db, callSpaces)));
    for (const c of checks) say(c.line);
    say(`${failures} of ${probes} requests through the balancer failed over the whole run (${JSON.stringify(failed)}); ${((Date.now() - began) / 1000).toFixed(0)} s in all`);
  } finally {
    say('stopping the cluster');
    launcher.kill('SIGINT');
    const exited = new Promise((r) => launcher.once('exit', r));
    if (launcher.exitCode === null && launcher.signalCode === null && !(await within(exited, 90_000))) launcher.kill('SIGKILL');
    // The fakes' last streams and sockets may hang on a peer that died: bounded, then the process exits.
    await within(Promise.allSettled([mongo.close(), twilio.stop(), model.close()]), 15_000);
  }
  const passed = checks.filter((c) => c.ok).length;
  process.stdout.write(`${passed} passed, ${checks.length - passed} failed\n`);
  process.exit(passed === checks.length ? 0 : 1);
}

/** Whether `work` settled within `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([work.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]);
  clearTimeout(timer);
  return done;
}

main().catch((err: unknown) => {
  process.stderr.write(`[kill] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
