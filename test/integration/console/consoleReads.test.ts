import request from 'supertest';
import { findCampaign } from '../../../src/campaigns/campaign';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { useTestApi } from '../../support/app';
import { insertCampaignDraft, insertContacts, zoneOpenAt } from '../../support/campaigns';
import { CONSOLE_AUTH, pollCall, scriptCallee } from '../../support/calls';
import { bearer, envelope } from '../../support/http';
import { eventually, injectInbound } from '../../support/messaging';
import { createTestWorkspace } from '../../support/workspaces';

/** The console reads the web console needs: a number's calls, and conversations with their whole transcript. */
describe('console reads: calls by number, conversations', () => {
  const { api, ws } = useTestApi({ worker: true });
  const get = (path: string) => request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}${path}`).set(CONSOLE_AUTH);

  it("GET …/calls?to= lists a number's calls newest first, as GET /api/v1/calls/{id} shows each, and nobody else's", async () => {
    await scriptCallee(api, ws, '+919811100071', { ring_seconds: 0, seconds_per_turn: 0.1 });
    const placed: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '+919811100071' });
      expect(res.status).toBe(201);
      placed.push(res.body.call_id);
    }
    const other = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '+919811100072' });
    expect(other.status).toBe(201);
    const last = await pollCall(api, ws.key, placed[1]!, (c) => c.result.state !== 'pending');

    // Separators and a missing + are forgiven, as when the number is pasted.
    for (const to of ['+919811100071', '91 98111 00071']) {
      const res = await get(`/calls?to=${encodeURIComponent(to)}`);
      expect(res.status).toBe(200);
      expect(res.body.items.map((c: { call_id: string }) => c.call_id)).toEqual([placed[1], placed[0]]);
    }
    const publicView = await request(api.server).get(`/api/v1/calls/${placed[1]}`).set(bearer(ws.key));
    // The list adds when the call was created, the campaign that placed it (none here), and who it was with and what for (nobody named, no purpose here).
    expect((await get('/calls?to=%2B919811100071')).body.items[0]).toEqual({ ...publicView.body, created_at: expect.any(String), campaign_id: null, campaign_name: null, person_name: null, purpose: null });
    expect(publicView.body.result.state).toBe(last.result.state);

    const elsewhere = await createTestWorkspace(api.db);
    const foreign = await request(api.server).get(`/console/v1/workspaces/${elsewhere.workspaceId}/calls?to=%2B919811100071`).set(CONSOLE_AUTH);
    expect(foreign.body).toEqual({ items: [], next_cursor: null });

    const bad = await get('/calls?to=abc');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['query', 'to'], msg: 'the number needs digits', type: 'invalid_format' }] }));
  });

  it('GET …/calls?to= finds a call by its number in any form POST /api/v1/calls accepts, read in the workspace\'s country', async () => {
    const workspace = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}`).set(CONSOLE_AUTH);
    expect(workspace.body.country).toBe('IN');
    // Placed as typed locally: the call's `to` is stored in E.164, +919811122233.
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '9811122233' });
    expect(placed.status).toBe(201);
    expect(placed.body.to).toBe('+919811122233');
    for (const to of ['9811122233', '+91 98111 22233', '09811122233', '+919811122233']) {
      const res = await get(`/calls?to=${encodeURIComponent(to)}`);
      expect(res.status).toBe(200);
      expect({ to, calls: res.body.items.map((c: { call_id: string }) => c.call_id) }).toEqual({ to, calls: [placed.body.call_id] });
    }
    // A number that does not read is looked for as typed: it finds nothing, and is no error.
    expect((await get('/calls?to=12345')).body).toEqual({ items: [], next_cursor: null });
  });

  it('GET …/conversations lists the newest, and …/transcript gives every turn, trail rows included', async () => {
    await injectInbound(api, ws.workspaceId, { from: '+919812300001', text: 'Where is my order?' });
    const list = await eventually(async () => {
      const res = await get('/conversations');
      return res.body.items?.length ? res.body.items : null;
    }, 'the conversation');
    expect(list[0]).toMatchObject({ channel: 'whatsapp', message_count: expect.any(Number) });
    const id: string = list[0].conversation_id;

    const note = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/conversations/${id}/turns`)
      .set(CONSOLE_AUTH)
      .send({ role: 'human', kind: 'trail', text: 'Assigned to Ravi', turn_id: 'trail-1' });
    expect(note.status).toBe(201);

    const res = await get(`/conversations/${id}/transcript`);
    expect(res.status).toBe(200);
    expect(res.body.conversation).toMatchObject({ conversation_id: id, channel: 'whatsapp' });
    expect(res.body.items).toEqual(
      expect.arrayContaining([
        { message_id: expect.stringMatching(/^msg_/), role: 'user', author_name: null, kind: 'turn', text: 'Where is my order?', created_at: expect.any(String), campaign_id: null, template: null },
        { message_id: note.body.message_id, role: 'human', author_name: null, kind: 'trail', text: 'Assigned to Ravi', created_at: expect.any(String), campaign_id: null, template: null },
      ]),
    );

    const missing = await get('/conversations/cnv_nope/transcript');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(envelope('not_found', 'Conversation not found.'));
  });

  it("…/transcript tells the business's campaign and template messages from a team member's turn", async () => {
    const [person] = await insertContacts(api.db, ws.workspaceId, 1);
    const campaign = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: [person!._id], schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    const launched = await request(api.server).post(`/api/v1/campaigns/${campaign._id}/launch`).set(bearer(ws.key)).send({ expected_version: 1 });
    expect(launched.status).toBe(200);
    await eventually(async () => (await findCampaign(api.db, ws.workspaceId, campaign._id))?.status === 'completed' || undefined, 'the campaign to complete', 60_000);
    const fromCampaign = await outboundMessagesCollection(api.db).findOne({ tenant_id: ws.workspaceId, campaign_id: campaign._id });
    const id = fromCampaign!.conversation_id;

    const sent = await request(api.server)
      .post('/api/v1/messages')
      .set(bearer(ws.key))
      .send({ to: person!.phone, template: { name: 'order_update', variables: ['Asha', 'A-2', 'Monday'] } });
    expect(sent.status).toBe(201);
    const reply = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/conversations/${id}/turns`)
      .set(CONSOLE_AUTH)
      .send({ role: 'human', text: 'Ravi here, happy to help.', turn_id: 'reply-1' });
    expect(reply.status).toBe(201);

    const res = await get(`/conversations/${id}/transcript`);
    expect(res.status).toBe(200);
    const turns = res.body.items.map((t: Record<string, unknown>) => ({ message_id: t.message_id, role: t.role, campaign_id: t.campaign_id, template: t.template }));
    expect(turns).toEqual([
      { message_id: fromCampaign!.transcript_message_id, role: 'human', campaign_id: campaign._id, template: 'order_update' },
      { message_id: expect.stringMatching(/^msg_/), role: 'human', campaign_id: null, template: 'order_update' },
      { message_id: reply.body.message_id, role: 'human', campaign_id: null, template: null },
    ]);
  });
});
