import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { readRecipientBatch } from '../src/campaigns/staging';
import { contactCollections, type ContactDoc } from '../src/contacts/contacts';
import { collections } from '../src/db/collections';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { fromRoot } from '../src/local/paths';
import { outboundMessagesCollection } from '../src/messaging/outboundMessages';
import { simulatorScriptsCollection, scriptId, simulatorScriptSchema } from '../src/providers/whatsapp/simulatorScripts';
import { broadcastRequest, insertDrafted } from '../test/support/campaignDrafts';
import { loadAverage, sleep } from './benchStats';
import { formatProfile, summariseProfiles } from './cpuProfileSummary';
import { BENCH_CONSOLE_TOKEN, startEmbeddedSystem } from './embeddedSystem';
import { attachCluster, benchTarget, clusterCpuMeter, clusterPeakMemoryMb, refuseSettingsOnCluster } from './clusterTarget';
import { readClusterState } from '../src/local/cluster/clusterState';
import { clusterStateFile } from './clusterTarget';
import { formatOpTally } from './opTallyReport';
import { cpuMeter, formatPerUnit, perUnit, writeBenchFigures, type CpuUse } from './processCpu';
import { CAMPAIGN_TARGETS, TEMPORAL_MINIMUM } from './targets';
import { actionsIn, formatUnitCost } from './workflowCost';

/**
 * `npm run bench:campaigns`: WhatsApp campaigns on the embedded defaults (FerretDB on SQLite,
 * the Temporal dev server, one API and one worker process, the WhatsApp simulator), loopback
 * only. Two phases:
 *
 * 1. BENCH_CAMPAIGNS (10) campaigns of BENCH_RECIPIENTS (2,000) at 600 a minute, launched
 *    together through the console; the simulator answers every send at once and reports
 *    `sent`, `delivered` and `read` with no pause. Aggregate sends per second against the
 *    throttle cap (10 × 600/min = 100/s; target ≥ 95 % of it at ≤ 5 ms CPU per send, bench/targets.ts), from the first to the last message's
 *    own record time; history events per run; CPU per send per process.
 * 2. One BENCH_LARGE (50,000) recipient campaign: evaluate and launch times through the
 *    console (target < 10 s each), BENCH_PAUSE_AFTER_SECONDS (20) of sending, then a pause and
 *    the time from the pause request to the last send; the worker's and API's peak memory.
 *
 * Phase 1 is bounded by BENCH_TIMEOUT_SECONDS (600): campaigns not completed by then are
 * paused together (the time from that pause to their last send is reported too) and the
 * rate is what was sent. BENCH_CPU_PROF=1 profiles the API and the worker (--cpu-prof) and
 * summarises phase 1's window. Contacts, drafts and simulator scripts are written straight
 * to the database (their routes are measured elsewhere). Figures go to .bench/campaigns-<time>.json.
 *
 * BENCH_TARGET=cluster (bench/clusterTarget.ts): the same phases against a running
 * `npm run start:cluster`, through its balancer, in a workspace of this run's own; CPU per send
 * per role of every cluster process (API ×2 summed, worker ×2, media, FerretDB, PostgreSQL,
 * Temporal's four services); peak memory of the largest API and worker process (since each
 * started). BENCH_CPU_PROF and BENCH_OP_TALLY need the API and worker started by the bench and
 * are refused there.
 */

const campaignCount = Number(process.env.BENCH_CAMPAIGNS ?? 10);
const recipientsEach = Number(process.env.BENCH_RECIPIENTS ?? 2_000);
const largeRecipients = Number(process.env.BENCH_LARGE ?? 50_000);
const pauseAfterSeconds = Number(process.env.BENCH_PAUSE_AFTER_SECONDS ?? 20);
/** Phase 1 stops here if not every campaign completed: the rest are paused and the rate is what was sent. */
const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 600) * 1000;
const cpuProfile = process.env.BENCH_CPU_PROF === '1';
const opTally = process.env.BENCH_OP_TALLY === '1';
const THROTTLE = 600;
const onCluster = benchTarget() === 'cluster';
/** On a cluster, a workspace of this run's own: a second run must not meet the first's contacts. */
const TENANT = onCluster ? `ws_bench_campaigns_${Date.now().toString(36)}` : 'ws_bench_campaigns';

