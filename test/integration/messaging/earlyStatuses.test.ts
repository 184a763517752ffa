import { createHmac } from 'node:crypto';
import type { Client } from '@temporalio/client';
import request from 'supertest';
import { stageRecipients, stagingCollections } from '../../../src/campaigns/staging';
import { sendCampaignBatch } from '../../../src/campaigns/whatsapp/sendBatch';
import { collections } from '../../../src/db/collections';
import { PARKED_STATUS_TTL_MS, parkStatuses, parkedStatusesCollection, settleParkedStatuses } from '../../../src/messaging/earlyStatuses';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { CloudWhatsAppProvider } from '../../../src/providers/whatsapp/cloud';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { useTestApi } from '../../support/app';
import { insertCampaignDraft, insertContacts, zoneOpenAt } from '../../support/campaigns';
import { FakeGraph } from '../../support/fakeGraph';
import { bearer } from '../../support/http';
import { eventsOf } from '../../support/messaging';

const APP_SECRET = 'test-app-secret';

/**
 * Issue 32: the Cloud API posts a message's `sent` (and often more) as it accepts the send,
 * before the sender has its answer, and never posts it again. The fake Graph API here posts
 * `sent` and `delivered` to the webhook and waits for the webhook's answer before it answers
 * the send, so every status reaches the service before the message it names is recorded.
 */
