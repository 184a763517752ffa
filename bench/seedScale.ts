import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MongoClient, type Collection, type Db, type Document } from 'mongodb';
import { callCollections } from '../src/calls/callStore';
import { campaignCollections } from '../src/campaigns/campaign';
import { CAMPAIGN_ENTRIES, campaignEntriesCollection } from '../src/campaigns/campaignEntries';
import { NAME_ENTRIES } from '../src/conversations/nameEntries';
import { stagingCollections } from '../src/campaigns/staging';
import { contactCollections } from '../src/contacts/contacts';
import { CONTACT_TAG_ENTRIES, contactTagEntries, contactTagEntriesCollection } from '../src/contacts/tagEntries';
import { conversationMessagesCollection, conversationsCollection } from '../src/conversations/store';
import { CALL_NUMBER_ENTRIES, CALL_END_ENTRIES, CALL_FILTER_ENTRIES, callEntriesCollection } from '../src/calls/callEntries';
import { RECENT_CONVERSATION_ENTRIES, TRANSCRIPT_ENTRIES, conversationEntriesCollection } from '../src/conversations/conversationEntries';
import { markEntriesComplete } from '../src/db/keyedEntries';
import { DUE_ENTRIES, dueEntriesCollection, dueKeys } from '../src/dues/dueEntries';
import { BULK_WRITE_MAX } from '../src/db/bulkWrite';
import { seedDemoWorkspace } from '../src/demo';
import { duesCollections, phoneClaimId } from '../src/dues/store';
import { freePort } from '../src/local/net';
import { toolPath } from '../src/local/paths';
import { startFerretDb } from '../src/local/servers';
import { ensureEveryIndex } from '../src/main/indexes';
import { webhookDeliveries } from '../src/webhooks/deliveries';
import { deliveryEntries, deliveryStatusEntries, entryBackfillCollection, entryBackfillDone, entryOf, statusEntryOf } from '../src/webhooks/deliveryEntries';
import { newWebhookEndpoint, webhookEndpoints } from '../src/webhooks/endpoints';
import { ticketCollections } from '../src/tickets/ticketStore';
import { refuseClusterTarget } from './clusterTarget';
import {
  SMALL_SHARE,
  SeededRandom,
  callDoc,
  campaignDoc,
  contactDocs,
  conversationDocs,
  listEntriesOfCall,
  listEntriesOfCampaign,
  listEntriesOfConversation,
  deliveryDoc,
  duesOfSubscriber,
  recipientDoc,
  sizesAt,
  spreadTimes,
  subscriberDoc,
  ticketDoc,
  type Sizes,
  type WorkspaceRefs,
} from './scaleData';

/**
 * `npm run seed:scale`: a year of one busy workspace beside SCALE_SMALL (50) small ones,
 * written straight into an embedded FerretDB (SQLite) under SCALE_DIR (.data/scale) for
 * `npm run bench:scale` (docs/scale.md). SCALE (0.02) multiplies the sizes
 * (scaleData.ts FULL_SIZES; 1 is the full year). SCALE_SEED (36) and SCALE_NOW
 * (2026-11-01T00:00:00Z, the end of the year written) make the data: the same pair gives the
 * same documents. Every command carries at most BULK_WRITE_MAX documents, SCALE_IN_FLIGHT (2)
 * commands at once. An existing SCALE_DIR is replaced.
 */

export interface SeedWorkspace extends WorkspaceRefs {
  apiKey: string;
  endpointId: string;
}

export interface SeedManifest {
  scale: number;
  seed: number;
  now: string;
  sizes: Sizes;
  big: SeedWorkspace;
  small: SeedWorkspace[];
  /** Ids the bench reads one by one (newest, oldest, middle of the big workspace). */
  samples: { callIds: string[]; conversationIds: string[]; campaignIds: string[]; largestCampaignId: string; ticketIds: string[]; contactIds: string[] };
  documents: Record<string, number>;
  seconds: number;
  docs_per_s: number;
}

export const scaleDir = () => resolve(process.env.SCALE_DIR ?? '.data/scale');
export const manifestPath = (dir: string) => join(dir, 'seed.json');

export function readManifest(dir: string): SeedManifest | null {
  return existsSync(manifestPath(dir)) ? (JSON.parse(readFileSync(manifestPath(dir), 'utf8')) as SeedManifest) : null;
}

/** Buffers each collection's documents and inserts them BULK_WRITE_MAX at a time, a bounded number of commands in flight. */
class Writer {
  readonly counts: Record<string, number> = {};
  private readonly buffers = new Map<string, Document[]>();
  private readonly inFlight = new Set<Promise<void>>();
  constructor(
    private readonly db: Db,
    private readonly maxInFlight: number,
  ) {}

