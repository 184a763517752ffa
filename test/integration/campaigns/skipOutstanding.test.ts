import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createCampaignActivities } from '../../../activities/campaigns';
import type { CampaignDoc } from '../../../src/campaigns/campaign';
import { stageRecipients, stagingCollections } from '../../../src/campaigns/staging';
import { BULK_WRITE_MAX } from '../../../src/db/bulkWrite';
import { collections } from '../../../src/db/collections';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, openDbWithWorkspace, zoneOpenAt } from '../../support/campaigns';

/**
 * The cancel's skip step (activities/campaigns.ts `skipOutstanding`) in the SDK's mock
 * activity context against FerretDB: writes of `BULK_WRITE_MAX`, the position reached
 * heartbeated after each, and a retried attempt going on from the last heartbeat (issue 24).
 */
describe('skipOutstanding', () => {
  let opened: Awaited<ReturnType<typeof openDbWithWorkspace>>;
  const db = () => opened.db.db;
  const tenant = () => opened.workspace._id;

  beforeAll(async () => {
    opened = await openDbWithWorkspace();
  });
  afterAll(async () => {
    await opened?.db.drop();
  });

  async function staged(count: number): Promise<CampaignDoc> {
    const people = await insertContacts(db(), tenant(), count);
    const campaign = await insertCampaignDraft(db(), tenant(), { contactIds: people.map((p) => p._id), schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    const workspace = (await collections(db()).workspaces.findOne({ _id: tenant() }))!;
    await stageRecipients(db(), { campaign, workspace, at: new Date() });
    return campaign;
  }

  /** Runs the step once, as an attempt whose last heartbeat (if any) was `heartbeatDetails`; answers its result and heartbeats. */
  async function skip(campaign: CampaignDoc, count: number, heartbeatDetails?: number) {
    const { events } = buildActivityDeps({ db: db(), temporal: {} as Client, taskQueue: 'unused' });
    const activities = createCampaignActivities({ db: db(), events, whatsapp: new CountingWhatsAppProvider(), deploymentChannels: ['whatsapp'] });
    const env = new MockActivityEnvironment(heartbeatDetails === undefined ? {} : { heartbeatDetails });
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const input = { campaignId: campaign._id, tenantId: tenant(), from: 0, recipients: count, at: '2026-01-02T03:04:05.000Z' };
    const reached = await env.run((i: typeof input) => activities.skipOutstanding(i), input);
    return { reached, beats };
  }

  const states = async (campaign: CampaignDoc) =>
    (await stagingCollections(db()).recipients.find({ campaign_id: campaign._id }).sort({ position: 1 }).toArray()).map((r) => [r.state, r.skip_reason]);

  it(`skips everyone queued in writes of ${BULK_WRITE_MAX}, heartbeating the position reached after each`, async () => {
    const campaign = await staged(2 * BULK_WRITE_MAX + 10);
    const { reached, beats } = await skip(campaign, 2 * BULK_WRITE_MAX + 10);
    expect(reached).toBe(2 * BULK_WRITE_MAX + 10);
    expect(beats).toEqual([BULK_WRITE_MAX, 2 * BULK_WRITE_MAX, 2 * BULK_WRITE_MAX + 10]);
    expect(await states(campaign)).toEqual(Array.from({ length: 2 * BULK_WRITE_MAX + 10 }, () => ['skipped', 'cancelled']));
    const first = await stagingCollections(db()).recipients.findOne({ campaign_id: campaign._id, position: 0 });
    expect(first?.state_at).toEqual(new Date('2026-01-02T03:04:05.000Z'));
  });

  it('a retried attempt goes on from the last position heartbeated', async () => {
    const campaign = await staged(2 * BULK_WRITE_MAX);
    const { reached, beats } = await skip(campaign, 2 * BULK_WRITE_MAX, BULK_WRITE_MAX);
    expect(reached).toBe(2 * BULK_WRITE_MAX);
    expect(beats).toEqual([2 * BULK_WRITE_MAX]);
    expect(await states(campaign)).toEqual([
      ...Array.from({ length: BULK_WRITE_MAX }, () => ['queued', null]),
      ...Array.from({ length: BULK_WRITE_MAX }, () => ['skipped', 'cancelled']),
    ]);
  });
});
