import { createHmac } from 'node:crypto';
import request from 'supertest';
import { conversationIdFor } from '../../../src/conversations';
import { messageIdFor } from '../../../src/conversations/store';
import { collections } from '../../../src/db/collections';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { FakeGraph } from '../../support/fakeGraph';
import { CONSOLE, eventsOf } from '../../support/messaging';

const APP_SECRET = 'test-app-secret';
const VERIFY_TOKEN = 'test-verify-token';

describe('the WhatsApp Cloud API adapter against a local fake', () => {
  let graph: FakeGraph;
  let baseUrl: string;
  let senderDigits: string;
  let n = 0;
  const fresh = () => `9193${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  beforeAll(async () => {
    graph = new FakeGraph();
    baseUrl = await graph.start();
  });
  afterAll(async () => {
    await graph?.stop();
  });
  const cloudEnv = (timeoutMs: number) => ({
    WHATSAPP_PROVIDER: 'cloud',
    WHATSAPP_CLOUD_BASE_URL: baseUrl,
    WHATSAPP_CLOUD_ACCESS_TOKEN: 'graph-token',
    WHATSAPP_CLOUD_PHONE_NUMBER_ID: '1001',
    WHATSAPP_CLOUD_PHONE_NUMBER_IDS: '+919000033333=2002',
    WHATSAPP_CLOUD_APP_SECRET: APP_SECRET,
    WHATSAPP_CLOUD_VERIFY_TOKEN: VERIFY_TOKEN,
    WHATSAPP_CLOUD_TIMEOUT_MS: String(timeoutMs),
  });
  // Room for a loaded machine: with 500 ms, a round trip to the fake 600 ms slow failed every send here.
  // The timeout has its own case, on an API of its own.
  const { api, ws } = useTestApi(() => ({ env: cloudEnv(30_000) }));
  beforeAll(async () => {
    senderDigits = (await collections(api.db).senders.findOne({ _id: ws.senderId }))!.phone.slice(1);
  });
  beforeEach(() => {
    graph.requests.length = 0;
    graph.answers.length = 0;
  });

  const send = (body: Record<string, unknown>) => request(api.server).post('/api/v1/messages').set(bearer(ws.key)).send(body);

  function webhook(payload: unknown, signature?: string | null) {
    const raw = Buffer.from(JSON.stringify(payload));
    const req = request(api.server).post('/webhooks/whatsapp').set('content-type', 'application/json');
    const header = signature === undefined ? `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}` : signature;
    if (header !== null) req.set('X-Hub-Signature-256', header);
    return req.send(raw.toString('utf8'));
  }

  const change = (field: string, value: Record<string, unknown>, display = senderDigits) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: 'WABA1', changes: [{ field, value: { messaging_product: 'whatsapp', metadata: { display_phone_number: display, phone_number_id: '1001' }, ...value } }] }],
  });
  const inboundText = (from: string, id: string, text: string, extra: Record<string, unknown> = {}) =>
    change('messages', {
      contacts: [{ profile: { name: 'Kiran' }, wa_id: from }],
      messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text }, ...extra }],
    });

  describe('sending', () => {
    it('sends free text to POST /{phone-number-id}/messages with the bearer token, Markdown converted', async () => {
      const to = fresh();
      expect((await webhook(inboundText(to, `wamid.in.${to}`, 'hi'))).status).toBe(200);
      const res = await send({ to: `+${to}`, text: '**Order** shipped: [track](https://t.test/1)' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ message_id: expect.stringMatching(/^wamid\.CLOUD\d+$/), channel: 'whatsapp', to: `+${to}`, status: 'sent' });
      expect(graph.requests).toEqual([
        {
          url: '/v21.0/1001/messages',
          authorization: 'Bearer graph-token',
          body: {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to,
            // The send's intent key (a send without an Idempotency-Key: `<workspace>|once|<request id>`), for its statuses to hand back.
            biz_opaque_callback_data: expect.stringMatching(new RegExp(`^${ws.workspaceId}\\|once\\|req_[0-9a-f]+$`)),
            type: 'text',
            text: { preview_url: false, body: '*Order* shipped: track: https://t.test/1' },
          },
          messageId: res.body.message_id,
        },
      ]);
    });

    it('sends a template with its header, body and URL-button components', async () => {
      const to = fresh();
      expect((await send({ to, template: { name: 'appointment_reminder', header_variables: 'Kiran', variables: ['Mon 3 Mar', '10:30'] } })).status).toBe(201);
      expect((await send({ to, template: { name: 'payment_due', language: 'en_GB', variables: ['Kiran', '1,200', '5 Mar'], button_variables: 'inv-77' } })).status).toBe(201);
      expect((await send({ to, template: { name: 'welcome' } })).status).toBe(201);
      expect(graph.requests.map((r) => r.body.template)).toEqual([
        {
          name: 'appointment_reminder',
          language: { code: 'en' },
          components: [
            { type: 'header', parameters: [{ type: 'text', text: 'Kiran' }] },
            { type: 'body', parameters: [{ type: 'text', text: 'Mon 3 Mar' }, { type: 'text', text: '10:30' }] },
          ],
        },
        {
          name: 'payment_due',
          language: { code: 'en' },
          components: [
            { type: 'body', parameters: [{ type: 'text', text: 'Kiran' }, { type: 'text', text: '1,200' }, { type: 'text', text: '5 Mar' }] },
            { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'inv-77' }] },
          ],
        },
        { name: 'welcome', language: { code: 'en_US' } },
      ]);
      expect(graph.requests[0]!.body).toMatchObject({ messaging_product: 'whatsapp', to, type: 'template' });
    });

    it('sends an image header by link', async () => {
      await request(api.server)
        .post(`/console/v1/workspaces/${ws.workspaceId}/templates`)
        .set(CONSOLE)
        .send({ name: 'catalogue', language: 'en', body: 'New {{1}}', header: { type: 'image', media_url: 'https://cdn.test/cat.png' } });
      expect((await send({ to: fresh(), template: { name: 'catalogue', variables: ['arrivals'] } })).status).toBe(201);
      expect(graph.requests[0]!.body.template).toEqual({
        name: 'catalogue',
        language: { code: 'en' },
        components: [
          { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.test/cat.png' } }] },
          { type: 'body', parameters: [{ type: 'text', text: 'arrivals' }] },
        ],
      });
    });

    it('sends from the phone-number id configured for the sender’s number', async () => {
      const second = await request(api.server)
        .post(`/console/v1/workspaces/${ws.workspaceId}/senders`)
        .set(CONSOLE)
        .send({ phone: '+919000033333', display_name: 'Support line' });
      expect((await send({ to: fresh(), template: { name: 'welcome' }, sender_id: second.body.sender_id })).status).toBe(201);
      expect(graph.requests[0]!.url).toBe('/v21.0/2002/messages');
    });

    it('turns a refusal into 502 provider_error with the Graph error’s fields, without retrying', async () => {
      graph.answers.push({
        status: 400,
        body: {
          error: {
            message: '(#131026) Message undeliverable',
            type: 'OAuthException',
            code: 131026,
            error_subcode: 2494010,
            error_user_title: 'Undeliverable',
            error_user_msg: 'The recipient cannot receive this message.',
            fbtrace_id: 'Az1',
          },
        },
      });
      const res = await send({ to: fresh(), template: { name: 'welcome' } });
      expect(res.status).toBe(502);
      expect(res.body).toEqual(
        envelope('provider_error', 'WhatsApp provider refused the message: (#131026) Message undeliverable (code 131026).', {
          provider_code: 131026,
          provider_subcode: 2494010,
          provider_message: '(#131026) Message undeliverable',
          provider_user_message: 'The recipient cannot receive this message.',
        }),
      );
      expect(graph.requests).toHaveLength(1);
    });

    it('retries throttling and server errors, then succeeds', async () => {
      graph.answers.push(
        { status: 429, body: { error: { message: '(#130429) Rate limit hit', code: 130429 } } },
        { status: 503, body: { error: { message: 'Service temporarily unavailable', code: 131016 } } },
      );
      const res = await send({ to: fresh(), template: { name: 'welcome' } });
      expect(res.status).toBe(201);
      expect(graph.requests).toHaveLength(3);
      expect(res.body.message_id).toMatch(/^wamid\.CLOUD/);
    });

    it('answers 502 after three failed attempts, and gives the conversation back', async () => {
      const before = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.plan;
      for (let i = 0; i < 3; i++) graph.answers.push({ status: 500, body: { error: { message: 'An unknown error occurred', code: 1, error_data: { details: 'try later' } } } });
      const res = await send({ to: fresh(), template: { name: 'welcome' } });
      expect(res.status).toBe(502);
      expect(res.body.error.message).toBe('WhatsApp provider refused the message: An unknown error occurred (try later) (code 1).');
      expect(res.body.error.details).toEqual({
        provider_code: 1,
        provider_subcode: null,
        provider_message: 'An unknown error occurred (try later)',
        provider_user_message: null,
      });
      expect(graph.requests).toHaveLength(3);
      expect((await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.plan).toEqual(before);
    });

  });

  describe('sending with a 500 ms timeout', () => {
    const short = useTestApi(() => ({ env: cloudEnv(500) }));

    it('does not retry a timeout (the message may have gone out)', async () => {
      graph.answers.push({ status: 200, body: { messages: [{ id: 'wamid.LATE' }] }, delayMs: 1500 });
      const res = await request(short.api.server).post('/api/v1/messages').set(bearer(short.ws.key)).send({ to: fresh(), template: { name: 'welcome' } });
      expect(res.status).toBe(502);
      expect(res.body.error.details.provider_message).toBe('no answer within 500 ms');
      expect(graph.requests).toHaveLength(1);
    });
  });

  describe('the webhook', () => {
    it('answers the verification challenge with the right verify token only', async () => {
      const ok = await request(api.server)
        .get('/webhooks/whatsapp')
        .query({ 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1158201444' });
      expect(ok.status).toBe(200);
      expect(ok.text).toBe('1158201444');
      expect(ok.headers['content-type']).toMatch(/^text\/plain/);
      const wrong = await request(api.server)
        .get('/webhooks/whatsapp')
        .query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1158201444' });
      expect(wrong.status).toBe(403);
    });

    it('refuses a delivery without a valid X-Hub-Signature-256 and applies nothing', async () => {
      const from = fresh();
      const payload = inboundText(from, `wamid.unsigned.${from}`, 'hi');
      for (const signature of [null, 'sha256=0000', `sha256=${createHmac('sha256', 'other').update(JSON.stringify(payload)).digest('hex')}`]) {
        const res = await webhook(payload, signature);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ status: 'invalid_signature' });
      }
      expect((await eventsOf(api.db, ws.workspaceId, 'message.received')).filter((e) => e.data.from === `+${from}`)).toHaveLength(0);
    });

    it('applies inbound messages with their ad referral, once however often they are delivered', async () => {
      const from = fresh();
      const payload = inboundText(from, `wamid.ref.${from}`, 'I saw your ad', {
        referral: { source_url: 'https://fb.me/ad9', source_id: 'ad9', source_type: 'ad', headline: 'Winter sale', body: 'Up to 50% off', media_type: 'video', video_url: 'https://v.test/1', ctwa_clid: 'clid9' },
      });
      const first = await webhook(payload);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ status: 'ok', applied: 1, parked: 0, skipped: 0 });
      expect((await webhook(payload)).status).toBe(200);
      const received = (await eventsOf(api.db, ws.workspaceId, 'message.received')).filter((e) => e.data.from === `+${from}`);
      expect(received).toHaveLength(1);
      expect(received[0]!.data).toMatchObject({
        message_id: `wamid.ref.${from}`,
        profile_name: 'Kiran',
        text: 'I saw your ad',
        referral: { source_type: 'ad', source_id: 'ad9', headline: 'Winter sale', media_type: 'video', video_url: 'https://v.test/1', ctwa_clid: 'clid9' },
      });
      const conversation = await request(api.server).get(`/api/v1/conversations/${String(received[0]!.data.conversation_id)}`).set(bearer(ws.key));
      expect(conversation.body).toMatchObject({
        customer: { phone: `+${from}`, name: 'Kiran' },
        message_count: 1,
        acquisition: { ctwa: { source_type: 'ad', source_id: 'ad9', source_url: 'https://fb.me/ad9', headline: 'Winter sale', body: 'Up to 50% off', media_type: 'video', ctwa_clid: 'clid9' } },
      });
    });

    it('turns statuses into message.status events for messages this service sent', async () => {
      const to = fresh();
      const sent = await send({ to, template: { name: 'welcome' } });
      const id = sent.body.message_id as string;
      const statuses = change('messages', {
        statuses: [
          { id, status: 'delivered', timestamp: '1772359300', recipient_id: to },
          { id, status: 'read', timestamp: '1772359400', recipient_id: to },
          { id: 'wamid.NOT_OURS', status: 'delivered', timestamp: '1772359300', recipient_id: to },
        ],
      });
      const res = await webhook(statuses);
      expect(res.body).toEqual({ status: 'ok', applied: 2, parked: 1, skipped: 0 });
      const events = (await eventsOf(api.db, ws.workspaceId, 'message.status')).filter((e) => e.data.message_id === id);
      expect(events.map((e) => String(e.data.status)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(['delivered', 'read']);
      expect(events[0]!.data).toMatchObject({ channel: 'whatsapp', to: `+${to}` });
      expect((await outboundMessagesCollection(api.db).findOne({ _id: id }))!.status).toBe('read');
      // A late `delivered` does not move the message back.
      await webhook(change('messages', { statuses: [{ id, status: 'delivered', timestamp: '1772359500', recipient_id: to }] }));
      expect((await outboundMessagesCollection(api.db).findOne({ _id: id }))!.status).toBe('read');
    });

    it('turns business-app echoes into message.echo, and skips numbers no workspace owns', async () => {
      const to = fresh();
      const echo = change('smb_message_echoes', {
        message_echoes: [{ from: senderDigits, to, id: `wamid.echo.${to}`, timestamp: '1772359600', type: 'text', text: { body: 'Sent from the app' } }],
      });
      expect((await webhook(echo)).body).toEqual({ status: 'ok', applied: 1, parked: 0, skipped: 0 });
      const events = (await eventsOf(api.db, ws.workspaceId, 'message.echo')).filter((e) => e.data.to === `+${to}`);
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({ action: 'sent', text: 'Sent from the app', sender_id: ws.senderId });
      const stranger = inboundText(fresh(), 'wamid.stranger', 'hi');
      stranger.entry[0]!.changes[0]!.value.metadata = { display_phone_number: '15550009999', phone_number_id: '9999' };
      expect((await webhook(stranger)).body).toEqual({ status: 'ok', applied: 0, parked: 0, skipped: 1 });
    });

    it('keeps two messages stamped the same second in the order they arrived, the reply after them, in the API’s transcript and the console’s', async () => {
      const from = fresh();
      const second = Math.floor(Date.now() / 1000);
      // Ids whose order by the key's hash alone (the old message ids, for one time) is the reverse of their arrival.
      const byHashAlone = (id: string) => messageIdFor(ws.workspaceId, `wa-in:${id}`, new Date(second * 1000));
      const earlier = `wamid.same-second.${from}.a`;
      let later = '';
      for (let k = 0; !later; k++) if (byHashAlone(`wamid.same-second.${from}.b${k}`) < byHashAlone(earlier)) later = `wamid.same-second.${from}.b${k}`;
      const sameSecond = (id: string, text: string) =>
        change('messages', { contacts: [{ profile: { name: 'Kiran' }, wa_id: from }], messages: [{ from, id, timestamp: String(second), type: 'text', text: { body: text } }] });
      expect((await webhook(sameSecond(earlier, 'Hi, my parcel is late'))).body).toMatchObject({ applied: 1 });
      expect((await webhook(sameSecond(later, 'It is order 4417'))).body).toMatchObject({ applied: 1 });
      expect((await send({ to: `+${from}`, text: 'Looking into order 4417 now.' })).status).toBe(201);

      const conversationId = conversationIdFor(ws.workspaceId, 'whatsapp', from);
      const transcript = await request(api.server).get(`/api/v1/conversations/${conversationId}/messages`).set(bearer(ws.key));
      expect(transcript.status).toBe(200);
      const items = transcript.body.items as { message_id: string; role: string; text: string; created_at: string }[];
      expect(items.map((m) => [m.role, m.text])).toEqual([
        ['user', 'Hi, my parcel is late'],
        ['user', 'It is order 4417'],
        ['human', 'Looking into order 4417 now.'],
      ]);
      expect(items[0]!.created_at).toBe(items[1]!.created_at);
      // Read again, and a page at a time from the first message's cursor: the same order.
      const rest = await request(api.server).get(`/api/v1/conversations/${conversationId}/messages?limit=1&cursor=${items[0]!.message_id}`).set(bearer(ws.key));
      expect(rest.body.items.map((m: { text: string }) => m.text)).toEqual(['It is order 4417']);
      const console = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`).set(CONSOLE);
      expect(console.status).toBe(200);
      expect(console.body.items.map((m: { text: string }) => m.text)).toEqual(['Hi, my parcel is late', 'It is order 4417', 'Looking into order 4417 now.']);
    });
  });
});
