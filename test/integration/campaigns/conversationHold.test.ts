import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createCampaignActivities } from '../../../activities/campaigns';
import { campaignCollections, type CampaignDoc } from '../../../src/campaigns/campaign';
import type { SendBatchInput, SendBatchResult } from '../../../src/campaigns/contracts';
import { readRecipientBatch, stageRecipients } from '../../../src/campaigns/staging';
import { collections } from '../../../src/db/collections';
import type { EventPublisher } from '../../../src/events/publisher';
import type { WorkspaceWithHolds } from '../../../src/messaging/conversationHold';
import { settleOrphanedBatchHolds, takeBatchHold } from '../../../src/campaigns/whatsapp/conversationHold';
import { campaignSendIntentKey, sendIntentsCollection } from '../../../src/messaging/sendIntents';
import { lookUpSendChecks, sendWhatsAppMessage } from '../../../src/messaging/sendMessage';
import type { SendAttempt, SendRequest, WhatsAppProvider } from '../../../src/messaging/whatsAppSender';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { insertCampaignDraft, insertContacts, openDbWithWorkspace, zoneOpenAt } from '../../support/campaigns';

/**
 * A campaign batch's conversations held once (src/messaging/conversationHold.ts, over the batch's recipients by src/campaigns/whatsapp/conversationHold.ts), through the
 * real batch activity in the SDK's mock activity context against FerretDB: the counters end
 * at exactly what was sent, whatever refused, died or was suspended along the way.
 */
