import request from 'supertest';
import { campaignCollections, type CampaignDoc } from '../../../src/campaigns/campaign';
import { recount } from '../../../src/campaigns/progress';
import { moveQueuedRecipients } from '../../../src/campaigns/recipients';
import { recipientId, stageRecipients, stagingCollections } from '../../../src/campaigns/staging';
import { lateRecountOffsetMs, lateRecountsCollection, recountDueCampaigns, scheduleLateRecounts } from '../../../src/campaigns/whatsapp/lateRecounts';
import { collections } from '../../../src/db/collections';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { startTestApi, type TestApi } from '../../support/app';
import { insertCampaignDraft, insertContacts } from '../../support/campaigns';
import { bearer } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * A recipient left behind its message (FerretDB lost a status's write to the run's `queued → sent`
 * landing in the same instant: 35 of 2,000 people in `npm run cluster:kill`) catches up at the
 * campaign's next late recount, so the counters end exact: src/campaigns/whatsapp/recipientsCatchUp.ts.
 */
describe('recipients left behind their messages catch up at the late recount', () => {
  let api: TestApi;
  let ws: TestWorkspace;

  beforeAll(async () => {
    api = await startTestApi();
    ws = await createTestWorkspace(api.db);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('sent recipients whose messages read read or delivered move to the status of their message, one whose message is still sent stays; the counters follow; the next pass changes nothing', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 5);
    const draft = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id) });
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    await stageRecipients(api.db, { campaign: draft, workspace, at: new Date() });
    const endedAt = new Date();
    await campaignCollections(api.db).campaigns.updateOne({ _id: draft._id }, { $set: { status: 'completed' as CampaignDoc['status'], recipients: 5, launched_at: endedAt } });
    const messageId = (n: number) => `wamid.${draft._id}.${n}`;
    // The run's writes: everyone sent. The messages' statuses as recorded: 0–2 read (their
    // recipients' moves lost), 3 delivered (lost), 4 still sent.
    await moveQueuedRecipients(api.db, [0, 1, 2, 3, 4].map((n) => ({ id: recipientId(draft._id, n), to: 'sent' as const, at: endedAt, messageId: messageId(n) })));
    const statuses = ['read', 'read', 'read', 'delivered', 'sent'] as const;
    await outboundMessagesCollection(api.db).insertMany(
      statuses.map((status, n) => ({ _id: messageId(n), tenant_id: ws.workspaceId, status, status_at: endedAt, created_at: endedAt }) as never),
    );
    await recount(api.db, { campaignId: draft._id, tenantId: ws.workspaceId, recipients: 5, chunks: 'all', at: endedAt });
    const publicCounters = async () => {
      const res = await request(api.server).get(`/api/v1/campaigns/${draft._id}`).set(bearer(ws.key));
      expect(res.status).toBe(200);
      const { sent, delivered, read, failed, skipped } = res.body as Record<string, number>;
      return { sent, delivered, read, failed, skipped };
    };
    expect(await publicCounters()).toEqual({ sent: 5, delivered: 0, read: 0, failed: 0, skipped: 0 });

    await scheduleLateRecounts(api.db, { campaignId: draft._id, tenantId: ws.workspaceId, recipients: 5, at: endedAt });
    expect(await recountDueCampaigns(api.db, new Date(endedAt.getTime() + lateRecountOffsetMs(0)))).toBe(1);

    const states = async () =>
      (await stagingCollections(api.db).recipients.find({ campaign_id: draft._id }).sort({ _id: 1 }).toArray()).map((r) => [r._id, r.state]);
    expect(await states()).toEqual([0, 1, 2, 3, 4].map((n) => [recipientId(draft._id, n), statuses[n]]));
    expect(await publicCounters()).toEqual({ sent: 5, delivered: 4, read: 3, failed: 0, skipped: 0 });
    expect((await lateRecountsCollection(api.db).findOne({ campaign_id: draft._id }))?.step).toBe(1);

    // The next recount finds them caught up and moves nothing back.
    expect(await recountDueCampaigns(api.db, new Date(endedAt.getTime() + lateRecountOffsetMs(1)))).toBe(1);
    expect(await states()).toEqual([0, 1, 2, 3, 4].map((n) => [recipientId(draft._id, n), statuses[n]]));
    expect(await publicCounters()).toEqual({ sent: 5, delivered: 4, read: 3, failed: 0, skipped: 0 });
  });
});
