import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { lateRecountDoc, lateRecountOffsetMs, lateRecountsCollection, recountDueCampaigns, scheduleLateRecounts } from '../../../src/campaigns/whatsapp/lateRecounts';
import { newId } from '../../../src/domain/ids';
import { openTestDb, testConfig } from '../../support/env';

/**
 * The workers' late-recount pass with more campaigns due than one read returns: it takes them
 * oldest-due first, page after page, so one pass covers every due campaign up to its bound and
 * a backlog beyond the bound goes in due order over the next passes (none waits for ever).
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const TENANT = 'ws_late_recounts';

let db: Db;
let drop: () => Promise<void>;
let mongoUrl: string;
beforeAll(async () => {
  const config = testConfig();
  mongoUrl = config.MONGODB_URL;
  ({ db, drop } = await openTestDb(config));
});
afterAll(async () => drop());
beforeEach(async () => {
  await lateRecountsCollection(db).deleteMany({});
});

/** `count` campaigns that ended a second apart, all due for their first recount at `now`, handed over in shuffled order; answers their ids oldest-due first. */
async function handOver(count: number, now: Date): Promise<string[]> {
  const firstEnd = now.getTime() - lateRecountOffsetMs(0) - count * SECOND;
  const campaigns = Array.from({ length: count }, (_, n) => ({ id: newId('cmp', new Date(firstEnd + n * SECOND)), endedAt: new Date(firstEnd + n * SECOND) }));
  // Handed over in an order unlike their due times (a stride through them), as parallel runs end.
  const order = campaigns.map((_, n) => (n * 7) % count);
  expect(new Set(order).size).toBe(count);
  for (const n of order) await scheduleLateRecounts(db, { campaignId: campaigns[n]!.id, tenantId: TENANT, recipients: 0, at: campaigns[n]!.endedAt });
  return campaigns.map((c) => c.id);
}

const stepOf = async (campaignId: string) => (await lateRecountsCollection(db).findOne({ campaign_id: campaignId }))?.step;

it('one pass recounts all 45 campaigns due (more than a read’s 20), each once, and moves each to its next step', async () => {
  const now = new Date();
  const ids = await handOver(45, now);
  expect(await recountDueCampaigns(db, now)).toBe(45);
  for (const id of ids) expect({ id, step: await stepOf(id) }).toEqual({ id, step: 1 });
  // Their next recounts are 15 minutes on: nothing is due.
  expect(await recountDueCampaigns(db, now)).toBe(0);
});

it('beyond a pass’s bound, the oldest-due go first and the rest at the next pass', async () => {
  const now = new Date();
  const ids = await handOver(45, now);
  expect(await recountDueCampaigns(db, now, { pageSize: 20, maxPerPass: 30 })).toBe(30);
  expect(await Promise.all(ids.map(stepOf))).toEqual([...Array(30).fill(1), ...Array(15).fill(0)]);
  expect(await recountDueCampaigns(db, now, { pageSize: 20, maxPerPass: 30 })).toBe(15);
  expect(await Promise.all(ids.map(stepOf))).toEqual(Array(45).fill(1));
});

it('a campaign whose later step is already due too (a worker down for a while) is recounted once a pass, a step at a time', async () => {
  const endedAt = new Date(Date.now() - 2 * 3_600_000);
  const id = newId('cmp', endedAt);
  await scheduleLateRecounts(db, { campaignId: id, tenantId: TENANT, recipients: 0, at: endedAt });
  const now = new Date();
  // Steps 0 (1 min), 1 (16 min) and 2 (76 min) are all due: one a pass, though a page of one
  // makes the pass read the next step's document written meanwhile.
  expect(await recountDueCampaigns(db, now, { pageSize: 1 })).toBe(1);
  expect(await stepOf(id)).toBe(1);
  expect(await recountDueCampaigns(db, now, { pageSize: 1 })).toBe(1);
  expect(await recountDueCampaigns(db, now, { pageSize: 1 })).toBe(1);
  expect(await stepOf(id)).toBe(3);
  expect(await recountDueCampaigns(db, now, { pageSize: 1 })).toBe(0);
  expect(await lateRecountsCollection(db).countDocuments({})).toBe(1);
});

it('a campaign stored at two steps (a worker died between writing the next and deleting the one it counted) is counted once and takes one place of the pass', async () => {
  const now = new Date();
  const [a, b] = await handOver(2, now);
  const stored = (await lateRecountsCollection(db).findOne({ campaign_id: a }))!;
  await lateRecountsCollection(db).insertOne(lateRecountDoc({ campaignId: a!, tenantId: TENANT, recipients: 0, endedAt: new Date(stored.ended_at.getTime() - 20 * MINUTE), step: 1 }));
  // a's two documents, then b's: the pass's bound of two is a and b.
  expect(await recountDueCampaigns(db, now, { maxPerPass: 2 })).toBe(2);
  expect(await stepOf(b!)).toBe(1);
});

it('a late recount handed over before its id led with the due time (its _id the campaign id) is taken and rewritten', async () => {
  const endedAt = new Date(Date.now() - 30 * MINUTE);
  const id = newId('cmp', endedAt);
  await lateRecountsCollection(db).insertOne({ _id: id, tenant_id: TENANT, recipients: 0, ended_at: endedAt, step: 1, due_at: new Date(endedAt.getTime() + lateRecountOffsetMs(1)) } as never);
  expect(await recountDueCampaigns(db, new Date())).toBe(1);
  expect(await lateRecountsCollection(db).findOne({ _id: id })).toBeNull();
  expect(await lateRecountsCollection(db).find({}).toArray()).toEqual([
    expect.objectContaining({ campaign_id: id, tenant_id: TENANT, step: 2, due_at: new Date(endedAt.getTime() + lateRecountOffsetMs(2)) }),
  ]);
});

it('reads the due recounts by walking the _id index in order (FerretDB on SQLite), never sorting the collection', async () => {
  const now = new Date();
  await handOver(25, now);
  const monitored = await new MongoClient(mongoUrl, { monitorCommands: true }).connect();
  try {
    const finds: CommandStartedEvent[] = [];
    monitored.on('commandStarted', (e) => {
      if (e.commandName === 'find' && e.command.find === 'campaign_late_recounts') finds.push(e);
    });
    const mdb = monitored.db(db.databaseName);
    expect(await recountDueCampaigns(mdb, now)).toBe(25);
    // The documents written before (the campaign id range), then two pages of due ones.
    expect(finds).toHaveLength(3);
    for (const find of finds) {
      const explained = await mdb.command({ explain: { find: 'campaign_late_recounts', filter: find.command.filter, sort: find.command.sort, limit: find.command.limit } });
      const plan = JSON.stringify(explained);
      expect(plan).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
      expect(plan).not.toMatch(/TEMP B-TREE/);
      expect(explained.sortPushdown).toBe(true);
    }
  } finally {
    await monitored.close();
  }
});
