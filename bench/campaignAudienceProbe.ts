import { performance } from 'node:perf_hooks';
import type { Db } from 'mongodb';
import { broadcastRequest, insertDrafted } from '../test/support/campaignDrafts';
import { resolveAudience } from '../src/campaigns/audience';
import { evaluate, evaluateCampaign, lookupTemplate } from '../src/campaigns/evaluate';
import { suppressedNumbers } from '../src/messaging/optOut';
import { stageRecipients, stagingCollections } from '../src/campaigns/staging';
import { contactCollections, contactIdFor, type ContactDoc } from '../src/contacts/contacts';
import { CONTACT_TAG_ENTRIES, contactTagEntries, contactTagEntriesCollection, readSegmentEntries } from '../src/contacts/tagEntries';
import { markEntriesComplete } from '../src/db/keyedEntries';
import { collections } from '../src/db/collections';
import { ensureEveryIndex } from '../src/main/indexes';
import { seedDemoWorkspace } from '../src/demo/seedDemoWorkspace';
import { cpuSeconds, loadAverage } from './benchStats';
import { withBenchFerret } from './benchFerret';

/**
 * `node dist/bench/campaignAudienceProbe.js`: where a large campaign's evaluate and launch
 * spend their time, without the API, worker or Temporal. On its own FerretDB (SQLite): writes
 * PROBE_RECIPIENTS (50,000) contacts, then times evaluate (audience read, opt-outs, classify)
 * and staging, each with the FerretDB process's CPU. Used to choose the staging's chunk size
 * (docs/decisions/campaigns.md, "Campaigns").
 */

const count = Number(process.env.PROBE_RECIPIENTS ?? 50_000);
/** Set: only the evaluate figures (issue 36: 200,000 people < 20 s), without the scan and insert variants. */
const evaluateOnly = process.env.PROBE_EVALUATE_ONLY === '1';
const TENANT = 'ws_probe';
/**
 * `segment`: the audience is a tag every probe contact holds, read through the contacts' tag
 * entries (src/contacts/tagEntries.ts, written with the contacts as the app writes them), or by
 * the old scan with PROBE_ENTRIES=0. `contact_ids` (the default): the ids listed.
 */
const audienceKind = process.env.PROBE_AUDIENCE === 'segment' ? 'segment' : 'contact_ids';
const withEntries = process.env.PROBE_ENTRIES !== '0';
/** More contacts of the workspace outside the audience (untagged): a year's workspace holds 1,000,000. */
const others = Number(process.env.PROBE_OTHER_CONTACTS ?? 0);
const SEGMENT_TAG = 'probe';

/** Issue 36: a campaign evaluate of 200,000 people. */
const EVALUATE_TARGET_S = 20;
let lastSeconds = 0;

async function timed<T>(name: string, ferretPid: number, work: () => Promise<T>): Promise<T> {
  const cpu = cpuSeconds(ferretPid);
  const own = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  lastSeconds = (performance.now() - started) / 1000;
  const ownCpu = process.cpuUsage(own);
  process.stdout.write(
    `${name.padEnd(44)} ${lastSeconds.toFixed(2)} s   FerretDB CPU ${(cpuSeconds(ferretPid) - cpu).toFixed(2)} s   this process's CPU ${((ownCpu.user + ownCpu.system) / 1e6).toFixed(2)} s\n`,
  );
  return result;
}

async function draft(db: Db, ids: string[]) {
  const workspace = (await collections(db).workspaces.findOne({ _id: TENANT }))!;
  const request = broadcastRequest({
    name: 'Probe',
    audience: audienceKind === 'segment' ? { kind: 'segment', contact_ids: [], tags: [SEGMENT_TAG] } : { kind: 'contact_ids', contact_ids: ids, tags: [] },
  });
  return { campaign: await insertDrafted(db, request, { workspace, createdBy: { kind: 'console', id: 'probe' }, now: new Date() }), workspace };
}

