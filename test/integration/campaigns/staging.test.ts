import { campaignCollections, type CampaignDoc } from '../../../src/campaigns/campaign';
import { evaluateCampaign } from '../../../src/campaigns/evaluate';
import { readRecipientBatch, recipientId, STAGING_CHUNK, stageRecipients, stagingCollections } from '../../../src/campaigns/staging';
import { contactCollections, type ContactDoc } from '../../../src/contacts/contacts';
import type { WorkspaceDoc } from '../../../src/db/collections';
import type { EventPublisher } from '../../../src/events/publisher';
import { applyDeliveryStatus } from '../../../src/messaging/deliveryStatus';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { moveQueuedRecipients, type QueuedMove } from '../../../src/campaigns/recipients';
import type { openTestDb } from '../../support/env';
import { broadcastRequest, insertDrafted } from '../../support/campaignDrafts';
import { openDbWithWorkspace } from '../../support/campaigns';

/** Staging on the real FerretDB: keyed by position, pinned once, safe to retry; and the run's moves of a batch. */
describe('stageRecipients', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let workspace: WorkspaceDoc;
  const AT = new Date('2025-03-10T06:00:00Z');

  beforeAll(async () => {
    ({ db, workspace } = await openDbWithWorkspace());
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** `count` contacts written directly (the contacts module's rules are tested elsewhere). */
  async function contacts(count: number, tag: string): Promise<ContactDoc[]> {
    const docs: ContactDoc[] = Array.from({ length: count }, (_, i) => ({
      _id: `cnt_${tag}${String(i).padStart(24 - tag.length, '0')}`,
      tenant_id: workspace._id,
      name: `Person ${i}`,
      email: null,
      phone: `+9196${String(i).padStart(8, '0')}`,
      external_id: null,
      tags: [tag],
      created_at: AT,
      updated_at: AT,
    }));
    await contactCollections(db.db).contacts.insertMany(docs);
    return docs;
  }

  async function campaignFor(ids: string[]): Promise<CampaignDoc> {
    return insertDrafted(db.db, broadcastRequest({ name: 'Staged', audience: { kind: 'contact_ids', contact_ids: ids, tags: [] } }), {
      workspace,
      createdBy: { kind: 'api_key', id: 'key_test' },
      now: AT,
    });
  }

  it('writes each recipient under <campaign_id>:<n> in audience order and pins time, count and checksum', async () => {
    const people = await contacts(1_200, 'a');
    const campaign = await campaignFor([...people.map((p) => p._id), people[0]!._id]);
    const evaluation = await evaluateCampaign(db.db, campaign, workspace);
    const staged = await stageRecipients(db.db, { campaign, workspace, at: AT });
    expect(staged).toEqual({ staged: true, pinned_at: AT, recipients: 1_200, checksum: evaluation.result.checksum, excluded: { duplicate_recipient: 1 } });

    const batch = await readRecipientBatch(db.db, campaign._id, 998, 5);
    expect(batch.map((r) => r._id)).toEqual([998, 999, 1_000, 1_001, 1_002].map((n) => recipientId(campaign._id, n)));
    expect(batch[0]).toEqual({
      _id: `${campaign._id}:998`,
      tenant_id: workspace._id,
      campaign_id: campaign._id,
      position: 998,
      contact_id: people[998]!._id,
      to: people[998]!.phone,
      name: 'Person 998',
      variables: ['Person 998', 'A-1', 'Friday'],
      state: 'queued',
      skip_reason: null,
      message_id: null,
      state_at: AT,
      created_at: AT,
    });
    expect(await readRecipientBatch(db.db, campaign._id, 1_198, 5)).toHaveLength(2);
    expect(await stagingCollections(db.db).stagings.findOne({ _id: campaign._id })).toMatchObject({ recipients: 1_200, checksum: evaluation.result.checksum });
  });

  it('stages once: a second call returns the pin and rebuilds nothing, even when the contacts changed', async () => {
    const people = await contacts(10, 'b');
    const campaign = await campaignFor(people.map((p) => p._id));
    const first = await stageRecipients(db.db, { campaign, workspace, at: AT });
    await contactCollections(db.db).contacts.updateOne({ _id: people[0]!._id }, { $set: { phone: null } });
    const again = await stageRecipients(db.db, { campaign, workspace, at: new Date(AT.getTime() + 60_000) });
    expect(again).toEqual({ ...first, staged: false });
    expect((await readRecipientBatch(db.db, campaign._id, 0, 1))[0]?.contact_id).toBe(people[0]!._id);
  });

  it('redoes an attempt that died midway over the same keys, dropping positions past the new end', async () => {
    const people = await contacts(6, 'c');
    const campaign = await campaignFor(people.map((p) => p._id));
    // A dead attempt wrote 8 positions from an older, longer list and no pin.
    const { recipients } = stagingCollections(db.db);
    await recipients.insertMany(
      Array.from({ length: 8 }, (_, n) => ({
        _id: recipientId(campaign._id, n),
        tenant_id: workspace._id,
        campaign_id: campaign._id,
        position: n,
        contact_id: 'cnt_stale',
        to: '+910000000000',
        name: null,
        variables: [],
        state: 'queued' as const,
        skip_reason: null,
        message_id: null,
        state_at: AT,
        created_at: AT,
      })),
    );
    const staged = await stageRecipients(db.db, { campaign, workspace, at: AT });
    expect(staged).toMatchObject({ staged: true, recipients: 6 });
    const all = await readRecipientBatch(db.db, campaign._id, 0, 10);
    expect(all.map((r) => r.contact_id)).toEqual(people.map((p) => p._id));
  });

  it(`stages past one write of ${STAGING_CHUNK}: every position in audience order, none missing`, async () => {
    const count = STAGING_CHUNK + 200;
    const people = await contacts(count, 'e');
    const campaign = await campaignFor(people.map((p) => p._id));
    expect(await stageRecipients(db.db, { campaign, workspace, at: AT })).toMatchObject({ staged: true, recipients: count });
    const all = await readRecipientBatch(db.db, campaign._id, 0, count);
    expect(all.map((r) => r.position)).toEqual(people.map((_, n) => n));
    expect(all.map((r) => r.contact_id)).toEqual(people.map((p) => p._id));
  });

  it("moves a batch's recipients out of queued in one write, leaving one a message status already moved", async () => {
    const people = await contacts(4, 'f');
    const campaign = await campaignFor(people.map((p) => p._id));
    await stageRecipients(db.db, { campaign, workspace, at: AT });
    const later = new Date(AT.getTime() + 60_000);
    // The message of position 1 reported `delivered` before the run wrote its batch.
    await outboundMessagesCollection(db.db).insertOne({
      _id: 'wamid.early',
      tenant_id: workspace._id,
      provider: 'simulator',
      sender_id: 'snd_x',
      to: people[1]!.phone!,
      conversation_id: 'conv_x',
      transcript_message_id: 'msg_x',
      kind: 'template',
      template: { name: 'order_update', language: 'en' },
      metadata: {},
      campaign_id: campaign._id,
      campaign_recipient_id: recipientId(campaign._id, 1),
      billed: 'included',
      status: 'sent',
      status_at: later,
      created_at: later,
    });
    const events = { publish: async () => undefined } as unknown as EventPublisher;
    await applyDeliveryStatus({ db: db.db, events }, { tenantId: workspace._id, messageId: 'wamid.early', status: 'delivered', at: later });

    const moves: QueuedMove[] = [
      { id: recipientId(campaign._id, 0), to: 'sent', at: later, messageId: 'wamid.zero' },
      { id: recipientId(campaign._id, 1), to: 'sent', at: later, messageId: 'wamid.early' },
      { id: recipientId(campaign._id, 2), to: 'skipped', at: later, reason: 'suppressed' },
      { id: recipientId(campaign._id, 3), to: 'failed', at: later, reason: 'outcome_unknown' },
    ];
    await moveQueuedRecipients(db.db, moves);
    await moveQueuedRecipients(db.db, moves);
    const moved = await readRecipientBatch(db.db, campaign._id, 0, 4);
    expect(moved.map((r) => [r.state, r.skip_reason, r.message_id])).toEqual([
      ['sent', null, 'wamid.zero'],
      ['delivered', null, 'wamid.early'],
      ['skipped', 'suppressed', null],
      ['failed', 'outcome_unknown', null],
    ]);
  });

  it('leaves the campaign record alone (launch writes it)', async () => {
    const people = await contacts(3, 'd');
    const campaign = await campaignFor(people.map((p) => p._id));
    await stageRecipients(db.db, { campaign, workspace, at: AT });
    expect(await campaignCollections(db.db).campaigns.findOne({ _id: campaign._id })).toEqual(campaign);
  });
});
