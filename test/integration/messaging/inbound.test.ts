import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { CONSOLE, eventsOf, injectInbound } from '../../support/messaging';

/** A customer writing in, and team members' business-app echoes, injected through the console. */
describe('inbound WhatsApp messages and echoes', () => {
  const { api, ws } = useTestApi();
  let senderPhone: string;
  let n = 0;
  const fresh = () => `+9194${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  beforeAll(async () => {
    senderPhone = (await collections(api.db).senders.findOne({ _id: ws.senderId }))!.phone;
  });

  const conversation = async (id: string) => (await request(api.server).get(`/api/v1/conversations/${id}`).set(bearer(ws.key))).body;
  const transcript = async (id: string) =>
    (await request(api.server).get(`/api/v1/conversations/${id}/messages`).set(bearer(ws.key))).body.items as { role: string; text: string | null }[];

  it('opens the conversation, stores a user turn and emits message.received with the referral and conversation.started once', async () => {
    const from = fresh();
    const first = await injectInbound(api, ws.workspaceId, {
      from,
      name: 'Meera',
      text: 'Do you deliver to Pune?',
      message_id: `wamid.in-${from}-1`,
      referral: { source_type: 'ad', source_id: 'ad-7', source_url: 'https://fb.me/7', headline: 'Free delivery', ctwa_clid: 'clid-7' },
    });
    expect(first).toEqual({
      message_id: `wamid.in-${from}-1`,
      conversation_id: expect.stringMatching(/^con_[0-9a-f]{24}$/),
      transcript_message_id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      sender_id: ws.senderId,
      opted_out: false,
    });
    const second = await injectInbound(api, ws.workspaceId, { from, text: 'Hello?' });
    expect(second.conversation_id).toBe(first.conversation_id);
    expect(await transcript(first.conversation_id)).toEqual([
      expect.objectContaining({ role: 'user', text: 'Do you deliver to Pune?' }),
      expect.objectContaining({ role: 'user', text: 'Hello?' }),
    ]);

    // Event times have whole seconds, so two events of one second are put in order by when they were received.
    const received = (await eventsOf(api.db, ws.workspaceId, 'message.received'))
      .filter((e) => e.data.from === from)
      .sort((x, y) => String(x.data.received_at).localeCompare(String(y.data.received_at)));
    expect(received).toHaveLength(2);
    expect(received[0]!.data).toEqual({
      message_id: `wamid.in-${from}-1`,
      conversation_id: first.conversation_id,
      channel: 'whatsapp',
      from,
      to: senderPhone,
      sender_id: ws.senderId,
      profile_name: 'Meera',
      type: 'text',
      text: 'Do you deliver to Pune?',
      referral: { source_type: 'ad', source_id: 'ad-7', source_url: 'https://fb.me/7', headline: 'Free delivery', ctwa_clid: 'clid-7' },
      received_at: expect.any(String),
    });
    expect(received[1]!.data.referral).toBeUndefined();
    const started = (await eventsOf(api.db, ws.workspaceId, 'conversation.started')).filter((e) => e.data.conversation_id === first.conversation_id);
    expect(started).toHaveLength(1);
    expect(started[0]!.data).toMatchObject({ channel: 'whatsapp', customer: { phone: from, name: 'Meera' } });
    expect(started[0]!._id).toMatch(/^evt_[0-9a-f]{24}$/);
  });

  it('changes nothing when the same provider message arrives again', async () => {
    const from = fresh();
    const once = await injectInbound(api, ws.workspaceId, { from, text: 'only once', message_id: `wamid.dup-${from}` });
    const twice = await injectInbound(api, ws.workspaceId, { from, text: 'only once', message_id: `wamid.dup-${from}` });
    expect(twice.transcript_message_id).toBe(once.transcript_message_id);
    expect((await conversation(once.conversation_id)).message_count).toBe(1);
    expect((await eventsOf(api.db, ws.workspaceId, 'message.received')).filter((e) => e.data.from === from)).toHaveLength(1);
  });

  it('records STOP (any case, trimmed) as a permanent opt-out; other words do not', async () => {
    expect((await injectInbound(api, ws.workspaceId, { from: fresh(), text: 'stop please' })).opted_out).toBe(false);
    const from = fresh();
    expect((await injectInbound(api, ws.workspaceId, { from, text: ' sToP ' })).opted_out).toBe(true);
    const res = await request(api.server).post('/api/v1/messages').set(bearer(ws.key)).send({ to: from, template: { name: 'welcome' } });
    expect(res.status).toBe(403);
    expect(res.body.error.details).toEqual({ reason: 'suppressed' });
  });

  it('emits message.echo for a team member’s message, adding a team turn; edits and deletions are only announced', async () => {
    const to = fresh();
    const inbound = await injectInbound(api, ws.workspaceId, { from: to, text: 'hi' });
    const sent = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/whatsapp/echo`)
      .set(CONSOLE)
      .send({ to, text: 'Yes, we deliver to Pune.', message_id: `wamid.echo-${to}` });
    expect(sent.status).toBe(201);
    expect(sent.body).toEqual({ message_id: `wamid.echo-${to}`, conversation_id: inbound.conversation_id, action: 'sent' });
    const deleted = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/whatsapp/echo`)
      .set(CONSOLE)
      .send({ to, action: 'deleted', message_id: `wamid.echo-${to}` });
    expect(deleted.status).toBe(201);
    expect((await transcript(inbound.conversation_id)).map((m) => [m.role, m.text])).toEqual([
      ['user', 'hi'],
      ['human', 'Yes, we deliver to Pune.'],
    ]);
    const echoes = (await eventsOf(api.db, ws.workspaceId, 'message.echo')).filter((e) => e.data.to === to);
    expect(echoes.map((e) => String(e.data.action)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(['deleted', 'sent']);
    const [sentEcho, deletedEcho] = ['sent', 'deleted'].map((action) => echoes.find((e) => e.data.action === action)!);
    expect(sentEcho!.data).toMatchObject({ message_id: `wamid.echo-${to}`, from: senderPhone, text: 'Yes, we deliver to Pune.', sender_id: ws.senderId });
    expect(deletedEcho!.data.text).toBeUndefined();
  });

  it('refuses an inbound for a sender the workspace does not have, and a body without text', async () => {
    const res = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/whatsapp/inbound`)
      .set(CONSOLE)
      .send({ from: fresh(), text: 'hi', sender_id: 'snd_missing' });
    expect(res.status).toBe(412);
    expect(res.body).toEqual(envelope('failed_precondition', 'Sender snd_missing is not a sender of this workspace.', { reason: 'channel_not_connected' }));
    const invalid = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/whatsapp/inbound`).set(CONSOLE).send({ from: fresh() });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details.errors[0].loc).toEqual(['body', 'text']);
  });

  it('leaves the Cloud API webhook closed when no app secret is configured', async () => {
    const res = await request(api.server).post('/webhooks/whatsapp').set('content-type', 'application/json').send('{}');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 'not_configured' });
  });
});
