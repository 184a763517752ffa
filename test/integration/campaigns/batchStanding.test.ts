import type { Client } from '@temporalio/client';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import type { CampaignDoc } from '../../../src/campaigns/campaign';
import { stageRecipients, stagingCollections } from '../../../src/campaigns/staging';
import { sendCampaignBatch } from '../../../src/campaigns/whatsapp/sendBatch';
import { collections } from '../../../src/db/collections';
import { recordOptOut } from '../../../src/messaging/optOut';
import type { SendAttempt, SendRequest } from '../../../src/messaging/whatsAppSender';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, openDbWithWorkspace, zoneOpenAt } from '../../support/campaigns';
import { testServers } from '../../support/env';

/**
 * A WhatsApp campaign batch checks its sends against the workspace and its recipients'
 * opt-outs as read at its start and again with each control check (issue 36 §3,
 * docs/decisions/campaigns.md "A campaign batch reads its standing once a second"), not two
 * reads a send; a STOP or a suspension arriving mid-batch still stops the sends after the next
 * check. Commands are counted on a client of its own that reports them.
 */
describe('a campaign batch reads the workspace and opt-outs per check, not per send', () => {
  let opened: Awaited<ReturnType<typeof openDbWithWorkspace>>;
  let client: MongoClient;
  let watched: Db;
  const commands: string[] = [];
  const tenant = () => opened.workspace._id;
  const noTemporal = {} as Client;

  beforeAll(async () => {
    opened = await openDbWithWorkspace();
    client = await new MongoClient(testServers.mongoUrl(), { monitorCommands: true }).connect();
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (['insert', 'update', 'delete', 'find'].includes(e.commandName)) commands.push(`${e.commandName} ${String(e.command[e.commandName])}`);
    });
    watched = client.db(opened.db.db.databaseName);
  });
  afterAll(async () => {
    await client?.close();
    await opened?.db.drop();
  });

  async function stagedCampaign(count: number): Promise<{ campaign: CampaignDoc; phones: string[] }> {
    const people = await insertContacts(watched, tenant(), count);
    const campaign = await insertCampaignDraft(watched, tenant(), { contactIds: people.map((p) => p._id), schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    const workspace = (await collections(watched).workspaces.findOne({ _id: tenant() }))!;
    await stageRecipients(watched, { campaign, workspace, at: new Date() });
    return { campaign, phones: people.map((p) => p.phone!) };
  }

  function batch(campaign: CampaignDoc, recipients: number, provider: CountingWhatsAppProvider, controlCheckMs: number) {
    const { events } = buildActivityDeps({ db: watched, temporal: noTemporal, taskQueue: 'unused' });
    return sendCampaignBatch(
      { db: watched, events, whatsapp: provider, deploymentChannels: ['whatsapp'], now: () => new Date(), controlCheckMs },
      { campaignId: campaign._id, tenantId: tenant(), from: 0, max: 10, recipients, plannedStartMs: Date.now(), throttlePerMinute: 600 },
      { pace: () => Promise.resolve(), heartbeat: () => undefined },
    );
  }

  const states = async (campaign: CampaignDoc) =>
    (await stagingCollections(watched).recipients.find({ campaign_id: campaign._id }).sort({ position: 1 }).toArray()).map((r) => [r.state, r.skip_reason ?? null]);

  it('sends six with the batch\'s reads of the workspace and one read of the opt-outs', async () => {
    const { campaign } = await stagedCampaign(6);
    const provider = new CountingWhatsAppProvider();
    commands.length = 0;
    const result = await batch(campaign, 6, provider, 60_000);
    expect(result).toMatchObject({ kind: 'sent', next: 6, sent: 6 });
    expect(provider.total()).toBe(6);
    // The batch's own workspace read and its conversation hold's take and settle; before, one more of each per send (9 and 6).
    expect(commands.filter((c) => c === 'find workspaces')).toHaveLength(3);
    expect(commands.filter((c) => c === 'find suppressions')).toHaveLength(1);
  });

  it('tells the provider its recipients before their sends, once', async () => {
    const { campaign, phones } = await stagedCampaign(3);
    const told: string[][] = [];
    const provider = new (class extends CountingWhatsAppProvider {
      prepare(tenantId: string, recipients: readonly string[]): Promise<void> {
        expect(tenantId).toBe(tenant());
        expect(this.total()).toBe(0);
        told.push([...recipients]);
        return Promise.resolve();
      }
    })();
    expect(await batch(campaign, 3, provider, 60_000)).toMatchObject({ kind: 'sent', sent: 3 });
    expect(told).toEqual([phones]);
  });

  it('skips a recipient who replied STOP after the batch began, from the next check on', async () => {
    const { campaign, phones } = await stagedCampaign(4);
    // The first send's provider call: the third recipient replies STOP meanwhile.
    const provider = new (class extends CountingWhatsAppProvider {
      override async send(request: SendRequest): Promise<SendAttempt> {
        if (this.total() === 0) await recordOptOut(watched, { tenantId: tenant(), phone: phones[2]!, sourceMessageId: 'wamid.STOP', at: new Date() });
        return super.send(request);
      }
    })();
    const result = await batch(campaign, 4, provider, 0);
    expect(result).toMatchObject({ kind: 'sent', next: 4, sent: 3, skipped: 1 });
    expect(provider.sends.get(phones[2]!)).toBeUndefined();
    expect(await states(campaign)).toEqual([
      ['sent', null],
      ['sent', null],
      ['skipped', 'suppressed'],
      ['sent', null],
    ]);
  });

  it('holds when the workspace is suspended after the batch began, from the next check on', async () => {
    const { campaign } = await stagedCampaign(3);
    const provider = new (class extends CountingWhatsAppProvider {
      override async send(request: SendRequest): Promise<SendAttempt> {
        if (this.total() === 0) await collections(watched).workspaces.updateOne({ _id: tenant() }, { $set: { suspended: true } });
        return super.send(request);
      }
    })();
    try {
      const result = await batch(campaign, 3, provider, 0);
      expect(result).toEqual({ kind: 'held', next: 1, reason: 'workspace_suspended' });
      expect(provider.total()).toBe(1);
    } finally {
      await collections(watched).workspaces.updateOne({ _id: tenant() }, { $set: { suspended: false } });
    }
  });
});