async function main(): Promise<void> {
  await withBenchFerret('probe-audience-', async ({ mongo, pid }) => {
    process.stdout.write(`load average before ${loadAverage()}\n`);
    const db = mongo.db('probe');
    await ensureEveryIndex(db);
    await seedDemoWorkspace(db, { workspaceId: TENANT, name: 'Probe', environment: 'test' });
    const at = new Date();
    const ids: string[] = [];
    await timed(`insert ${count} contacts${others ? ` and ${others} others` : ''} (chunks of 1,000)`, pid, async () => {
      for (let start = 0; start < count + others; start += 1_000) {
        const docs: ContactDoc[] = Array.from({ length: Math.min(1_000, count + others - start) }, (_, k) => ({
          // Ids as the contacts module derives them: the audience's and the others' interleave, as a segment's do in a workspace.
          _id: contactIdFor(TENANT, 'phone', `+9199${String(start + k).padStart(8, '0')}`),
          tenant_id: TENANT,
          name: `Person ${start + k}`,
          email: null,
          phone: `+9199${String(start + k).padStart(8, '0')}`,
          external_id: null,
          tags: audienceKind === 'segment' && (start + k) % Math.ceil((count + others) / count) === 0 ? [SEGMENT_TAG] : [],
          created_at: at,
          updated_at: at,
        }));
        await contactCollections(db).contacts.insertMany(docs);
        if (audienceKind === 'segment') {
          const entries = docs.flatMap(contactTagEntries);
          for (let e = 0; e < entries.length; e += 1_000) await contactTagEntriesCollection(db).insertMany(entries.slice(e, e + 1_000));
          ids.push(...docs.filter((d) => d.tags.length > 0).map((d) => d._id));
        } else ids.push(...docs.slice(0, Math.max(0, count - start)).map((d) => d._id));
      }
    });
    if (withEntries) await markEntriesComplete(db, CONTACT_TAG_ENTRIES);
    process.stdout.write(`  audience: ${audienceKind} of ${ids.length}${audienceKind === 'segment' ? (withEntries ? ', read through the tag entries' : ', read by the scan (PROBE_ENTRIES=0)') : ''}\n`);
    const projection = { _id: 1, tenant_id: 1, name: 1, email: 1, phone: 1 };
    for (const batchSize of evaluateOnly ? [] : [undefined, 1_000, 2_000, 5_000]) {
      await timed(`scan the workspace's contacts, batchSize ${batchSize ?? 'default'}`, pid, async () => {
        let n = 0;
        for await (const _doc of contactCollections(db).contacts.find({ tenant_id: TENANT }, { projection, ...(batchSize ? { batchSize } : {}) })) n++;
        return n;
      });
    }
    const { campaign, workspace } = await draft(db, ids);
    if (audienceKind === 'segment' && withEntries) {
      // The same entries through one cursor, for comparison with readSegmentEntries' parallel parts.
      await timed("the segment's entries through one cursor", pid, async () => {
        let n = 0;
        for await (const _entry of contactTagEntriesCollection(db).find({ _id: { $gt: `${TENANT}|tag:${SEGMENT_TAG}|`, $lt: `${TENANT}|tag:${SEGMENT_TAG}}` } }, { batchSize: 5_000 })) n++;
        return n;
      });
      await timed("the segment's entries in four parts (readSegmentEntries)", pid, () => readSegmentEntries(db, TENANT, [SEGMENT_TAG]));
    }
    const audience = await timed(`resolveAudience (${audienceKind})`, pid, () => resolveAudience(db, campaign));
    const suppressed = await timed('suppressedNumbers', pid, () => suppressedNumbers(db, TENANT));
    const template = await lookupTemplate(db, campaign);
    await timed('evaluate (classify, findings, checksum; no reads)', pid, async () => evaluate({ campaign, workspace, audience, suppressed, template, senderProblem: null }));
    const evaluation = await timed('evaluateCampaign (whole)', pid, () => evaluateCampaign(db, campaign, workspace));
    process.stdout.write(`  eligible ${evaluation.result.eligible}\n`);
    process.stdout.write(`evaluateCampaign of ${ids.length} people: ${(lastSeconds).toFixed(1)} s (target < ${EVALUATE_TARGET_S} s${lastSeconds < EVALUATE_TARGET_S ? ', met' : ', NOT met'}); load average ${loadAverage()}\n`);
    if (evaluateOnly) return;
    // The same documents written other ways, to scratch collections.
    const docsOf = (name: string) =>
      evaluation.recipients.map((r, n) => ({ _id: `${name}:${n}`, tenant_id: TENANT, campaign_id: name, position: n, contact_id: r.contact_id, to: r.to, name: r.name, variables: r.variables, state: 'queued', skip_reason: null, message_id: null, state_at: at, created_at: at }));
    for (const [chunk, inFlight] of [[1_000, 1], [5_000, 1], [1_000, 4], [250, 8]] as const) {
      const name = `scratch_${chunk}_${inFlight}`;
      const all = docsOf(name);
      let slowest = 0;
      await timed(`insertMany ${all.length}: chunks of ${chunk}, ${inFlight} in flight`, pid, async () => {
        let next = 0;
        await Promise.all(
          Array.from({ length: inFlight }, async () => {
            while (next < all.length) {
              const from = next;
              next += chunk;
              const started = performance.now();
              await db.collection<{ _id: string }>(name).insertMany(all.slice(from, from + chunk), { ordered: false });
              slowest = Math.max(slowest, performance.now() - started);
            }
          }),
        );
      });
      process.stdout.write(`  slowest insertMany ${Math.round(slowest)} ms\n`);
    }
    await timed('stageRecipients (with the evaluation)', pid, () => stageRecipients(db, { campaign, workspace, at, evaluation }));
    const { recipients } = stagingCollections(db);
    const ids50 = Array.from({ length: 50 }, (_, i) => `${campaign._id}:${10_000 + i}`);
    await timed('50 point reads of recipients, all in flight', pid, () => Promise.all(ids50.map((_id) => recipients.findOne({ _id }))));
    await timed('50 recipient updates one by one', pid, async () => {
      for (const _id of ids50) await recipients.updateOne({ _id }, { $set: { state: 'sent', state_at: new Date() } });
    });
    const ids50b = ids50.map((id) => id.replace(':10', ':20'));
    await timed('50 recipient updates in one bulkWrite', pid, () =>
      recipients.bulkWrite(ids50b.map((_id) => ({ updateOne: { filter: { _id }, update: { $set: { state: 'sent', state_at: new Date() } } } })), { ordered: false }),
    );
    process.stdout.write(`load average after ${loadAverage()}\n`);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
