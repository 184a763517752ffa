import type { Db } from 'mongodb';
import { callCollections } from '../src/calls/callStore';
import type { Capture } from '../src/calls/types';
import { campaignCollections, type CampaignDoc } from '../src/campaigns/campaign';
import { draftCampaign, insertDraft } from '../src/campaigns/createCampaign';
import { OUTCOME_CHUNK, OutcomeFold, outcomeChunkOf, outcomeRow } from '../src/campaigns/voice/outcomes/chunks';
import { readRecipientBatch, recipientId, stagingCollections, type CampaignRecipientDoc } from '../src/campaigns/staging';
import { contactCollections, type ContactDoc } from '../src/contacts/contacts';
import { collections } from '../src/db/collections';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { newId } from '../src/domain/ids';
import { calleeScript, calleeScripts, scriptId } from '../src/providers/voice/simulatorScript';
import { distribution, formatDistribution, loadAverage, peakRssMiB, rssMiB, sleep } from './benchStats';
import { BENCH_CONSOLE_TOKEN, startEmbeddedSystem } from './embeddedSystem';
import { cpuMeter, formatPerUnit, perUnit, writeBenchFigures } from './processCpu';

/**
 * `npm run bench:voice-campaigns` (issue 15): a call campaign on the embedded defaults
 * (FerretDB on SQLite, the Temporal dev server, one API and one worker process, the
 * simulated callee and reader inside the worker), loopback only.
 *
 * 1. VOICE_BENCH_RECIPIENTS (1,000) people, each callee scripted to answer at once (no ring,
 *    the shortest turns) and answer every question; one campaign at the 600/min throttle cap,
 *    launched through the console and run to the end (or VOICE_BENCH_TIMEOUT_SECONDS, 600).
 *    Calls placed per second (the calls' own `placed_at`) against the bound the live-call
 *    limit allows, 10 / mean call duration (a call holds its live place from placement to
 *    its end); CPU per call per process.
 * 2. GET /api/v1/campaigns/{id}/outcomes and …/outcomes.csv, timed through HTTP
 *    (VOICE_BENCH_REPEATS, 3, each): on the campaign of phase 1, and on one of
 *    VOICE_BENCH_REPORT_RECIPIENTS (50,000; target < 2 s) whose recipients are STAGED
 *    DIRECTLY in the database, copies of phase 1's people with their final merged outcomes,
 *    and its outcome chunks and tallies written by the run's own fold (calling 50,000 people
 *    is not what the figure measures).
 *
 * Contacts, the draft and the callee scripts are written straight to the database. Figures go
 * to .bench/voice-campaigns-<time>.json.
 */

const recipientsCount = Number(process.env.VOICE_BENCH_RECIPIENTS ?? 1_000);
const reportRecipients = Number(process.env.VOICE_BENCH_REPORT_RECIPIENTS ?? 50_000);
const repeats = Number(process.env.VOICE_BENCH_REPEATS ?? 3);
const timeoutMs = Number(process.env.VOICE_BENCH_TIMEOUT_SECONDS ?? 600) * 1000;
/** The workspace's live-call limit (api-core §8). */
const LIVE_CALL_LIMIT = 10;
const THROTTLE = 600;
const REPORT_TARGET_MS = 2_000;
const TENANT = 'ws_bench_voice';

const say = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

const CAPTURE: Capture = {
  goal: 'Confirm the delivery',
  fields: [
    { key: 'address_ok', label: 'Is the delivery address correct', type: 'yes_no', hint: null, options: [], required: true, display: 'auto' },
    { key: 'slot', label: 'Preferred slot', type: 'choice', hint: null, options: ['Morning', 'Evening'], required: true, display: 'bars' },
    { key: 'notes', label: 'Any notes', type: 'text', hint: null, options: [], required: false, display: 'auto' },
  ],
  success: { field: 'address_ok', equals: 'yes' },
};

