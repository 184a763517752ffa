import request from 'supertest';
import { campaignCollections, audienceContactIds } from '../../../src/campaigns/campaign';
import { useTestApi } from '../../support/app';
import { insertCampaignDraft, insertContacts } from '../../support/campaigns';
import { envelope } from '../../support/http';
import { CONSOLE } from '../../support/messaging';

/**
 * Edit and duplicate for drafts over HTTP (issue 35 §1): an edit replaces a draft's request at
 * its next version by the create's rules; a stale version is 409; a launched campaign is no
 * draft (412 `campaign_frozen`, the refusal a launch of a finished one gets); a duplicate is a
 * new draft with the same request, whatever the source's state.
 */
describe('console campaign drafts: edit and duplicate', () => {
  const { api, ws } = useTestApi();
  const base = (id: string) => `/console/v1/workspaces/${ws.workspaceId}/campaigns/${id}`;
  const put = (id: string, body: Record<string, unknown>) => request(api.server).put(base(id)).set(CONSOLE).send(body);
  const duplicate = (id: string) => request(api.server).post(`${base(id)}/duplicate`).set(CONSOLE);
  const bodyFor = (contactIds: string[], extra: Record<string, unknown> = {}) => ({
    name: 'Renewals, second try',
    channel: 'whatsapp',
    audience: { kind: 'contact_ids', contact_ids: contactIds },
    template: { name: 'order_update', variables: ['{{contact.name}}', 'B-7', 'Monday'] },
    schedule: { throttle_per_minute: 30, timezone: 'Asia/Kolkata' },
    consent: { basis: 'existing_customer' },
    ...extra,
  });

  it('edits a draft whole at its next version; its audience ids, template and schedule are the new ones', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 3);
    const c = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id) });
    const res = await put(c._id, { ...bodyFor([people[0]!._id, people[2]!._id]), expected_version: 1 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      campaign_id: c._id,
      status: 'draft',
      version: 2,
      name: 'Renewals, second try',
      audience: { kind: 'contact_ids', contact_id_count: 2 },
      template: { name: 'order_update', variables: ['{{contact.name}}', 'B-7', 'Monday'] },
      schedule: { throttle_per_minute: 30, timezone: 'Asia/Kolkata' },
    });
    expect(await audienceContactIds(api.db, c)).toEqual([people[0]!._id, people[2]!._id]);
    // Evaluate counts the edited audience.
    const evaluated = await request(api.server).post(`${base(c._id)}/evaluate`).set(CONSOLE);
    expect(evaluated.body).toMatchObject({ eligible: 2, total_rows: 2 });

    // The version read before the edit is stale now.
    const stale = await put(c._id, { ...bodyFor([people[1]!._id]), expected_version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual(envelope('conflict', 'This campaign is at version 2, not 1; read it again.', { reason: 'version_conflict', current_version: 2 }));
  });

  it("refuses what a create refuses, a change of channel, and any edit once the campaign is not a draft; unknown is 404", async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 1);
    const c = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id) });
    const unknownVariable = await put(c._id, { ...bodyFor([people[0]!._id], { template: { name: 'order_update', variables: ['{{contact.city}}', 'a', 'b'] } }), expected_version: 1 });
    expect(unknownVariable.status).toBe(400);
    expect(unknownVariable.body).toEqual(
      envelope('invalid_argument', 'No contact can fill {{contact.city}}; use {{contact.name}}, {{contact.phone}}, {{contact.email}}.', {
        reason: 'unknown_variable',
        field: 'contact.city',
        loc: ['body', 'template', 'variables', 0],
      }),
    );
    const channel = await put(c._id, { ...bodyFor([people[0]!._id], { channel: 'voice', template: null, agent_id: 'bot_x', purpose: 'Ask' }), expected_version: 1 });
    expect(channel.status).toBe(400);
    expect(channel.body.error.code).toBe('invalid_argument');
    expect(channel.body.error.details.errors).toEqual([
      { loc: ['body', 'channel'], msg: 'A whatsapp draft stays whatsapp; duplicate it or create a new campaign for another channel.', type: 'channel_fixed' },
    ]);
    const missingVersion = await put(c._id, bodyFor([people[0]!._id]));
    expect(missingVersion.status).toBe(400);
    expect(missingVersion.body.error.details.errors[0].loc).toEqual(['body', 'expected_version']);
    // Nothing was written by the refusals.
    expect((await campaignCollections(api.db).campaigns.findOne({ _id: c._id }))!.version).toBe(1);

    await campaignCollections(api.db).campaigns.updateOne({ _id: c._id }, { $set: { status: 'running' } });
    const frozen = await put(c._id, { ...bodyFor([people[0]!._id]), expected_version: 1 });
    expect(frozen.status).toBe(412);
    expect(frozen.body).toEqual(
      envelope('failed_precondition', 'This campaign is running; only a draft can be edited.', {
        reason: 'campaign_frozen',
        docs: 'https://docs.orchestrator.dev/campaigns#campaign-frozen',
        fix: 'Duplicate it: the copy is a draft with the same settings, which you can edit and launch.',
      }),
    );

    for (const id of ['cmp_000000000000000000000000', 'not-a-campaign']) {
      const missing = await put(id, { ...bodyFor([people[0]!._id]), expected_version: 1 });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(envelope('not_found', 'Campaign not found.'));
    }
  });

  it('duplicates any campaign into a new draft with the same request; the source is unchanged', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 2);
    const c = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), name: 'Diwali offers' });
    await campaignCollections(api.db).campaigns.updateOne({ _id: c._id }, { $set: { status: 'completed', version: 4 } });
    const res = await duplicate(c._id);
    expect(res.status).toBe(201);
    expect(res.body.campaign_id).not.toBe(c._id);
    expect(res.body).toMatchObject({
      name: 'Copy of Diwali offers',
      status: 'draft',
      version: 1,
      channel: 'whatsapp',
      audience: { kind: 'contact_ids', contact_id_count: 2 },
      template: c.template,
      created_by: { kind: 'console', id: 'console' },
    });
    expect(await audienceContactIds(api.db, { _id: res.body.campaign_id, tenant_id: ws.workspaceId })).toEqual(people.map((p) => p._id));
    expect(await campaignCollections(api.db).campaigns.findOne({ _id: c._id })).toMatchObject({ status: 'completed', version: 4, name: 'Diwali offers' });

    const missing = await duplicate('cmp_000000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(envelope('not_found', 'Campaign not found.'));
  });
});
