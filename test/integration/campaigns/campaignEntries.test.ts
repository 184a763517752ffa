import { MongoClient, type CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { campaignCollections, type CampaignDoc, type CampaignStatus } from '../../../src/campaigns/campaign';
import { backfillCampaignEntries, campaignEntriesCollection, campaignKeys } from '../../../src/campaigns/campaignEntries';
import { listCampaigns } from '../../../src/campaigns/listing';
import { claimNextVersion, writeClaimedVersion } from '../../../src/campaigns/versions';
import { CONSOLE_AUTH } from '../../support/calls';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * The campaigns lists (public and console) read through their keyed entries
 * (src/campaigns/campaignEntries.ts): the same pages, order and cursors as the query on the
 * campaigns they replace, before and after the backfill, and after versions move campaigns
 * in time and status.
 */
describe('campaigns lists through their entries', () => {
  const { api } = useTestApi();
  const base = Date.parse('2026-06-01T00:00:00Z');
  const broadcast = (name: string) => ({ name, audience: { contact_ids: [] }, template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] } });

  /** Every campaign of the workspace in the list's order, filtered as the lists filter: what each page must come from. */
  async function expected(tenantId: string, keep: (c: CampaignDoc) => boolean): Promise<string[]> {
    const all = await campaignCollections(api.db).campaigns.find({ tenant_id: tenantId }).toArray();
    return all
      .filter(keep)
      .sort((a, b) => b.updated_at.getTime() - a.updated_at.getTime() || (a._id < b._id ? 1 : -1))
      .map((c) => c._id);
  }

  async function walkPublic(ws: TestWorkspace, query: Record<string, string | number>): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(api.server)
        .get('/api/v1/campaigns')
        .query({ ...query, ...(cursor ? { cursor } : {}) })
        .set(bearer(ws.key));
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((c: { campaign_id: string }) => c.campaign_id));
      cursor = res.body.next_cursor;
    } while (cursor);
    return seen;
  }

  async function walkConsole(ws: TestWorkspace, query: Record<string, string | number | boolean>): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(api.server)
        .get(`/console/v1/workspaces/${ws.workspaceId}/campaigns`)
        .query({ ...query, ...(cursor ? { cursor } : {}) })
        .set(CONSOLE_AUTH);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((c: { campaign_id: string }) => c.campaign_id));
      cursor = res.body.next_cursor;
    } while (cursor);
    return seen;
  }

  async function check(ws: TestWorkspace): Promise<void> {
    const t = ws.workspaceId;
    const notArchived = await expected(t, (c) => c.status !== 'archived');
    expect(await walkPublic(ws, { limit: 2 })).toEqual(notArchived);
    expect(await walkPublic(ws, { limit: 100 })).toEqual(notArchived);
    expect(await walkConsole(ws, { limit: 3 })).toEqual(notArchived);
    expect(await walkConsole(ws, { limit: 3, include_archived: true })).toEqual(await expected(t, () => true));
    for (const status of ['draft', 'completed', 'archived', 'running'] as CampaignStatus[]) {
      const want = await expected(t, (c) => c.status === status);
      expect({ status, seen: await walkPublic(ws, { limit: 2, status }) }).toEqual({ status, seen: want });
      expect({ status, seen: await walkConsole(ws, { limit: 2, status }) }).toEqual({ status, seen: want });
    }
  }

  /** A version as the controls write it (claim, then write), at a time of the test's choosing. */
  async function version(tenantId: string, id: string, set: Record<string, unknown>, at: Date): Promise<void> {
    const current = (await campaignCollections(api.db).campaigns.findOne({ _id: id, tenant_id: tenantId }))!;
    const claim = await claimNextVersion(api.db, current, 'archive', set, at);
    if (claim.kind !== 'won') throw new Error('lost the claim');
    expect(await writeClaimedVersion(api.db, claim.claim)).toMatchObject({ version: current.version + 1, updated_at: at });
  }

  it('answers the same pages before the backfill, after it, and after versions move campaigns; another workspace sees none', async () => {
    const own = await createTestWorkspace(api.db);
    const other = await createTestWorkspace(api.db);
    const made: string[] = [];
    for (let i = 0; i < 9; i++) {
      const res = await request(api.server).post('/api/v1/campaigns').set(bearer(i % 4 === 3 ? other.key : own.key)).send(broadcast(`c${i}`));
      expect(res.status).toBe(201);
      made.push(res.body.campaign_id);
    }
    const { campaigns } = campaignCollections(api.db);
    // Records as they were before the entries existed: some finished, two changed at the same instant (ties go by id).
    await campaignEntriesCollection(api.db).deleteMany({});
    const tie = new Date(base + 5_000);
    for (const [i, id] of made.entries()) {
      const status: CampaignStatus = i % 3 === 0 ? 'completed' : i % 3 === 1 ? 'draft' : 'archived';
      await campaigns.updateOne({ _id: id }, { $set: { status, updated_at: i === 1 || i === 2 ? tie : new Date(base + i * 60_000) } });
    }
    await check(own);
    await check(other);

    await backfillCampaignEntries(api.db);
    const stored = await campaigns.find({ _id: { $in: made } }).toArray();
    expect((await campaignEntriesCollection(api.db).find({}).toArray()).map((e) => e._id).sort()).toEqual(stored.flatMap(campaignKeys).sort());
    await check(own);
    await check(other);

    // Versions move campaigns: a draft edited to the top, a completed one archived, one moved below the rest, one running.
    const ownIds = made.filter((_, i) => i % 4 !== 3);
    await version(own.workspaceId, ownIds[1]!, { name: 'edited' }, new Date(base + 3_600_000));
    await version(own.workspaceId, ownIds[0]!, { status: 'archived' }, new Date(base + 3_700_000));
    await version(own.workspaceId, ownIds[3]!, { status: 'running' }, new Date(base - 60_000));
    await check(own);
    await check(other);
    // The old keys went with each move: two entries per campaign, each its current place.
    const now = await campaigns.find({ _id: { $in: made } }).toArray();
    expect((await campaignEntriesCollection(api.db).find({}).toArray()).map((e) => e._id).sort()).toEqual(now.flatMap(campaignKeys).sort());

    // A new campaign writes its entries with it and is first.
    const fresh = await request(api.server).post('/api/v1/campaigns').set(bearer(own.key)).send(broadcast('fresh'));
    expect(fresh.status).toBe(201);
    expect((await walkPublic(own, { limit: 1 }))[0]).toBe(fresh.body.campaign_id);
    await check(own);
  });

  it('reads the campaigns collection by _id only: the page of entries, then the page of campaigns', async () => {
    const own = await createTestWorkspace(api.db);
    for (let i = 0; i < 6; i++) expect((await request(api.server).post('/api/v1/campaigns').set(bearer(own.key)).send(broadcast(`p${i}`))).status).toBe(201);
    await backfillCampaignEntries(api.db);
    const monitored = await new MongoClient(api.config.MONGODB_URL, { monitorCommands: true }).connect();
    try {
      const started: CommandStartedEvent[] = [];
      monitored.on('commandStarted', (event) => started.push(event));
      const page = await listCampaigns(monitored.db(api.db.databaseName), own.workspaceId, { limit: 4 });
      expect(page.map((c) => c._id)).toEqual((await expected(own.workspaceId, () => true)).slice(0, 4));
      const finds = started.filter((e) => e.commandName === 'find');
      const onCampaigns = finds.filter((e) => e.command.find === 'campaigns');
      expect(onCampaigns.map((e) => Object.keys(e.command.filter))).toEqual([['_id']]);
      expect(onCampaigns[0]!.command.filter._id.$in).toHaveLength(4);
      const onEntries = finds.filter((e) => e.command.find === 'campaign_entries');
      expect(onEntries).toHaveLength(1);
      expect(onEntries[0]!.command.limit).toBe(4);
    } finally {
      await monitored.close();
    }
  });
});
