import type { Client } from '@temporalio/client';
import type { CampaignDoc } from '../../../src/campaigns/campaign';
import { stageRecipients, stagingCollections } from '../../../src/campaigns/staging';
import { stepVoiceCampaign } from '../../../src/campaigns/voice/step';
import { sendCampaignBatch } from '../../../src/campaigns/whatsapp/sendBatch';
import { collections } from '../../../src/db/collections';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, insertVoiceCampaignDraft, openDbWithWorkspace, zoneOpenAt } from '../../support/campaigns';

/**
 * The WhatsApp batch and the call campaign's step are use cases in src/campaigns (issue 25):
 * called here as plain functions, with no Temporal worker, activity context or server; the
 * runner's waits and progress reports are plain callbacks.
 */
describe('campaign run steps as use cases, without Temporal', () => {
  let opened: Awaited<ReturnType<typeof openDbWithWorkspace>>;
  const db = () => opened.db.db;
  const tenant = () => opened.workspace._id;
  const noTemporal = {} as Client;

  beforeAll(async () => {
    opened = await openDbWithWorkspace();
  });
  afterAll(async () => {
    await opened?.db.drop();
  });

  async function stage(campaign: CampaignDoc): Promise<void> {
    const workspace = (await collections(db()).workspaces.findOne({ _id: tenant() }))!;
    await stageRecipients(db(), { campaign, workspace, at: new Date() });
  }

  const states = async (campaign: CampaignDoc) =>
    (await stagingCollections(db()).recipients.find({ campaign_id: campaign._id }).sort({ position: 1 }).toArray()).map((r) => [r.state, r.skip_reason ?? null]);

  it('a WhatsApp batch sends its recipients, reporting the position after each', async () => {
    const people = await insertContacts(db(), tenant(), 4);
    const campaign = await insertCampaignDraft(db(), tenant(), { contactIds: people.map((p) => p._id), schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    await stage(campaign);
    const { events } = buildActivityDeps({ db: db(), temporal: noTemporal, taskQueue: 'unused' });
    const provider = new CountingWhatsAppProvider();
    const beats: number[] = [];
    const result = await sendCampaignBatch(
      { db: db(), events, whatsapp: provider, deploymentChannels: ['whatsapp'], now: () => new Date(), controlCheckMs: 60_000 },
      { campaignId: campaign._id, tenantId: tenant(), from: 0, max: 10, recipients: 4, plannedStartMs: Date.now(), throttlePerMinute: 600 },
      { pace: () => Promise.resolve(), heartbeat: (next) => beats.push(next) },
    );
    expect(result).toMatchObject({ kind: 'sent', next: 4, sent: 4, failed: 0, skipped: 0 });
    expect(beats).toEqual([1, 2, 3, 4]);
    expect(provider.total()).toBe(4);
    expect(await states(campaign)).toEqual(Array.from({ length: 4 }, () => ['sent', null]));
  });

  it('a cancelled call campaign step skips the people waiting for their window without placing a call', async () => {
    const people = await insertContacts(db(), tenant(), 3);
    const campaign = await insertVoiceCampaignDraft(db(), tenant(), { contactIds: people.map((p) => p._id), agentId: 'agt_unused' });
    await stage(campaign);
    const beats: number[] = [];
    const result = await stepVoiceCampaign(
      { db: db(), temporal: noTemporal, taskQueue: 'unused', deploymentChannels: ['voice'], now: () => new Date() },
      { campaignId: campaign._id, tenantId: tenant(), recipients: 3, cursor: 3, active: [], dueCallBacks: [], max: 0, nowMs: Date.now(), throttlePerMinute: 10, dropCallBacks: [], dropWaiting: [0, 2] },
      { pace: () => Promise.resolve(), heartbeat: (position) => beats.push(position) },
    );
    expect(result).toMatchObject({ cursor: 3, active: [], placed: 0, held: null, waitingForPlace: false });
    expect(beats).toEqual([]);
    expect(await states(campaign)).toEqual([
      ['skipped', 'cancelled'],
      ['queued', null],
      ['skipped', 'cancelled'],
    ]);
  });
});
