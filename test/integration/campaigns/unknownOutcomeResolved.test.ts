import type { AddressInfo } from 'node:net';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { findCampaign } from '../../../src/campaigns/campaign';
import { controlCampaign } from '../../../src/campaigns/control';
import { campaignCounters, progressCollection } from '../../../src/campaigns/progress';
import { readRecipientBatch } from '../../../src/campaigns/staging';
import { lateRecountDoc, lateRecountsCollection, recountDueCampaigns } from '../../../src/campaigns/whatsapp/lateRecounts';
import { collections } from '../../../src/db/collections';
import { createEventPublisher } from '../../../src/events/publisher';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { waitFor } from '../../../src/local/net';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { campaignSendIntentKey, sendIntentsCollection } from '../../../src/messaging/sendIntents';
import { CloudWhatsAppProvider } from '../../../src/providers/whatsapp/cloud';
import { createTemporalDispatcher } from '../../../src/webhooks/dispatcher';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { createWorker } from '../../../src/worker/createWorker';
import { startTestApi, type TestApi } from '../../support/app';
import { insertCampaignDraft, insertContacts, zoneOpenAt } from '../../support/campaigns';
import { testServers } from '../../support/env';
import { FakeGraph } from '../../support/fakeGraph';
import { startWorkerProcess } from '../../support/worker';
import { createTestWorkspace } from '../../support/workspaces';

const APP_SECRET = 'unknown-outcome-app-secret';
const PEOPLE = 3;
/** The tenant of the late recounts made due ahead of this file's campaigns (`dueAheadOfTheCampaign`). */
const FILLER = 'unknown-outcome-filler';

/**
 * Issue 36 §2: a worker dies between the Cloud API's acceptance of a campaign send and its record
 * of the answer (the fake Graph API SIGKILLs the worker process (src/main/worker.ts) as the send
 * arrives, and never answers), so the send's intent stays `sending`. The platform's status
 * webhook, carrying the intent key the send gave as `biz_opaque_callback_data`, resolves it:
 * posted before the batch's retry decides, the retry records the send as sent; posted after the
 * run ended the person `failed outcome_unknown`, it turns them into the message's status. Either
 * way nobody is sent twice, the person points at their message, the counters and the plan's
 * conversations are exact.
 */