const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** An Etc/GMT zone whose local hour now is 10:00 to 12:59, so a run of several minutes stays inside 09:00 to 21:00. */
function zoneOpenNow(): string {
  const hour = new Date().getUTCHours();
  const offset = [...Array(27).keys()].map((i) => i - 12).find((n) => { const h = (hour + n + 24) % 24; return h >= 10 && h <= 12; })!;
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** Peak resident memory of a process (VmHWM), in MB. */
function peakMemoryMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
}

/** Embedded: none; on a cluster 8 hex characters of this run's workspace, so its contact ids are its own. */
const contactIdStem = onCluster ? createHash('sha256').update(TENANT).digest('hex').slice(0, 8) : '';

/** `count` contacts with mobile numbers `+919<code><index>`; `code` two digits, one per audience. */
async function insertContacts(db: Db, code: string, count: number): Promise<{ ids: string[]; phones: string[] }> {
  const at = new Date();
  const ids: string[] = [];
  const phones: string[] = [];
  for (let start = 0; start < count; start += 1_000) {
    const docs: ContactDoc[] = Array.from({ length: Math.min(1_000, count - start) }, (_, k) => {
      const i = start + k;
      return {
        _id: `cnt_${code}${contactIdStem}${String(i).padStart(22 - contactIdStem.length, '0')}`,
        tenant_id: TENANT,
        name: `Person ${i}`,
        email: null,
        phone: `+919${code}${String(i).padStart(7, '0')}`,
        external_id: null,
        tags: [],
        created_at: at,
        updated_at: at,
      };
    });
    await contactCollections(db).contacts.insertMany(docs);
    for (const d of docs) {
      ids.push(d._id);
      phones.push(d.phone!);
    }
  }
  return { ids, phones };
}

/** The simulator answers at once: every status with no pause (one script per recipient). */
async function scriptAtOnce(db: Db, phones: string[]): Promise<void> {
  const script = simulatorScriptSchema.parse({ delays_ms: { sent: 0, delivered: 0, read: 0, failed: 0 } });
  const at = new Date();
  for (let start = 0; start < phones.length; start += 1_000) {
    await simulatorScriptsCollection(db).insertMany(
      phones.slice(start, start + 1_000).map((phone) => ({ _id: scriptId(TENANT, phone), tenant_id: TENANT, recipient: phone, ...script, updated_at: at })),
    );
  }
}

async function draft(db: Db, name: string, contactIds: string[], timezone: string): Promise<string> {
  const workspace = (await collections(db).workspaces.findOne({ _id: TENANT }))!;
  const request = broadcastRequest({
    name,
    audience: { kind: 'contact_ids', contact_ids: contactIds, tags: [] },
    schedule: { throttle_per_minute: THROTTLE, timezone },
  });
  return (await insertDrafted(db, request, { workspace, createdBy: { kind: 'console', id: 'bench' }, now: new Date() }))._id;
}

/** When each of the first `count` recipients' messages was recorded (ms), read by `_id`. */
async function sendTimes(db: Db, campaignId: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let from = 0; from < count; from += 100) {
    const recipients = await readRecipientBatch(db, campaignId, from, Math.min(100, count - from));
    const messages = await Promise.all(
      recipients.filter((r) => r.message_id).map((r) => outboundMessagesCollection(db).findOne({ _id: r.message_id! }, { projection: { created_at: 1 } })),
    );
    for (const m of messages) if (m) times.push(m.created_at.getTime());
  }
  return times;
}