describe('a campaign batch holds its conversations', () => {
  let opened: Awaited<ReturnType<typeof openDbWithWorkspace>>;
  let events: EventPublisher;
  const db = () => opened.db.db;

  /** Accepts every send, but refuses the numbers in `refuse`; `onSend` runs before each answer. */
  class ScriptedProvider implements WhatsAppProvider {
    readonly name = 'simulator' as const;
    readonly refuse = new Set<string>();
    sent = 0;
    onSend: (n: number) => Promise<void> = () => Promise.resolve();
    async send(request: SendRequest): Promise<SendAttempt> {
      await this.onSend(this.sent + 1);
      if (this.refuse.has(request.to)) {
        return { ok: false, retryable: false, error: { provider_code: 131026, provider_subcode: null, provider_message: 'Message undeliverable', provider_user_message: null } };
      }
      this.sent += 1;
      return { ok: true, messageId: `wamid.TEST${randomBytes(12).toString('hex').toUpperCase()}` };
    }
  }

  beforeAll(async () => {
    opened = await openDbWithWorkspace();
    ({ events } = buildActivityDeps({ db: db(), temporal: {} as Client, taskQueue: 'unused' }));
  });
  afterAll(async () => {
    await opened?.db.drop();
  });

  const tenant = () => opened.workspace._id;
  const workspace = async () => (await collections(db()).workspaces.findOne({ _id: tenant() })) as WorkspaceWithHolds;
  const setPlan = (used: number, included: number, credits: number, suspended = false) =>
    collections(db()).workspaces.updateOne(
      { _id: tenant() },
      { $set: { 'plan.conversations_used': used, 'plan.conversations_included': included, 'plan.prepaid_credits': credits, suspended, conversation_holds: [] } },
    );
  const counters = async () => {
    const w = await workspace();
    return { used: w.plan.conversations_used, credits: w.plan.prepaid_credits, holds: w.conversation_holds ?? [] };
  };

  async function staged(count: number): Promise<CampaignDoc> {
    const people = await insertContacts(db(), tenant(), count);
    const campaign = await insertCampaignDraft(db(), tenant(), { contactIds: people.map((p) => p._id), schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    await stageRecipients(db(), { campaign, workspace: await workspace(), at: new Date() });
    return campaign;
  }

  function batch(provider: WhatsAppProvider, campaign: CampaignDoc, count: number, now = () => new Date(), controlCheckMs?: number): Promise<SendBatchResult> {
    const activities = createCampaignActivities({ db: db(), events, whatsapp: provider, deploymentChannels: ['whatsapp'], now, pace: () => Promise.resolve(), controlCheckMs });
    const input: SendBatchInput = { campaignId: campaign._id, tenantId: tenant(), from: 0, recipients: count, max: 50, plannedStartMs: Date.now(), throttlePerMinute: 600 };
    return new MockActivityEnvironment().run((batchInput: SendBatchInput) => activities.sendCampaignBatch(batchInput), input);
  }

  const intentsOf = async (campaign: CampaignDoc, count: number) =>
    sendIntentsCollection(db())
      .find({ _id: { $in: Array.from({ length: count }, (_, i) => campaignSendIntentKey(tenant(), campaign._id, `${campaign._id}:${i}`)) } })
      .toArray();

  it('holds the batch at its start (the counters show it used) and settles to exactly what was sent', async () => {
    await setPlan(10, 1_000, 7);
    const campaign = await staged(5);
    const provider = new ScriptedProvider();
    const during: Awaited<ReturnType<typeof counters>>[] = [];
    provider.onSend = async () => void during.push(await counters());
    const result = await batch(provider, campaign, 5);
    expect(result).toMatchObject({ kind: 'sent', next: 5, sent: 5 });
    expect(during[0]).toMatchObject({ used: 15, credits: 7, holds: [{ campaign_id: campaign._id, from: 0, positions: 5, included: 5, credit: 0 }] });
    expect(await counters()).toEqual({ used: 15, credits: 7, holds: [] });
    expect((await intentsOf(campaign, 5)).map((i) => i.billed)).toEqual(Array(5).fill('included'));
  });

  it('spills from included conversations to prepaid credits, and a provider refusal gives its conversation back to the hold', async () => {
    await setPlan(98, 100, 10);
    const campaign = await staged(5);
    const provider = new ScriptedProvider();
    const refused = (await readRecipientBatch(db(), campaign._id, 0, 5))[1]!.to;
    provider.refuse.add(refused);
    expect(await batch(provider, campaign, 5)).toMatchObject({ kind: 'sent', sent: 4, failed: 1 });
    // 4 sent: 2 included (the refusal's included conversation went to the next send), 2 credits.
    expect(await counters()).toEqual({ used: 100, credits: 8, holds: [] });
    const billed = (await intentsOf(campaign, 5)).map((i) => String(i.billed)).sort((a, b) => a.localeCompare(b));
    expect(billed).toEqual(['credit', 'credit', 'included', 'included']);
  });

  it('exhausted mid-batch: the sends beyond the allowance are refused allowance_exhausted as before, and the run holds', async () => {
    await setPlan(97, 100, 0);
    const campaign = await staged(5);
    const provider = new ScriptedProvider();
    expect(await batch(provider, campaign, 5)).toEqual({ kind: 'held', next: 3, reason: 'allowance_exhausted' });
    expect(provider.sent).toBe(3);
    expect(await counters()).toEqual({ used: 100, credits: 0, holds: [] });
    expect((await readRecipientBatch(db(), campaign._id, 0, 5)).map((r) => r.state)).toEqual(['sent', 'sent', 'sent', 'queued', 'queued']);
  });

  it('a suspension mid-batch is refused at the next send after the control check; the unused hold goes back', async () => {
    await setPlan(0, 1_000, 0);
    const campaign = await staged(5);
    const provider = new ScriptedProvider();
    provider.onSend = async (n) => {
      if (n === 2) await collections(db()).workspaces.updateOne({ _id: tenant() }, { $set: { suspended: true } });
    };
    // A check before every send (the batch reads the workspace with each control check, CAMPAIGN_CONTROL_CHECK_MS).
    expect(await batch(provider, campaign, 5, () => new Date(), 0)).toEqual({ kind: 'held', next: 2, reason: 'workspace_suspended' });
    expect(provider.sent).toBe(2);
    expect(await counters()).toEqual({ used: 2, credits: 0, holds: [] });
    await collections(db()).workspaces.updateOne({ _id: tenant() }, { $set: { suspended: false } });
  });

  it.each(['paused', 'cancelled'] as const)('a batch whose campaign is %s mid-batch stops before its next send, moves what it sent and gives back the rest of its hold', async (status) => {
    await setPlan(0, 1_000, 0);
    const campaign = await staged(5);
    await campaignCollections(db()).campaigns.updateOne({ _id: campaign._id }, { $set: { status: 'running' } });
    const provider = new ScriptedProvider();
    provider.onSend = async (n) => {
      // The API writes the status once the run has taken the update.
      if (n === 2) await campaignCollections(db()).campaigns.updateOne({ _id: campaign._id }, { $set: { status } });
    };
    expect(await batch(provider, campaign, 5, () => new Date(), 0)).toMatchObject({ kind: 'sent', next: 2, sent: 2, failed: 0, skipped: 0 });
    expect(provider.sent).toBe(2);
    expect((await readRecipientBatch(db(), campaign._id, 0, 5)).map((r) => r.state)).toEqual(['sent', 'sent', 'queued', 'queued', 'queued']);
    expect(await counters()).toEqual({ used: 2, credits: 0, holds: [] });
  });

  /** An attempt that takes a hold, sends `sends` of the batch from it and dies without settling, 140 s ago. */
  async function deadAttempt(campaign: CampaignDoc, provider: WhatsAppProvider, sends: number) {
    const hold = (await takeBatchHold(db(), { tenantId: tenant(), campaignId: campaign._id, from: 0, positions: 5, wanted: 5, now: () => new Date() }))!;
    const template = { name: campaign.template!.name, language: campaign.template!.language };
    const context = { ...(await lookUpSendChecks(db(), tenant(), null, template)), hold };
    for (const doc of (await readRecipientBatch(db(), campaign._id, 0, 5)).slice(0, sends)) {
      await sendWhatsAppMessage(
        { db: db(), events, provider, deploymentChannels: ['whatsapp'], now: () => new Date() },
        {
          tenantId: tenant(),
          to: doc.to,
          template: { ...template, variables: doc.variables },
          intentKey: campaignSendIntentKey(tenant(), campaign._id, doc._id),
          origin: { kind: 'campaign', id: campaign._id, recipientKey: doc._id },
          checked: context,
        },
      );
    }
    hold.record.taken_at = new Date(Date.now() - 140_000);
    await collections(db()).workspaces.updateOne({ _id: tenant() }, { $set: { 'conversation_holds.0.taken_at': hold.record.taken_at } });
    return hold;
  }

  it('an orphaned hold is settled by the retry of its batch: charged once for every send, the dead attempt\'s and the retry\'s', async () => {
    await setPlan(0, 1_000, 0);
    const campaign = await staged(5);
    const provider = new ScriptedProvider();
    await deadAttempt(campaign, provider, 2);
    expect(await counters()).toMatchObject({ used: 5, holds: [{ included: 5 }] });
    expect(await batch(provider, campaign, 5)).toMatchObject({ kind: 'sent', next: 5, sent: 5 });
    expect(provider.sent).toBe(5);
    expect(await counters()).toEqual({ used: 5, credits: 0, holds: [] });
  });

  it('an orphaned hold is settled later (the run\'s recount) with its sent and still-sending intents counted as used', async () => {
    await setPlan(0, 3, 10);
    const campaign = await staged(5);
    const provider = new ScriptedProvider();
    const hold = await deadAttempt(campaign, provider, 4);
    // The fifth was in flight when the attempt died: `sending`, billed from the hold.
    const [fourth] = await intentsOf(campaign, 5).then((all) => all.filter((i) => i._id.endsWith(':3')));
    await sendIntentsCollection(db()).insertOne({ ...fourth!, _id: campaignSendIntentKey(tenant(), campaign._id, `${campaign._id}:4`), state: 'sending', billed: 'credit' });
    expect(await counters()).toMatchObject({ used: 3, credits: 8, holds: [{ id: hold.record.id, included: 3, credit: 2 }] });
    // A young hold may still be serving its attempt: left alone.
    expect(await settleOrphanedBatchHolds(db(), tenant(), campaign._id, new Date(hold.record.taken_at.getTime() + 1_000))).toBe(0);
    expect(await settleOrphanedBatchHolds(db(), tenant(), campaign._id, new Date())).toBe(1);
    expect(await counters()).toEqual({ used: 3, credits: 8, holds: [] });
    // Settled once: a second look changes nothing.
    expect(await settleOrphanedBatchHolds(db(), tenant(), campaign._id, new Date())).toBe(0);
    expect(await counters()).toEqual({ used: 3, credits: 8, holds: [] });
  });

  // Not about holds: this file has the batch harness. Issue 28: paced from its own start, each
  // batch lost the time it started behind its plan.
  it('a batch that starts behind its plan catches up at twice the throttle: the n-th send waits no longer than n × 50 ms at 600 a minute', async () => {
    await setPlan(0, 1_000, 0);
    const campaign = await staged(12);
    const provider = new ScriptedProvider();
    const waits: { sent: number; ms: number }[] = [];
    const activities = createCampaignActivities({
      db: db(),
      events,
      whatsapp: provider,
      deploymentChannels: ['whatsapp'],
      now: () => new Date(),
      pace: (ms) => {
        waits.push({ sent: provider.sent, ms });
        return Promise.resolve();
      },
    });
    const input: SendBatchInput = { campaignId: campaign._id, tenantId: tenant(), from: 0, recipients: 12, max: 50, plannedStartMs: Date.now() - 5_000, throttlePerMinute: 600 };
    const result = await new MockActivityEnvironment().run((batchInput: SendBatchInput) => activities.sendCampaignBatch(batchInput), input);
    expect(result).toMatchObject({ kind: 'sent', next: 12, sent: 12, nextSendAtMs: input.plannedStartMs + 1_200 });
    expect(waits.filter((w) => w.ms > w.sent * 50)).toEqual([]);
  });
});