describe('a campaign send whose worker died mid-request, resolved from the status webhook', () => {
  let api: TestApi;
  let graph: FakeGraph;
  let graphUrl: string;
  let child: ManagedProcess | null = null;
  let replacement: { worker: Worker; connection: NativeConnection; done: Promise<void> } | null = null;

  beforeAll(async () => {
    graph = new FakeGraph();
    graphUrl = await graph.start();
    api = await startTestApi({ env: { WHATSAPP_CLOUD_APP_SECRET: APP_SECRET, WHATSAPP_CLOUD_VERIFY_TOKEN: 'verify' } });
  });
  afterEach(async () => {
    graph.beforeAnswer = null;
    await child?.stop(1_000);
    child = null;
    if (replacement) {
      replacement.worker.shutdown();
      await replacement.done;
      await replacement.connection.close();
      replacement = null;
    }
  });
  afterAll(async () => {
    if (api) {
      await lateRecountsCollection(api.db).deleteMany({ tenant_id: FILLER });
      await progressCollection(api.db).deleteMany({ tenant_id: FILLER });
    }
    await graph?.stop();
    await api?.close();
  });

  const cloudEnv = () => ({ WHATSAPP_PROVIDER: 'cloud', WHATSAPP_CLOUD_BASE_URL: graphUrl, WHATSAPP_CLOUD_ACCESS_TOKEN: 'test-token', WHATSAPP_CLOUD_PHONE_NUMBER_ID: '1001' });

  /** A campaign of PEOPLE launched on a worker process that the fake kills as the second send arrives; answers once it is dead. */
  async function launchAndKillMidSend() {
    child = await startWorkerProcess(api.config, { logName: 'unknown-outcome-worker', env: cloudEnv() });
    const killed = child;
    const ws = await createTestWorkspace(api.db);
    const people = await insertContacts(api.db, ws.workspaceId, PEOPLE);
    const campaign = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    const before = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.plan.conversations_used;
    const seen: { lost: { messageId: string; to: string } | null } = { lost: null };
    graph.beforeAnswer = async (messageId, body) => {
      if (graph.requests.length !== 2) return;
      seen.lost = { messageId, to: String(body.to) };
      killed.child.kill('SIGKILL');
      // Never answered: the platform has the message, the sender died before hearing of it.
      await new Promise(() => undefined);
    };
    const events = createEventPublisher(api.db, createTemporalDispatcher(api.db, api.temporal, api.config.TEMPORAL_TASK_QUEUE));
    const launched = await controlCampaign(
      { db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE, events, now: () => new Date() },
      { tenantId: ws.workspaceId, campaignId: campaign._id, action: 'launch', request: { expected_version: 1, confirm_recipients: PEOPLE } },
    );
    expect(launched).toMatchObject({ kind: 'done', campaign: { status: 'running' } });
    await killed.exited;
    const lost = seen.lost!;
    expect(lost).toBeDefined();
    const recipients = await readRecipientBatch(api.db, campaign._id, 0, PEOPLE);
    const killedRecipient = recipients.find((r) => r.to.replace(/^\+/, '') === lost.to)!;
    const intentKey = campaignSendIntentKey(ws.workspaceId, campaign._id, killedRecipient._id);
    // The fake echoes what the send gave: the intent key.
    expect(graph.requests.find((r) => r.messageId === lost.messageId)!.body.biz_opaque_callback_data).toBe(intentKey);
    return { ws, campaign, before, lost, recipientId: killedRecipient._id, intentKey };
  }

  function startReplacement() {
    const deps = buildActivityDeps(
      { db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE },
      { whatsapp: new CloudWhatsAppProvider({ baseUrl: graphUrl, accessToken: 'test-token', phoneNumberId: '1001', phoneNumberIds: {}, timeoutMs: 10_000 }) },
    );
    return createWorker({ config: api.config, deps, workflowBundlePath: testServers.workflowBundle() }).then(({ worker, connection }) => {
      replacement = { worker, connection, done: worker.run() };
    });
  }

  async function postStatus(messageId: string, status: 'sent' | 'delivered') {
    const webhook = graph.statusWebhook(messageId, status, { appSecret: APP_SECRET });
    const { port } = api.server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/webhooks/whatsapp`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Hub-Signature-256': webhook.signature }, body: webhook.raw });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /**
   * Other campaigns due ahead of this file's (its database is its own), as a busy workspace's
   * worker meets: a pass takes them first, oldest-due first, and still reaches this one.
   */
  async function dueAheadOfTheCampaign() {
    const endedAt = new Date(Date.now() - 60 * 60_000);
    await lateRecountsCollection(api.db).insertMany(
      Array.from({ length: 20 }, (_, n) => lateRecountDoc({ campaignId: `${FILLER}-${n}`, tenantId: FILLER, recipients: 0, endedAt, step: 0 })),
    );
  }

  /**
   * The workers' passes (here called at the campaign's first recount time, 5 min ahead) until
   * one has recounted this campaign: its late recount moved past step 0. Waited for, not
   * assumed: the run shows `completed` before it hands its late recounts over (a later
   * activity).
   */
  async function firstLateRecount(campaignId: string) {
    const at = new Date(Date.now() + 5 * 60_000);
    await waitFor(
      'the campaign’s first late recount',
      async () => {
        await recountDueCampaigns(api.db, at);
        return ((await lateRecountsCollection(api.db).findOne({ campaign_id: campaignId }))?.step ?? 0) > 0;
      },
      30_000,
      100,
    );
  }

  /** Every person sent once, each pointing at their message; the counters and the plan's conversations exact. */
  async function expectExact(input: { ws: { workspaceId: string }; campaign: { _id: string }; before: number }, delivered: number) {
    const perRecipient = new Map<string, number>();
    for (const r of graph.requests) {
      perRecipient.set(String(r.body.to), (perRecipient.get(String(r.body.to)) ?? 0) + 1);
    }
    const recipients = await readRecipientBatch(api.db, input.campaign._id, 0, PEOPLE);
    expect(recipients.filter((r) => r.skip_reason === 'outcome_unknown')).toEqual([]);
    for (const r of recipients) expect(perRecipient.get(r.to.replace(/^\+/, ''))).toBe(1);
    const messages = await outboundMessagesCollection(api.db).find({ tenant_id: input.ws.workspaceId }).toArray();
    expect(messages).toHaveLength(PEOPLE);
    expect(new Set(recipients.map((r) => r.message_id))).toEqual(new Set(messages.map((m) => m._id)));
    expect(await campaignCounters(api.db, input.campaign._id)).toEqual({ sent: PEOPLE, delivered, read: 0, failed: 0, skipped: 0 });
    const plan = (await collections(api.db).workspaces.findOne({ _id: input.ws.workspaceId }))!.plan;
    expect(plan.conversations_used - input.before).toBe(PEOPLE);
  }

  it('a status before the retry decides: the retry records the send as sent, never sends it again', async () => {
    await dueAheadOfTheCampaign();
    const run = await launchAndKillMidSend();
    // The dead attempt's lease passes (the Idempotency-Key's 5 s); the batch's retry waits for its heartbeat timeout (20 s).
    await waitFor('the dead attempt’s lease over', async () => ((await sendIntentsCollection(api.db).findOne({ _id: run.intentKey }))?.lease_until ?? new Date()) < new Date(), 15_000, 250);
    const answer = await postStatus(run.lost.messageId, 'sent');
    expect(answer).toEqual({ status: 200, body: { status: 'ok', applied: 1, parked: 0, skipped: 0 } });
    expect(await sendIntentsCollection(api.db).findOne({ _id: run.intentKey })).toMatchObject({ state: 'sent', message_id: run.lost.messageId });
    expect(await outboundMessagesCollection(api.db).findOne({ _id: run.lost.messageId })).toMatchObject({ campaign_recipient_id: run.recipientId, status: 'sent', billed: 'included' });

    await startReplacement();
    await waitFor('the campaign completed', async () => (await findCampaign(api.db, run.ws.workspaceId, run.campaign._id))?.status === 'completed', 300_000, 500);
    const recipient = (await readRecipientBatch(api.db, run.campaign._id, 0, PEOPLE)).find((r) => r._id === run.recipientId)!;
    expect(recipient).toMatchObject({ state: 'sent', skip_reason: null, message_id: run.lost.messageId });
    // The first late recount also settles the killed batch's conversation hold (orphaned after 130 s).
    await firstLateRecount(run.campaign._id);
    await expectExact(run, 0);
  }, 400_000);

  it('a status after the run ended the person outcome_unknown: they become their message’s status, counted and billed', async () => {
    graph.requests.length = 0;
    const run = await launchAndKillMidSend();
    await startReplacement();
    await waitFor('the campaign completed', async () => (await findCampaign(api.db, run.ws.workspaceId, run.campaign._id))?.status === 'completed', 300_000, 500);
    expect((await readRecipientBatch(api.db, run.campaign._id, 0, PEOPLE)).find((r) => r._id === run.recipientId)).toMatchObject({ state: 'failed', skip_reason: 'outcome_unknown', message_id: null });
    expect(await campaignCounters(api.db, run.campaign._id)).toEqual({ sent: PEOPLE - 1, delivered: 0, read: 0, failed: 1, skipped: 0 });

    expect(await postStatus(run.lost.messageId, 'sent')).toEqual({ status: 200, body: { status: 'ok', applied: 1, parked: 0, skipped: 0 } });
    // A redelivery of the same status, and the next one.
    expect(await postStatus(run.lost.messageId, 'sent')).toEqual({ status: 200, body: { status: 'ok', applied: 1, parked: 0, skipped: 0 } });
    expect(await postStatus(run.lost.messageId, 'delivered')).toEqual({ status: 200, body: { status: 'ok', applied: 1, parked: 0, skipped: 0 } });
    expect(await outboundMessagesCollection(api.db).findOne({ _id: run.lost.messageId })).toMatchObject({ campaign_recipient_id: run.recipientId, status: 'delivered' });
    // The campaign's late recounts (a worker's pass, here called at the first one's time) bring the
    // person and the counters in, and settle the killed batch's conversation hold.
    await firstLateRecount(run.campaign._id);
    const recipient = (await readRecipientBatch(api.db, run.campaign._id, 0, PEOPLE)).find((r) => r._id === run.recipientId)!;
    expect(recipient).toMatchObject({ state: 'delivered', skip_reason: null, message_id: run.lost.messageId });
    await expectExact(run, 1);
  }, 400_000);
});