describe('statuses the Cloud API posts before the send is recorded', () => {
  const graph = new FakeGraph();
  let baseUrl = '';
  let n = 0;
  const fresh = () => `9194${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  beforeAll(async () => {
    baseUrl = await graph.start();
  });
  afterAll(async () => {
    await graph.stop();
  });
  const { api, ws } = useTestApi(() => ({
    env: {
      WHATSAPP_PROVIDER: 'cloud',
      WHATSAPP_CLOUD_BASE_URL: baseUrl,
      WHATSAPP_CLOUD_ACCESS_TOKEN: 'graph-token',
      WHATSAPP_CLOUD_PHONE_NUMBER_ID: '1001',
      WHATSAPP_CLOUD_APP_SECRET: APP_SECRET,
      WHATSAPP_CLOUD_VERIFY_TOKEN: 'test-verify-token',
      // The webhook round trip happens inside the send's request: room for a loaded machine.
      WHATSAPP_CLOUD_TIMEOUT_MS: '30000',
    },
  }));

  function webhook(payload: unknown) {
    const raw = Buffer.from(JSON.stringify(payload));
    return request(api.server)
      .post('/webhooks/whatsapp')
      .set('content-type', 'application/json')
      .set('X-Hub-Signature-256', `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`)
      .send(raw.toString('utf8'));
  }
  const statuses = (list: Record<string, unknown>[]) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: 'WABA1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001001', phone_number_id: '1001' }, statuses: list } }] }],
  });
  const seconds = () => String(Math.floor(Date.now() / 1000));

  /** The webhook's answers to the statuses posted before each send was answered. */
  const answers: { status: number; body: unknown }[] = [];
  beforeEach(() => {
    answers.length = 0;
    graph.beforeAnswer = async (id, body) => {
      const to = String(body.to);
      for (const status of ['sent', 'delivered']) {
        const res = await webhook(statuses([{ id, status, timestamp: seconds(), recipient_id: to }]));
        answers.push({ status: res.status, body: res.body });
      }
    };
  });
  afterEach(() => {
    graph.beforeAnswer = null;
  });

  it('a message sent through POST /messages reaches delivered, its statuses parked then applied', async () => {
    const to = fresh();
    const sent = await request(api.server).post('/api/v1/messages').set(bearer(ws.key)).send({ to, template: { name: 'welcome' } });
    expect(sent.status).toBe(201);
    const id = sent.body.message_id as string;
    expect(await outboundMessagesCollection(api.db).findOne({ _id: id })).toMatchObject({ status: 'delivered' });
    const events = (await eventsOf(api.db, ws.workspaceId, 'message.status')).filter((e) => e.data.message_id === id);
    expect(events.map((e) => String(e.data.status)).sort()).toEqual(['delivered', 'sent']);
    expect(await parkedStatusesCollection(api.db).countDocuments({ message_id: id })).toBe(0);
    // Both came before the message was recorded: parked, not skipped.
    expect(answers).toEqual([
      { status: 200, body: { status: 'ok', applied: 0, parked: 1, skipped: 0 } },
      { status: 200, body: { status: 'ok', applied: 0, parked: 1, skipped: 0 } },
    ]);

    // A redelivery of a status now finds the message: applied, nothing parked, nothing new.
    graph.beforeAnswer = null;
    const again = await webhook(statuses([{ id, status: 'delivered', timestamp: seconds(), recipient_id: to }]));
    expect(again.body).toEqual({ status: 'ok', applied: 1, parked: 0, skipped: 0 });
    expect((await eventsOf(api.db, ws.workspaceId, 'message.status')).filter((e) => e.data.message_id === id)).toHaveLength(2);
  });

  it('a campaign recipient reaches delivered when its statuses come before the batch recorded the send', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 2);
    const campaign = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    await stageRecipients(api.db, { campaign, workspace, at: new Date() });
    const { events } = buildActivityDeps({ db: api.db, temporal: {} as Client, taskQueue: 'unused' });
    const whatsapp = new CloudWhatsAppProvider({ baseUrl, accessToken: 'graph-token', phoneNumberId: '1001', phoneNumberIds: {}, timeoutMs: 30_000 });
    const result = await sendCampaignBatch(
      { db: api.db, events, whatsapp, deploymentChannels: ['whatsapp'], now: () => new Date(), controlCheckMs: 60_000 },
      { campaignId: campaign._id, tenantId: ws.workspaceId, from: 0, max: 10, recipients: 2, plannedStartMs: Date.now(), throttlePerMinute: 600 },
      { pace: () => Promise.resolve(), heartbeat: () => undefined },
    );
    expect(result).toMatchObject({ kind: 'sent', sent: 2, failed: 0 });
    const recipients = await stagingCollections(api.db).recipients.find({ campaign_id: campaign._id }).sort({ position: 1 }).toArray();
    expect(recipients.map((r) => r.state)).toEqual(['delivered', 'delivered']);
    const messages = await outboundMessagesCollection(api.db).find({ campaign_id: campaign._id }).toArray();
    expect(messages.map((m) => m.status)).toEqual(['delivered', 'delivered']);
    expect(answers.map((a) => a.body)).toEqual(Array.from({ length: 4 }, () => ({ status: 'ok', applied: 0, parked: 1, skipped: 0 })));
  });

  it('a status parked just as its message is recorded is applied by the parking side (whichever writes second applies)', async () => {
    graph.beforeAnswer = null;
    const sent = await request(api.server).post('/api/v1/messages').set(bearer(ws.key)).send({ to: fresh(), template: { name: 'welcome' } });
    const id = sent.body.message_id as string;
    // The webhook's read found no message; the send then recorded it and found nothing parked; the webhook parks now.
    const { events } = buildActivityDeps({ db: api.db, temporal: {} as Client, taskQueue: 'unused' });
    expect(await parkStatuses({ db: api.db, events }, id, [{ status: 'delivered', at: new Date(), error: null }], new Date())).toBe(true);
    expect(await outboundMessagesCollection(api.db).findOne({ _id: id })).toMatchObject({ status: 'delivered' });
    expect(await parkedStatusesCollection(api.db).countDocuments({ message_id: id })).toBe(0);
  });

  it('the retention pass applies statuses whose message appeared, and deletes those unmatched after a day', async () => {
    graph.beforeAnswer = null;
    const to = fresh();
    const sent = await request(api.server).post('/api/v1/messages').set(bearer(ws.key)).send({ to, template: { name: 'welcome' } });
    const id = sent.body.message_id as string;
    // As a send that died after writing its outbound message, before applying what was parked:
    const parked = parkedStatusesCollection(api.db);
    const at = new Date();
    await parked.insertOne({ _id: `${id}|read`, message_id: id, status: 'read', at, error: null, parked_at: at });
    await parked.insertOne({ _id: 'wamid.NEVER|sent', message_id: 'wamid.NEVER', status: 'sent', at, error: null, parked_at: at });
    const { events } = buildActivityDeps({ db: api.db, temporal: {} as Client, taskQueue: 'unused' });
    expect(await settleParkedStatuses({ db: api.db, events })).toEqual({ applied: 1, expired: 0 });
    expect(await outboundMessagesCollection(api.db).findOne({ _id: id })).toMatchObject({ status: 'read' });
    expect(await parked.findOne({ _id: 'wamid.NEVER|sent' })).not.toBeNull();
    const dayLater = () => new Date(at.getTime() + PARKED_STATUS_TTL_MS + 1);
    expect(await settleParkedStatuses({ db: api.db, events, now: dayLater })).toEqual({ applied: 0, expired: 1 });
    expect(await parked.countDocuments({})).toBe(0);
  });
});