/** An Etc/GMT zone whose local hour now is 10:00 to 12:59, so a run of several minutes stays inside 10:00 to 19:00. */
function zoneOpenNow(): string {
  const hour = new Date().getUTCHours();
  const offset = [...Array(27).keys()].map((i) => i - 12).find((n) => { const h = (hour + n + 24) % 24; return h >= 10 && h <= 12; })!;
  return offset === 0 ? 'UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** `count` contacts with numbers `+9197<index>`, each callee answering at once and answering everything. */
async function insertCallees(db: Db, count: number): Promise<string[]> {
  const at = new Date();
  const script = calleeScript.parse({ ring_seconds: 0, seconds_per_turn: 0.05, answers: { notes: 'Ring first' } });
  const ids: string[] = [];
  for (let start = 0; start < count; start += 1_000) {
    const docs: ContactDoc[] = Array.from({ length: Math.min(1_000, count - start) }, (_, k) => {
      const i = start + k;
      return { _id: `cnt_v${String(i).padStart(23, '0')}`, tenant_id: TENANT, name: `Person ${i}`, email: null, phone: `+9197${String(i).padStart(8, '0')}`, external_id: null, tags: [], created_at: at, updated_at: at };
    });
    await contactCollections(db).contacts.insertMany(docs);
    await calleeScripts(db).insertMany(docs.map((d) => ({ _id: scriptId(TENANT, d.phone!), tenant_id: TENANT, destination: d.phone!.slice(1), script, updated_at: at })));
    ids.push(...docs.map((d) => d._id));
  }
  return ids;
}

async function draftVoice(db: Db, contactIds: string[], timezone: string): Promise<string> {
  const workspace = (await collections(db).workspaces.findOne({ _id: TENANT }))!;
  const agent = await collections(db).agents.findOne({ tenant_id: TENANT });
  const drafted = draftCampaign(
    {
      name: 'Voice bench',
      channel: 'voice',
      audience: { kind: 'contact_ids', contact_ids: contactIds, tags: [] },
      template: null,
      agent_id: agent!._id,
      purpose: 'your delivery, {{name}}',
      script: null,
      capture: CAPTURE,
      call_back_incomplete: false,
      schedule: { throttle_per_minute: THROTTLE, timezone },
      consent: null,
      sender_id: null,
      metadata: {},
    },
    { workspace, createdBy: { kind: 'console', id: 'bench' }, now: new Date() },
  );
  if (drafted.kind !== 'drafted') throw new Error(`draft refused: ${JSON.stringify(drafted)}`);
  await insertDraft(db, drafted);
  return drafted.campaign._id;
}

/** Every staged recipient of a campaign, by `_id` in pages of 200. */
async function allRecipients(db: Db, campaignId: string, count: number): Promise<CampaignRecipientDoc[]> {
  const out: CampaignRecipientDoc[] = [];
  for (let from = 0; from < count; from += 200) out.push(...(await readRecipientBatch(db, campaignId, from, Math.min(200, count - from))));
  return out;
}

/** When each call was placed and how long it held a live place (placement to end), read by `_id`. */
async function callTimes(db: Db, callIds: string[]): Promise<{ placed: number[]; heldMs: number[] }> {
  const placed: number[] = [];
  const heldMs: number[] = [];
  for (let i = 0; i < callIds.length; i += 200) {
    const docs = await Promise.all(callIds.slice(i, i + 200).map((id) => callCollections(db).calls.findOne({ _id: id }, { projection: { placed_at: 1, created_at: 1, ended_at: 1 } })));
    for (const d of docs) {
      if (!d) continue;
      const at = (d.placed_at ?? d.created_at).getTime();
      placed.push(at);
      if (d.ended_at) heldMs.push(d.ended_at.getTime() - at);
    }
  }
  return { placed: placed.sort((a, b) => a - b), heldMs };
}

/**
 * A call campaign of `count` people copied from a finished one's recipients (cycled, their
 * merged outcomes and calls as they are), written straight to the database: what the report
 * reads, without calling them. Its outcome chunks and tallies are written by the code the run's
 * count uses (`OutcomeFold`, src/campaigns/voice/outcomes/chunks.ts), from the same recipients, as the
 * run's final count of every chunk leaves them.
 */
async function stageCopies(db: Db, source: CampaignDoc, people: CampaignRecipientDoc[], count: number): Promise<string> {
  const id = newId('cmp');
  await campaignCollections(db).campaigns.insertOne({ ...source, _id: id, name: `Voice bench report ${count}`, recipients: count });
  const fold = await OutcomeFold.open(db, { campaignId: id, tenantId: source.tenant_id, at: new Date() });
  for (let start = 0; start < count; start += OUTCOME_CHUNK) {
    const docs = Array.from({ length: Math.min(OUTCOME_CHUNK, count - start) }, (_, k) => {
      const position = start + k;
      const from = people[position % people.length]!;
      return { ...from, _id: recipientId(id, position), campaign_id: id, position };
    });
    await stagingCollections(db).recipients.insertMany(docs, { ordered: false });
    await fold.chunk(outcomeChunkOf(start), docs.map(outcomeRow), true);
  }
  await fold.close({ everyChunk: true, firstCount: false });
  return id;
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const system = await startEmbeddedSystem({ name: 'bench-voice-campaigns', taskQueue: 'bench-voice-campaigns', env: { NODE_ENV: 'development' } });
  try {
    const { db } = system;
    const base = system.base!;
    const seeded = await seedDemoWorkspace(db, { workspaceId: TENANT, name: 'Voice campaign bench', environment: 'test' });

    const consoleCall = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
      const res = await fetch(`${base}/console/v1/workspaces/${TENANT}${path}`, {
        method,
        headers: { authorization: `Bearer ${BENCH_CONSOLE_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, any>;
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    /**
     * One timed GET of the public route, its body read to the end. A refusal (503 when one of
     * the reads outlives the API's 2 s database budget under load) is counted, not thrown.
     */
    const timedGet = async (path: string) => {
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/campaigns/${path}`, { headers: { authorization: `Bearer ${seeded.apiKey}` } });
      const text = await res.text();
      const ms = performance.now() - started;
      if (!res.ok && res.status !== 503) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 300)}`);
      return { ms, status: res.status, bytes: Buffer.byteLength(text), text };
    };
    const meter = cpuMeter(system.pids, ['temporal', 'ferretdb']);

    // ---- Phase 1: a campaign called to the end.
    const zone = zoneOpenNow();
    const contactIds = await insertCallees(db, recipientsCount);
    const campaignId = await draftVoice(db, contactIds, zone);
    say(`embedded defaults: FerretDB (SQLite) + Temporal dev server + 1 API + 1 worker process (simulated callee and reader in the worker); load average before ${loadBefore}`);
    say(`phase 1: one call campaign of ${recipientsCount} at ${THROTTLE}/min, zone ${zone}, callees answering at once (no ring, 0.05 s turns), live-call limit ${LIVE_CALL_LIMIT}`);
    const before = meter.mark();
    const t0 = Date.now();
    const launched = await consoleCall('POST', `/campaigns/${campaignId}/launch`, { expected_version: 1 });
    say(`  launched in ${seconds(Date.now() - t0)} s (staged ${launched.recipients})`);
    let shown = launched;
    while (Date.now() - t0 < timeoutMs) {
      shown = await consoleCall('GET', `/campaigns/${campaignId}`);
      if (shown.status === 'completed') break;
      await sleep(1_000);
    }
    const cpu = meter.since(before);
    const complete = shown.status === 'completed';
    if (!complete) await consoleCall('POST', `/campaigns/${campaignId}/pause`, { expected_version: shown.version });
    const people = await allRecipients(db, campaignId, recipientsCount);
    const callIds = people.flatMap((p) => (p.calls ?? []).map((c) => c.call_id));
    const { placed, heldMs } = await callTimes(db, callIds);
    const spanMs = placed.length > 1 ? placed.at(-1)! - placed[0]! : NaN;
    const placedPerSecond = placed.length > 1 ? ((placed.length - 1) / spanMs) * 1000 : 0;
    const held = distribution(heldMs);
    const boundPerSecond = held.mean ? (LIVE_CALL_LIMIT / held.mean) * 1000 : null;
    say(`  ${complete ? 'completed' : `NOT completed in ${timeoutMs / 1000} s (paused)`}: launch → ${complete ? 'completed' : 'pause'} ${seconds(Date.now() - t0)} s; progress ${JSON.stringify(shown.calls)}`);
    say(`  ${placed.length} calls placed from ${new Date(placed[0] ?? 0).toISOString()} to ${new Date(placed.at(-1) ?? 0).toISOString()} (${seconds(spanMs)} s): ${placedPerSecond.toFixed(2)} placed/s`);
    say(`  a call held its live place (placed → ended): ${formatDistribution(held)}`);
    say(`  bound from the live-call limit: ${LIVE_CALL_LIMIT} / ${held.mean ?? '–'} ms = ${boundPerSecond?.toFixed(2) ?? '–'} calls/s (the throttle's cap ${THROTTLE / 60}/s); measured ${placedPerSecond.toFixed(2)}/s = ${boundPerSecond ? Math.round((placedPerSecond / boundPerSecond) * 100) : '–'} % of the bound`);
    say(formatPerUnit(cpu, placed.length, 'call'));

    // ---- Phase 2: the outcome report and CSV.
    const timeReport = async (id: string, count: number) => {
      const report: number[] = [];
      const csv: number[] = [];
      const refused: string[] = [];
      let csvBytes = 0;
      let csvRows: number | null = null;
      let totals: Record<string, number> | null = null;
      for (let r = 0; r < repeats; r++) {
        const got = await timedGet(`${id}/outcomes`);
        if (got.status === 200) {
          report.push(got.ms);
          totals = (JSON.parse(got.text) as { totals: Record<string, number> }).totals;
        } else refused.push(`outcomes ${got.status} after ${Math.round(got.ms)} ms`);
        const file = await timedGet(`${id}/outcomes.csv`);
        // A read failing mid-stream ends the CSV early: count it as refused.
        const rows = file.text.split('\r\n').filter(Boolean).length - 1;
        if (file.status === 200 && rows === count) {
          csv.push(file.ms);
          csvBytes = file.bytes;
          csvRows = rows;
        } else refused.push(`outcomes.csv ${file.status} (${rows} rows) after ${Math.round(file.ms)} ms`);
      }
      if ((totals && totals.recipients !== count) || (csvRows !== null && csvRows !== count)) throw new Error(`report of ${count}: totals ${JSON.stringify(totals)}, CSV rows ${csvRows}`);
      const list = (values: number[]) => (values.length ? `${values.map((ms) => `${Math.round(ms)}`).join(', ')} ms` : '–');
      say(`  ${count} recipients: GET …/outcomes ${list(report)}; GET …/outcomes.csv ${list(csv)} (${csvRows ?? '–'} rows, ${Math.round(csvBytes / 1024)} KiB)${refused.length ? `; REFUSED: ${refused.join('; ')}` : ''}`);
      return { recipients: count, report_ms: report.map(Math.round), csv_ms: csv.map(Math.round), csv_bytes: csvBytes, refused };
    };
    say(`phase 2: outcome report and CSV through HTTP (${repeats} each; target < ${REPORT_TARGET_MS / 1000} s for ${reportRecipients})`);
    const small = await timeReport(campaignId, recipientsCount);
    const source = (await campaignCollections(db).campaigns.findOne({ _id: campaignId }))!;
    const stageStarted = performance.now();
    const largeId = await stageCopies(db, source, people, reportRecipients);
    say(`  staged ${reportRecipients} recipients DIRECTLY in the database (copies of phase 1's ${people.length}, final merged outcomes, with their outcome chunks and tallies) in ${seconds(performance.now() - stageStarted)} s`);
    const largeBefore = meter.mark();
    // Issue 36: the CSV streams with flat memory. The API's resident memory, sampled while it answers.
    const apiPid = system.api!.child.pid!;
    const apiMemory = { rss_before_mib: rssMiB(apiPid), rss_max_during_mib: 0, peak_rss_after_mib: 0 };
    const sampler = setInterval(() => (apiMemory.rss_max_during_mib = Math.max(apiMemory.rss_max_during_mib, rssMiB(apiPid))), 50);
    const large = await timeReport(largeId, reportRecipients).finally(() => clearInterval(sampler));
    apiMemory.peak_rss_after_mib = peakRssMiB(apiPid);
    const largeCpu = meter.since(largeBefore);
    say(`  API resident memory: ${apiMemory.rss_before_mib} MiB before the ${reportRecipients}-recipient report and CSV, at most ${apiMemory.rss_max_during_mib} MiB while answering them; peak (VmHWM) ${apiMemory.peak_rss_after_mib} MiB (target < 500 MiB)`);
    say(formatPerUnit(largeCpu, repeats * 2 * reportRecipients, 'recipient reported (report or CSV)', 'recipients reported'));
    const worst = Math.max(...large.report_ms, ...large.csv_ms);
    const met = large.refused.length === 0 && worst < REPORT_TARGET_MS;
    say(`  ${reportRecipients}: slowest answered ${seconds(worst)} s, ${large.refused.length} refused, against the < ${REPORT_TARGET_MS / 1000} s target: ${met ? 'met' : 'NOT met'}`);
    const loadAfter = loadAverage();
    say(`load average before ${loadBefore}, after ${loadAfter} (2 cores shared with other work)`);

    const file = writeBenchFigures('voice-campaigns', {
      at: new Date().toISOString(),
      settings: { recipients: recipientsCount, report_recipients: reportRecipients, throttle_per_minute: THROTTLE, live_call_limit: LIVE_CALL_LIMIT, repeats },
      run: {
        complete,
        calls: placed.length,
        span_seconds: Math.round(spanMs) / 1000,
        placed_per_second: Math.round(placedPerSecond * 100) / 100,
        bound_per_second: boundPerSecond === null ? null : Math.round(boundPerSecond * 100) / 100,
        call_held_ms: held,
        progress: shown.calls,
        cpu: { ...cpu, window: undefined },
        cpu_ms_per_call: perUnit(cpu, placed.length),
      },
      report_small: small,
      report_large: { ...large, staged_directly: true, cpu: { ...largeCpu, window: undefined }, target_ms: REPORT_TARGET_MS, api_memory: apiMemory },
      load_average_before: loadBefore,
      load_average_after: loadAfter,
    });
    say(`written to ${file}`);
  } finally {
    await system.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