  /** The app's own typed collections, so each document is checked against its store's shape. */
  get stores() {
    const db = this.db;
    return {
      contacts: contactCollections(db).contacts,
      identities: contactCollections(db).identities,
      contactTagEntries: contactTagEntriesCollection(db),
      calls: callCollections(db).calls,
      conversations: conversationsCollection(db),
      messages: conversationMessagesCollection(db),
      callEntries: callEntriesCollection(db),
      conversationEntries: conversationEntriesCollection(db),
      campaigns: campaignCollections(db).campaigns,
      campaignEntries: campaignEntriesCollection(db),
      recipients: stagingCollections(db).recipients,
      subscribers: duesCollections(db).subscribers,
      subscriberPhones: duesCollections(db).phones,
      dues: duesCollections(db).dues,
      dueEntries: dueEntriesCollection(db),
      deliveries: webhookDeliveries(db),
      deliveryEntries: deliveryEntries(db),
      deliveryStatusEntries: deliveryStatusEntries(db),
      deliveryEntryBackfills: entryBackfillCollection(db),
      tickets: ticketCollections(db).tickets,
    };
  }

  async add<T extends Document>(collection: Collection<T>, doc: T): Promise<void> {
    const name = collection.collectionName;
    const buffer = this.buffers.get(name) ?? [];
    buffer.push(doc as Document);
    this.buffers.set(name, buffer);
    if (buffer.length >= BULK_WRITE_MAX) await this.flush(name);
  }