/** History events of a workflow, every run back to the first. */
async function historyEvents(client: Client, workflowId: string): Promise<{ runs: number; events: number; actions: number; perRun: number[] }> {
  const perRun: number[] = [];
  let actions = 0;
  let runId: string | undefined;
  do {
    const history = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    perRun.unshift(history.length);
    actions += actionsIn(history);
    runId = history[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId);
  return { runs: perRun.length, events: perRun.reduce((a, b) => a + b, 0), actions, perRun };
}

/** What the bench measures, started by it (embedded) or found running (BENCH_TARGET=cluster). */
interface CampaignSystem {
  db: Db;
  base: string;
  consoleToken: string;
  client: Client;
  /** The report's first line: what runs where. */
  describe: string;
  /** Starts measuring CPU per process (role); the function answers what was used since. */
  startCpu(): () => CpuUse;
  peakMemory(): Record<string, number | string>;
  /** Where to look when the API answers 500. */
  apiLog(): string;
  stop(): Promise<void>;
}

async function startEmbedded(tallyPrefix: string | null, profileDir: string): Promise<CampaignSystem> {
  const system = await startEmbeddedSystem({
    name: 'bench-campaigns',
    taskQueue: 'bench-campaigns',
    env: { NODE_ENV: 'development', ...(tallyPrefix ? { MONGODB_OP_TALLY: tallyPrefix } : {}) },
    cpuProfiles: cpuProfile ? { dir: profileDir, processes: ['worker', 'api'] } : null,
    temporalClient: true,
  });
  const api = system.api!;
  return {
    db: system.db,
    base: system.base!,
    consoleToken: BENCH_CONSOLE_TOKEN,
    client: system.temporalClient!,
    describe: 'embedded defaults: FerretDB (SQLite) + Temporal dev server + 1 API + 1 worker process',
    startCpu: () => {
      const meter = cpuMeter(system.pids, ['temporal', 'ferretdb']);
      const before = meter.mark();
      return () => meter.since(before);
    },
    peakMemory: () => ({ worker_peak_mb: peakMemoryMb(system.worker.child.pid!), api_peak_mb: peakMemoryMb(api.child.pid!) }),
    apiLog: () => `the API's log:\n${api.tail()}`,
    stop: () => system.stop(),
  };
}

async function attachToCluster(): Promise<CampaignSystem> {
  refuseSettingsOnCluster('bench:campaigns', {
    BENCH_CPU_PROF: '--cpu-prof profiles need the API and the worker started by the bench',
    BENCH_OP_TALLY: 'MONGODB_OP_TALLY must be set on the API and worker processes, which the cluster started without it',
  });
  const { providers } = readClusterState(clusterStateFile());
  if (providers.whatsapp !== 'simulator') throw new Error(`bench:campaigns with BENCH_TARGET=cluster needs the WhatsApp simulator; this cluster runs WHATSAPP_PROVIDER=${providers.whatsapp}`);
  const system = await attachCluster({ name: 'bench-campaigns' });
  return {
    db: system.db,
    base: system.base,
    consoleToken: system.consoleToken,
    client: system.temporalClient,
    describe: system.describe,
    startCpu: () => {
      const meter = clusterCpuMeter(system.stateFile);
      const before = meter.mark();
      return () => meter.since(before);
    },
    peakMemory: () => {
      const worker = clusterPeakMemoryMb(system.stateFile, 'worker');
      const api = clusterPeakMemoryMb(system.stateFile, 'api');
      return { worker_peak_mb: worker?.mb ?? NaN, worker_peak_process: worker?.process ?? '–', api_peak_mb: api?.mb ?? NaN, api_peak_process: api?.process ?? '–' };
    },
    apiLog: () => `the API processes' logs: ${system.logsDir}/api-*.log`,
    stop: () => system.stop(),
  };
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const profileDir = fromRoot(join('.bench', `campaigns-profiles-${Date.now()}`));
  // Database commands per send, counted by the API and the worker (src/observability/databaseOpTally.ts).
  const tallyPrefix = opTally && !onCluster ? join(mkdtempSync(join(tmpdir(), 'campaign-tally-')), 'ops') : null;
  const system = onCluster ? await attachToCluster() : await startEmbedded(tallyPrefix, profileDir);
  try {
    const { db, base, client, consoleToken } = system;
    await seedDemoWorkspace(db, { workspaceId: TENANT, name: 'Campaign bench', environment: 'test' });
    // Room for every message of both phases in the plan's included conversations.
    await collections(db).workspaces.updateOne({ _id: TENANT }, { $set: { 'plan.conversations_included': 1_000_000 } });

    const consoleCall = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
      const started = performance.now();
      const res = await fetch(`${base}/console/v1/workspaces/${TENANT}${path}`, {
        method,
        headers: { authorization: `Bearer ${consoleToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, any>;
      if (!res.ok) throw Object.assign(new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`), { status: res.status });
      return { body: json, ms: performance.now() - started };
    };
    /**
     * A launch as a client retries it: a 503 (the API's 2 s database budget ran out under
     * load) or a 500 (printed with the API's log) leaves the version claimed; asking again answers 409 until the claim's 120 s lease
     * lets a later request finish it, so the campaign is read until it has left `draft`. The
     * bench gives up after twice that lease: a campaign still in `draft` then is a fault to see,
     * not one to wait on.
     */
    const GIVE_UP_MS = 240_000;
    let launchRefusals = 0;
    const launch = async (id: string, body: Record<string, unknown>) => {
      const started = performance.now();
      for (;;) {
        try {
          const done = await consoleCall('POST', `/campaigns/${id}/launch`, body);
          return { body: done.body, ms: performance.now() - started };
        } catch (err) {
          const status = (err as { status?: number }).status;
          if (status !== 503 && status !== 409 && status !== 500) throw err;
          launchRefusals++;
          say(`  launch of ${id}: ${status}, asking again (${seconds(performance.now() - started)} s so far)`);
          if (status === 500) say(`  ${system.apiLog()}`);
          await sleep(5_000);
          const shown = await consoleCall('GET', `/campaigns/${id}`).catch(() => null);
          if (shown && shown.body.status !== 'draft') return { body: shown.body, ms: performance.now() - started };
          if (performance.now() - started > GIVE_UP_MS) throw new Error(`launch of ${id}: still a draft after ${seconds(performance.now() - started)} s of asking`);
        }
      }
    };

    /**
     * A pause as a client retries it: a 503 ("retry shortly") may or may not have applied, so
     * the campaign is read and the pause asked again, at its version, until it has left `running`.
     */
    const pause = async (id: string, version: number) => {
      const started = performance.now();
      let expected = version;
      for (;;) {
        try {
          return await consoleCall('POST', `/campaigns/${id}/pause`, { expected_version: expected });
        } catch (err) {
          const status = (err as { status?: number }).status;
          if (status !== 503 && status !== 409) throw err;
          say(`  pause of ${id}: ${status}, reading it and asking again`);
          await sleep(2_000);
          const now = await consoleCall('GET', `/campaigns/${id}`).catch(() => null);
          if (now && now.body.status !== 'running' && now.body.status !== 'scheduled') return now;
          if (now) expected = now.body.version;
          if (performance.now() - started > GIVE_UP_MS) throw new Error(`pause of ${id}: still running after ${seconds(performance.now() - started)} s of asking`);
        }
      }
    };

    // ---- Phase 1: campaigns launched together.
    const zone = zoneOpenNow();
    const campaigns: string[] = [];
    for (let c = 0; c < campaignCount; c++) {
      const { ids, phones } = await insertContacts(db, String(c).padStart(2, '0'), recipientsEach);
      await scriptAtOnce(db, phones);
      campaigns.push(await draft(db, `Bench ${c}`, ids, zone));
    }
    say(`${system.describe}; load average before ${loadBefore}`);
    say(`phase 1: ${campaignCount} campaigns × ${recipientsEach} recipients at ${THROTTLE}/min (cap ${(campaignCount * THROTTLE) / 60}/s), zone ${zone}, simulator answering at once`);

    const cpuSince = system.startCpu();
    const t0 = Date.now();
    const launches = await Promise.all(campaigns.map((id) => launch(id, { expected_version: 1 })));
    const launchMs = launches.map((l) => l.ms);
    say(`  launched in ${seconds(Math.max(...launchMs))} s (slowest of ${campaignCount}; each stages ${recipientsEach})`);

    let finished = 0;
    let shown: { body: Record<string, any> }[] = [];
    /** A progress read the API answered 503 ("retry shortly"): read again next round, as a client would. */
    let pollRefusals = 0;
    while (Date.now() - t0 < timeoutMs) {
      const read = await Promise.all(
        campaigns.map((id, i) =>
          consoleCall('GET', `/campaigns/${id}`).catch((err: { status?: number }) => {
            if (err.status !== 503) throw err;
            pollRefusals++;
            return shown[i] ?? { body: { campaign_id: id, status: 'unknown' } };
          }),
        ),
      );
      shown = read;
      finished = shown.filter((s) => s.body.status === 'completed').length;
      if (finished === campaignCount) break;
      await sleep(1_000);
    }
    const cpu = cpuSince();
    const complete = finished === campaignCount;
    // Out of time: pause the rest together and see how soon their sends stop.
    let pausedAt: number | null = null;
    if (!complete) {
      pausedAt = Date.now();
      await Promise.all(
        shown.filter((s) => s.body.status !== 'completed').map((s) => pause(s.body.campaign_id, s.body.version)),
      );
      await sleep(15_000);
    }
    const times = (await Promise.all(campaigns.map((id) => sendTimes(db, id, recipientsEach)))).flat().sort((a, b) => a - b);
    const pauseToLastSendMs = pausedAt === null ? null : Math.max(0, (times.at(-1) ?? pausedAt) - pausedAt);
    const sends = times.length;
    // The rate while every campaign was sending: up to the timeout's pause (or the last send).
    const inRun = pausedAt === null ? times : times.filter((t) => t <= pausedAt);
    const spanMs = inRun.length > 1 ? inRun.at(-1)! - inRun[0]! : NaN;
    const sendsPerSecond = inRun.length > 1 ? ((inRun.length - 1) / spanMs) * 1000 : 0;
    // The busiest and the quietest whole 10 s of the run.
    const windows: number[] = [];
    for (let at = times[0]!; at + 10_000 <= times.at(-1)!; at += 10_000) windows.push(times.filter((t) => t >= at && t < at + 10_000).length / 10);
    say(`  ${inRun.length} sends from ${new Date(inRun[0]!).toISOString()} to ${new Date(inRun.at(-1)!).toISOString()} (${seconds(spanMs)} s): ${sendsPerSecond.toFixed(1)} sends/s aggregate against the ${(campaignCount * THROTTLE) / 60}/s cap${complete ? '' : ` (INCOMPLETE: ${finished} of ${campaignCount} completed in ${timeoutMs / 1000} s)`}`);
    if (pausedAt !== null) say(`  the ${campaignCount - finished} unfinished campaigns paused together: last send ${pauseToLastSendMs} ms after the pause request, ${times.filter((t) => t > pausedAt!).length} sends after it`);
    if (windows.length) say(`  per 10 s: min ${Math.min(...windows).toFixed(1)}/s, max ${Math.max(...windows).toFixed(1)}/s; series ${windows.map((w) => w.toFixed(1)).join(' ')}`);
    say(`  launch → all completed ${seconds(Date.now() - t0)} s${pollRefusals ? ` (${pollRefusals} progress reads answered 503 and read again)` : ''}`);
    say(formatPerUnit(cpu, sends, 'send'));
    const cpuMsPerSend = sends > 0 ? (Object.values(cpu.cpu_seconds).reduce((a, b) => a + b, 0) * 1000) / sends : NaN;
    const cap = (campaignCount * THROTTLE) / 60;
    const targetMet = complete && sendsPerSecond >= CAMPAIGN_TARGETS.shareOfCap * cap && cpuMsPerSend <= CAMPAIGN_TARGETS.cpuMsPerSend;
    say(
      `  ${sendsPerSecond.toFixed(1)} sends/s (${((sendsPerSecond / cap) * 100).toFixed(1)} % of the cap) at ${cpuMsPerSend.toFixed(1)} ms CPU per send in all; ` +
        `target ≥ ${CAMPAIGN_TARGETS.shareOfCap * 100} % of the cap at ≤ ${CAMPAIGN_TARGETS.cpuMsPerSend} ms: ${targetMet ? 'met' : 'NOT met'}`,
    );
    if (tallyPrefix) {
      // The processes write their counts every 5 s.
      await sleep(6_000);
      say(`  database commands per send (phase 1 and its launches; BENCH_OP_TALLY):\n${formatOpTally(tallyPrefix, sends)}`);
    }
    const histories = await Promise.all(campaigns.map((id) => historyEvents(client, id)));
    const perRun = histories.flatMap((h) => h.perRun);
    say(`  history: ${histories.reduce((a, h) => a + h.events, 0)} events in ${perRun.length} runs for ${campaignCount} campaigns (per run ${Math.min(...perRun)}–${Math.max(...perRun)}; ${(histories.reduce((a, h) => a + h.events, 0) / Math.max(1, sends)).toFixed(2)} per send)`);
    const perSend = (n: number) => n / Math.max(1, sends);
    say(`  ${formatUnitCost('send', { events: perSend(histories.reduce((a, h) => a + h.events, 0)), actions: perSend(histories.reduce((a, h) => a + h.actions, 0)) }, TEMPORAL_MINIMUM.send)}`);
    // The simulator's statuses cost no workflow since issue 13 (src/providers/whatsapp/simulatedStatuses.ts).
    say('  the simulator\'s statuses: recorded by the accepting process from one stored document per message (no workflow)');
    const profiles = cpuProfile ? { window: cpu.window } : null;

    // ---- Phase 2: one large campaign.
    const { ids: largeIds } = await insertContacts(db, '99', largeRecipients);
    const large = await draft(db, 'Bench large', largeIds, zone);
    say(`phase 2: one campaign of ${largeRecipients} recipients (contact_ids)`);
    const evaluateStarted = performance.now();
    const evaluated = await consoleCall('POST', `/campaigns/${large}/evaluate`).catch((err: { status?: number; message: string }) => {
      if (err.status !== 503) throw err;
      return { body: { eligible: null }, ms: NaN, refused: `${err.message} after ${seconds(performance.now() - evaluateStarted)} s` };
    });
    say(`  evaluate ${'refused' in evaluated ? `REFUSED: ${evaluated.refused}` : `${seconds(evaluated.ms)} s (eligible ${evaluated.body.eligible})`}`);
    const launched = await launch(large, { expected_version: 1, confirm_recipients: evaluated.body.eligible });
    say(`  launch ${seconds(launched.ms)} s (staged ${launched.body.recipients})`);
    await sleep(pauseAfterSeconds * 1000);
    const pauseAt = Date.now();
    const paused = await pause(large, launched.body.version);
    const pausedAnsweredAt = Date.now();
    // Sends stop within a batch: wait until the counted recipients stay still for 10 s.
    let last = -1;
    let stillSince = Date.now();
    while (Date.now() - stillSince < 10_000 && Date.now() - pauseAt < 120_000) {
      const shown = (await consoleCall('GET', `/campaigns/${large}`)).body;
      // The counters are a funnel (delivered within sent); everyone not queued is processed.
      const processed = shown.recipients - shown.states.queued;
      if (processed !== last) {
        last = processed;
        stillSince = Date.now();
      }
      await sleep(1_000);
    }
    const largeTimes = (await sendTimes(db, large, Math.min(largeRecipients, last + 200))).sort((a, b) => a - b);
    const lastSend = largeTimes.at(-1) ?? pauseAt;
    const afterPause = largeTimes.filter((t) => t > pauseAt).length;
    say(`  paused after ${largeTimes.length} sends (answered in ${pausedAnsweredAt - pauseAt} ms, version ${paused.body.version}); last send ${lastSend - pauseAt} ms after the pause request, ${afterPause} sends after it`);
    const memory = system.peakMemory();
    say(
      `  peak memory (VmHWM): worker ${memory.worker_peak_mb} MB, API ${memory.api_peak_mb} MB (the API stages the audience at launch)` +
        (onCluster ? ` — the largest of each role's processes (${memory.worker_peak_process}, ${memory.api_peak_process}), since each started` : ''),
    );
    say(`load average before ${loadBefore}, after ${loadAverage()} (2 cores shared with other work)`);

    const file = writeBenchFigures('campaigns', {
      at: new Date().toISOString(),
      target: onCluster ? 'cluster' : 'embedded',
      settings: { campaigns: campaignCount, recipients_each: recipientsEach, throttle_per_minute: THROTTLE, large_recipients: largeRecipients },
      burst: {
        complete,
        sends,
        span_seconds: Math.round(spanMs) / 1000,
        sends_per_second: Math.round(sendsPerSecond * 10) / 10,
        cap_per_second: (campaignCount * THROTTLE) / 60,
        per_10s_min: windows.length ? Math.min(...windows) : null,
        per_10s_max: windows.length ? Math.max(...windows) : null,
        per_10s_series: windows,
        launch_ms_max: Math.round(Math.max(...launchMs)),
        launch_refusals_retried: launchRefusals,
        progress_reads_refused_503: pollRefusals,
        history_events: histories.map((h) => h.events),
        temporal_per_send: {
          events: histories.reduce((a, h) => a + h.events, 0) / Math.max(1, sends),
          actions: histories.reduce((a, h) => a + h.actions, 0) / Math.max(1, sends),
          minimum: TEMPORAL_MINIMUM.send,
        },
        simulated_delivery_events_per_message: 0,
        pause_to_last_send_ms: pauseToLastSendMs,
        history_runs: perRun.length,
        cpu: { ...cpu, window: undefined },
        cpu_ms_per_send: perUnit(cpu, sends),
        cpu_ms_per_send_total: Number.isNaN(cpuMsPerSend) ? null : Math.round(cpuMsPerSend * 100) / 100,
      },
      large: {
        recipients: largeRecipients,
        evaluate_ms: Number.isNaN(evaluated.ms) ? null : Math.round(evaluated.ms),
        launch_ms: Math.round(launched.ms),
        pause_answer_ms: pausedAnsweredAt - pauseAt,
        pause_to_last_send_ms: lastSend - pauseAt,
        sends_after_pause: afterPause,
        ...memory,
      },
      load_average_before: loadBefore,
      load_average_after: loadAverage(),
    });
    say(`written to ${file}`);
    if (profiles) {
      // The profiles are written as the processes exit.
      await system.stop();
      say('where the CPU went in phase 1 (--cpu-prof):');
      for (const name of ['api', 'worker']) for (const summary of summariseProfiles(join(profileDir, name), profiles.window)) say(formatProfile(name, summary));
    }
  } finally {
    await system.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
