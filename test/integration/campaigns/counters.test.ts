import request from 'supertest';
import { campaignCollections, type CampaignDoc } from '../../../src/campaigns/campaign';
import { campaignCounters, progressCollection, recount } from '../../../src/campaigns/progress';
import { advanceRecipients, moveQueuedRecipients } from '../../../src/campaigns/recipients';
import { recipientId, stageRecipients } from '../../../src/campaigns/staging';
import { collections } from '../../../src/db/collections';
import { startTestApi, type TestApi } from '../../support/app';
import { insertCampaignDraft, insertContacts } from '../../support/campaigns';
import { bearer } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * Issue 27 §1: the public counters are a funnel (`sent` every message that went out,
 * `delivered` within it, `read` within that; `failed` and `skipped` beside), derived from the
 * recipients' states by recounts, and the console adds the recipients by state. Recipients are
 * moved here with the writers the run and the delivery statuses use, then counted as the run
 * counts, and read over HTTP.
 */
describe('campaign counters: a funnel from the recipients’ states', () => {
  let api: TestApi;
  let ws: TestWorkspace;

  beforeAll(async () => {
    api = await startTestApi();
    ws = await createTestWorkspace(api.db);
  });
  afterAll(async () => {
    await api?.close();
  });

  /** A campaign of `count` staged people, with the given status, never run (the test moves its recipients). */
  async function staged(count: number, status: CampaignDoc['status']): Promise<CampaignDoc> {
    const people = await insertContacts(api.db, ws.workspaceId, count);
    const draft = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id) });
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    await stageRecipients(api.db, { campaign: draft, workspace, at: new Date() });
    await campaignCollections(api.db).campaigns.updateOne({ _id: draft._id }, { $set: { status, recipients: count, launched_at: new Date() } });
    return { ...draft, status, recipients: count };
  }

  const id = (c: CampaignDoc, n: number) => recipientId(c._id, n);
  const sendAll = (c: CampaignDoc, count: number) =>
    moveQueuedRecipients(
      api.db,
      Array.from({ length: count }, (_, n) => ({ id: id(c, n), to: 'sent' as const, at: new Date(), messageId: `wamid.${c._id}.${n}` })),
    );
  const status = (c: CampaignDoc, positions: number[], to: 'delivered' | 'read' | 'failed') =>
    advanceRecipients(
      api.db,
      positions.map((n) => ({ id: id(c, n), to, at: new Date(), messageId: `wamid.${c._id}.${n}` })),
    );
  const count = (c: CampaignDoc, chunks: 'all' | 'movable') => recount(api.db, { campaignId: c._id, tenantId: ws.workspaceId, recipients: c.recipients, chunks, at: new Date() });

  const counters = (body: Record<string, unknown>) => ({ sent: body.sent, delivered: body.delivered, read: body.read, failed: body.failed, skipped: body.skipped });
  const publicRead = async (c: CampaignDoc) => {
    const res = await request(api.server).get(`/api/v1/campaigns/${c._id}`).set(bearer(ws.key));
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown>;
  };
  const consoleRead = async (c: CampaignDoc) => {
    const res = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/campaigns/${c._id}`).set(bearer(api.config.CONSOLE_TOKEN!));
    expect(res.status).toBe(200);
    return res.body as Record<string, unknown>;
  };

  it('six sent, five of them read: sent 6, delivered 5, read 5; the console adds the recipients by state', async () => {
    const c = await staged(6, 'completed');
    await sendAll(c, 6);
    await status(c, [0, 1, 2, 3, 4], 'delivered');
    await status(c, [0, 1, 2, 3, 4], 'read');
    await count(c, 'all');

    const shown = await publicRead(c);
    expect(counters(shown)).toEqual({ sent: 6, delivered: 5, read: 5, failed: 0, skipped: 0 });
    // The public record stays the contract's: no per-state object.
    expect(shown.states).toBeUndefined();
    const inConsole = await consoleRead(c);
    expect(inConsole).toMatchObject({
      sent: 6,
      delivered: 5,
      read: 5,
      counters: { sent: 6, delivered: 5, read: 5, failed: 0, skipped: 0 },
      states: { queued: 0, sent: 1, delivered: 0, read: 5, failed: 0, skipped: 0 },
    });
    const list = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/campaigns?limit=100`).set(bearer(api.config.CONSOLE_TOKEN!));
    expect(list.body.items.find((i: { campaign_id: string }) => i.campaign_id === c._id)).toMatchObject({
      sent: 6,
      read: 5,
      states: { queued: 0, sent: 1, delivered: 0, read: 5, failed: 0, skipped: 0 },
    });
  });

  it('a late status moves delivered and read, never sent; a repeated recount changes nothing', async () => {
    const c = await staged(6, 'completed');
    await sendAll(c, 6);
    await status(c, [0, 1, 2], 'read');
    await count(c, 'all');
    expect(counters(await publicRead(c))).toEqual({ sent: 6, delivered: 3, read: 3, failed: 0, skipped: 0 });

    // After completion, as the run's settling recounts find them.
    await status(c, [3, 4], 'delivered');
    await count(c, 'movable');
    expect(counters(await publicRead(c))).toEqual({ sent: 6, delivered: 5, read: 3, failed: 0, skipped: 0 });
    await status(c, [3], 'read');
    // A repeated (or late, out of order) status changes nothing: a recipient only moves forward.
    await status(c, [0, 3], 'delivered');
    await count(c, 'movable');
    await count(c, 'all');
    await count(c, 'movable');
    expect(counters(await publicRead(c))).toEqual({ sent: 6, delivered: 5, read: 4, failed: 0, skipped: 0 });
    expect(await campaignCounters(api.db, c._id)).toEqual({ sent: 6, delivered: 5, read: 4, failed: 0, skipped: 0 });
    expect((await consoleRead(c)).states).toEqual({ queued: 0, sent: 1, delivered: 1, read: 4, failed: 0, skipped: 0 });
  });

  it('a message that went out and then failed is in sent and in failed; one refused at send only in failed', async () => {
    const c = await staged(4, 'completed');
    await sendAll(c, 3);
    await status(c, [2], 'failed');
    await moveQueuedRecipients(api.db, [{ id: id(c, 3), to: 'failed', at: new Date(), reason: 'provider_error' }]);
    await count(c, 'all');
    expect(counters(await publicRead(c))).toEqual({ sent: 3, delivered: 0, read: 0, failed: 2, skipped: 0 });
    expect((await consoleRead(c)).states).toEqual({ queued: 0, sent: 2, delivered: 0, read: 0, failed: 2, skipped: 0 });
  });

  it('a progress document counted before the funnel reads as a funnel, summed from its chunks', async () => {
    const c = await staged(150, 'completed');
    const chunk = (sent: number, delivered: number, read: number) => ({ queued: 0, sent, delivered, read, failed: 0, skipped: 0, calling: 0, called: 0 });
    await progressCollection(api.db).insertOne({
      _id: c._id,
      tenant_id: ws.workspaceId,
      chunks: { 0: chunk(10, 20, 70), 1: chunk(0, 10, 40) },
      counters: { sent: 10, delivered: 30, read: 110, failed: 0, skipped: 0 },
      updated_at: new Date(),
    });
    expect(counters(await publicRead(c))).toEqual({ sent: 150, delivered: 140, read: 110, failed: 0, skipped: 0 });
    expect((await consoleRead(c)).states).toEqual({ queued: 0, sent: 10, delivered: 30, read: 110, failed: 0, skipped: 0 });
  });

  it('a cancelled campaign shows its outstanding recipients as skipped before the run has skipped them', async () => {
    // Cancelled before any count: everyone staged is outstanding.
    const never = await staged(5, 'cancelled');
    expect(counters(await publicRead(never))).toEqual({ sent: 0, delivered: 0, read: 0, failed: 0, skipped: 5 });
    expect((await consoleRead(never)).states).toEqual({ queued: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 5 });

    // Two sent and counted, one failed at send; the three still queued will be skipped by the run.
    const c = await staged(6, 'running');
    await sendAll(c, 2);
    await moveQueuedRecipients(api.db, [{ id: id(c, 2), to: 'failed', at: new Date(), reason: 'provider_error' }]);
    await count(c, 'all');
    expect((await consoleRead(c)).states).toEqual({ queued: 3, sent: 2, delivered: 0, read: 0, failed: 1, skipped: 0 });
    await campaignCollections(api.db).campaigns.updateOne({ _id: c._id }, { $set: { status: 'cancelled' } });
    const answered = counters(await publicRead(c));
    expect(answered).toEqual({ sent: 2, delivered: 0, read: 0, failed: 1, skipped: 3 });
    // The run's skip pass and final count confirm it.
    await moveQueuedRecipients(
      api.db,
      [3, 4, 5].map((n) => ({ id: id(c, n), to: 'skipped' as const, at: new Date(), reason: 'cancelled' as const })),
    );
    await count(c, 'all');
    expect(await campaignCounters(api.db, c._id)).toEqual(answered);
    expect(counters(await publicRead(c))).toEqual(answered);
  });
});