  private async flush(name: string): Promise<void> {
    const docs = this.buffers.get(name) ?? [];
    if (docs.length === 0) return;
    this.buffers.set(name, []);
    while (this.inFlight.size >= this.maxInFlight) await Promise.race(this.inFlight);
    const write = this.db
      .collection(name)
      .insertMany(docs, { ordered: true })
      .then(() => {
        this.counts[name] = (this.counts[name] ?? 0) + docs.length;
      })
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  async drain(): Promise<void> {
    for (const name of [...this.buffers.keys()]) await this.flush(name);
    await Promise.all(this.inFlight);
  }

  total(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }
}

const streamSeed = (seed: number, ...parts: string[]) => createHash('sha256').update([seed, ...parts].join('\u0000')).digest().readUInt32BE(0);

const DAY = 86_400_000;

async function seedWorkspaceData(db: Db, writer: Writer, ws: SeedWorkspace, sizes: Sizes, seed: number, now: Date, onProgress: () => void): Promise<Partial<SeedManifest['samples']>> {
  const yearAgo = new Date(now.getTime() - 365 * DAY);
  const s = writer.stores;
  const rnd = (kind: string) => new SeededRandom(streamSeed(seed, ws.tenantId, kind));
  const samples: Partial<SeedManifest['samples']> = { callIds: [], conversationIds: [], campaignIds: [], ticketIds: [], contactIds: [] };
  const sample = (list: string[], i: number, count: number, id: string) => {
    if (i === 0 || i === count - 1 || i === Math.floor(count / 2)) list.push(id);
  };

  /**
   * One kind's records, `count` of them spread over [from, to) in time order, drawn from the
   * kind's own seeded random: `write` adds one record's documents and gives its id. The oldest,
   * middle and newest ids go to `sampled`; progress is told every `progressEvery` records.
   */
  const writeSpread = async (
    kind: string,
    count: number,
    [from, to]: [Date, Date],
    { sampled, progressEvery }: { sampled?: string[]; progressEvery?: number },
    write: (at: Date, i: number, r: SeededRandom) => Promise<string>,
  ): Promise<void> => {
    const r = rnd(kind);
    let i = 0;
    for (const at of spreadTimes(count, from, to, r)) {
      const id = await write(at, i, r);
      if (sampled) sample(sampled, i, count, id);
      i++;
      if (progressEvery && i % progressEvery === 0) onProgress();
    }
  };
  const year: [Date, Date] = [yearAgo, now];

  await writeSpread('contacts', sizes.contacts, year, { sampled: samples.contactIds!, progressEvery: 5_000 }, async (at, i, r) => {
    const { contact, identities } = contactDocs(ws, i, at, r);
    await writer.add(s.contacts, contact);
    for (const entry of contactTagEntries(contact)) await writer.add(s.contactTagEntries, entry);
    for (const identity of identities) await writer.add(s.identities, identity);
    return contact._id;
  });

  await writeSpread('calls', sizes.calls, year, { sampled: samples.callIds!, progressEvery: 5_000 }, async (at, i, r) => {
    const call = callDoc(ws, i % sizes.contacts, at, i >= sizes.calls - sizes.transcripts, null, r);
    for (const entry of listEntriesOfCall(call)) await writer.add(s.callEntries, entry);
    await writer.add(s.calls, call);
    return call._id;
  });

  const turnsEach = Math.max(2, Math.round(sizes.messages / sizes.conversations));
  await writeSpread('conversations', sizes.conversations, year, { sampled: samples.conversationIds!, progressEvery: 1_000 }, async (at, i, r) => {
    // Turns vary around the mean (2 … 2×mean − 2), so the total stays near `messages`.
    const { conversation, messages } = conversationDocs(ws, i % sizes.contacts, at, 2 + r.int(2 * turnsEach - 3), r);
    for (const entry of listEntriesOfConversation(conversation, messages)) await writer.add(s.conversationEntries, entry);
    await writer.add(s.conversations, conversation);
    for (const message of messages) await writer.add(s.messages, message);
    return conversation._id;
  });

  await writeSpread('campaigns', sizes.campaigns, [yearAgo, new Date(now.getTime() - DAY)], {}, async (at, i, r) => {
    // The largest is the newest: the one a person opens first.
    const recipients = i === sizes.campaigns - 1 ? sizes.largestCampaignRecipients : sizes.otherCampaignRecipients;
    const campaign = campaignDoc(ws, at, i, recipients, r);
    for (const entry of listEntriesOfCampaign(campaign)) await writer.add(s.campaignEntries, entry);
    await writer.add(s.campaigns, campaign);
    for (let position = 0; position < recipients; position++) {
      await writer.add(s.recipients, recipientDoc(ws, campaign, position, r));
      if (position % 5_000 === 4_999) onProgress();
    }
    samples.campaignIds!.push(campaign._id);
    if (i === sizes.campaigns - 1) samples.largestCampaignId = campaign._id;
    return campaign._id;
  });

  await writeSpread('dues', sizes.duesSubscribers, year, {}, async (at, i, r) => {
    const subscriber = subscriberDoc(ws, i, at, r);
    await writer.add(s.subscribers, subscriber);
    // The claim on the phone that keeps one subscriber per number (src/dues/store.ts).
    await writer.add(s.subscriberPhones, { _id: phoneClaimId(ws.tenantId, subscriber.phone), tenant_id: ws.tenantId, subscriber_id: subscriber._id, created_at: at });
    // Its latest dues, each with the list entries a raise writes (src/dues/dueEntries.ts).
    for (const due of duesOfSubscriber(subscriber, now, r)) {
      for (const _id of dueKeys(due)) await writer.add(s.dueEntries, { _id });
      await writer.add(s.dues, due);
    }
    return subscriber._id;
  });

  // Deliveries are kept 7 days (docs/decisions/platform.md "Expiry and retention"): a year's
  // count arrives within the last six.
  const url = `https://hooks.example.in/${ws.tenantId}`;
  await writeSpread('deliveries', sizes.webhookDeliveries, [new Date(now.getTime() - 6 * DAY), now], { progressEvery: 5_000 }, async (at, _i, r) => {
    const delivery = deliveryDoc(ws, ws.endpointId, url, at, r);
    await writer.add(s.deliveries, delivery);
    // The console list's entry, as the drain writes it (src/webhooks/deliveryEntries.ts).
    await writer.add(s.deliveryEntries, entryOf(delivery));
    await writer.add(s.deliveryStatusEntries, statusEntryOf(entryOf(delivery)));
    return delivery._id;
  });
  await writer.add(s.deliveryEntryBackfills, entryBackfillDone(ws.tenantId, ws.endpointId, now));

  await writeSpread('tickets', sizes.tickets, year, { sampled: samples.ticketIds! }, async (at, i, r) => {
    const ticket = ticketDoc(ws, i, at, r);
    await writer.add(s.tickets, ticket);
    return ticket._id;
  });
  return samples;
}

async function setUpWorkspace(db: Db, tenantId: string, name: string, now: Date): Promise<SeedWorkspace> {
  const seeded = await seedDemoWorkspace(db, { workspaceId: tenantId, name, environment: 'live', now });
  const endpoint = newWebhookEndpoint({ _id: `whk_${createHash('sha256').update(tenantId).digest('hex').slice(0, 24)}`, tenant_id: tenantId, url: `https://hooks.example.in/${tenantId}` }, now);
  await webhookEndpoints(db).insertOne(endpoint);
  return { tenantId, agentId: seeded.agentId, phoneNumber: seeded.phoneNumber, senderId: seeded.senderId, apiKey: seeded.apiKey, endpointId: endpoint._id };
}

export async function seedScale(db: Db, options: { scale: number; seed: number; now: Date; smallWorkspaces: number; inFlight: number; say: (line: string) => void }): Promise<SeedManifest> {
  const started = performance.now();
  await ensureEveryIndex(db);
  const writer = new Writer(db, options.inFlight);
  const sizes = sizesAt(options.scale);
  const smallSizes = sizesAt(options.scale * SMALL_SHARE);
  let lastReport = started;
  const progress = () => {
    const t = performance.now();
    if (t - lastReport < 10_000) return;
    lastReport = t;
    options.say(`  ${writer.total().toLocaleString('en')} documents, ${Math.round(writer.total() / ((t - started) / 1000))} docs/s`);
  };

  const big = await setUpWorkspace(db, 'ws_scale_big', 'A busy year', options.now);
  options.say(`big workspace ${big.tenantId}: ${JSON.stringify(sizes)}`);
  const samples = await seedWorkspaceData(db, writer, big, sizes, options.seed, options.now, progress);
  const small: SeedWorkspace[] = [];
  options.say(`${options.smallWorkspaces} small workspaces, each: ${JSON.stringify(smallSizes)}`);
  for (let n = 0; n < options.smallWorkspaces; n++) {
    const ws = await setUpWorkspace(db, `ws_scale_small_${String(n).padStart(2, '0')}`, `Small workspace ${n + 1}`, options.now);
    await seedWorkspaceData(db, writer, ws, smallSizes, options.seed, options.now, progress);
    small.push(ws);
  }
  await writer.drain();
  // Every record went in with its list entries: nothing to backfill.
  for (const name of [CALL_NUMBER_ENTRIES, CALL_END_ENTRIES, CALL_FILTER_ENTRIES, RECENT_CONVERSATION_ENTRIES, TRANSCRIPT_ENTRIES, CAMPAIGN_ENTRIES, NAME_ENTRIES, CONTACT_TAG_ENTRIES, DUE_ENTRIES]) await markEntriesComplete(db, name);
  const seconds = (performance.now() - started) / 1000;
  return {
    scale: options.scale,
    seed: options.seed,
    now: options.now.toISOString(),
    sizes,
    big,
    small,
    samples: samples as SeedManifest['samples'],
    documents: writer.counts,
    seconds: Math.round(seconds),
    docs_per_s: Math.round(writer.total() / seconds),
  };
}

async function main(): Promise<void> {
  const scale = Number(process.env.SCALE ?? 0.02);
  const seed = Number(process.env.SCALE_SEED ?? 36);
  const now = new Date(process.env.SCALE_NOW ?? '2026-11-01T00:00:00Z');
  const smallWorkspaces = Number(process.env.SCALE_SMALL ?? 50);
  const inFlight = Number(process.env.SCALE_IN_FLIGHT ?? 2);
  if (!(scale > 0 && scale <= 1) || Number.isNaN(now.getTime())) throw new Error('SCALE must be in (0, 1] and SCALE_NOW a time');
  refuseClusterTarget('seed:scale');
  const dir = scaleDir();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const ferret = await startFerretDb({ binary: toolPath(process.env.TOOLS_DIR ?? '.tools', 'ferretdb'), port: await freePort(), dataDir: dir, logFile: join(dir, 'ferretdb.log') });
  const mongo = await new MongoClient(ferret.address).connect();
  try {
    say(`seed:scale SCALE=${scale} SCALE_SEED=${seed} SCALE_NOW=${now.toISOString()} into ${dir}`);
    const manifest = await seedScale(mongo.db('bench'), { scale, seed, now, smallWorkspaces, inFlight, say });
    writeFileSync(manifestPath(dir), `${JSON.stringify(manifest, null, 1)}\n`);
    const total = Object.values(manifest.documents).reduce((a, b) => a + b, 0);
    say(`wrote ${total.toLocaleString('en')} documents in ${manifest.seconds} s: ${manifest.docs_per_s} docs/s`);
    for (const [name, count] of Object.entries(manifest.documents).sort((a, b) => b[1] - a[1])) say(`  ${name.padEnd(22)} ${count.toLocaleString('en')}`);
    say(`at this rate SCALE=1 (about ${Math.round(total / scale).toLocaleString('en')} documents) takes about ${Math.round(total / scale / manifest.docs_per_s / 60)} min`);
  } finally {
    await mongo.close();
    await ferret.process.stop();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`seed:scale failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
