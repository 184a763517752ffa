import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { withDatabaseLease } from '../../../src/db/leaseLock';
import { startTestApi, useTestApi } from '../../support/app';
import { answeredWithin } from '../../support/deadline';
import { bearer, envelope } from '../../support/http';
import { CONSOLE, eventsOf, eventually, injectInbound, scriptRecipient, updateWorkspace } from '../../support/messaging';
import { createTestWorkspace, suspend, type TestWorkspace } from '../../support/workspaces';

/** POST /api/v1/messages on the simulator (api-core §4, §7), with a worker for delivery statuses. */
describe('POST /api/v1/messages', () => {
  const { api, ws } = useTestApi({ worker: true });
  let n = 0;
  /** A recipient no other test has touched. */
  const fresh = () => `+9197${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  const send = (body: Record<string, unknown>, key = ws.key) => request(api.server).post('/api/v1/messages').set(bearer(key)).send(body);
  const orderUpdate = (to: string, extra: Record<string, unknown> = {}) => ({
    to,
    template: { name: 'order_update', variables: ['Asha', 'A-1', 'Friday'], ...extra },
  });
  const transcript = async (conversationId: string) =>
    (await request(api.server).get(`/api/v1/conversations/${conversationId}/messages`).set(bearer(ws.key))).body.items as {
      role: string;
      text: string;
    }[];
  const plan = async (workspaceId = ws.workspaceId) => (await collections(api.db).workspaces.findOne({ _id: workspaceId }))!.plan;

  describe('a template send', () => {
    it('answers 201 with the provider message id, the normalised to and status sent', async () => {
      const to = fresh();
      const res = await send(orderUpdate(to.slice(1)));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ message_id: expect.stringMatching(/^wamid\.SIM[0-9A-F]{24}$/), channel: 'whatsapp', to, status: 'sent' });
    });

    it('appears in the customer’s conversation as a human turn with the filled template', async () => {
      const to = fresh();
      const res = await send(orderUpdate(to));
      const message = await outboundMessagesCollection(api.db).findOne({ _id: res.body.message_id });
      expect(await transcript(message!.conversation_id)).toEqual([
        expect.objectContaining({ role: 'human', text: 'Hi Asha, your order A-1 is on its way and should reach you by Friday.' }),
      ]);
      const started = await eventsOf(api.db, ws.workspaceId, 'conversation.started');
      expect(started.map((e) => e.data.conversation_id)).toContain(message!.conversation_id);
    });

    it('picks the language variant: exact, same base, else English', async () => {
      const to = fresh();
      for (const [language, start] of [
        ['hi', 'नमस्ते Asha'],
        ['hi_IN', 'नमस्ते Asha'],
        ['de', 'Hi Asha'],
      ] as const) {
        const res = await send(orderUpdate(to, { language }));
        expect(res.status).toBe(201);
        const message = await outboundMessagesCollection(api.db).findOne({ _id: res.body.message_id });
        expect(message!.template!.language).toBe(language === 'de' ? 'en' : 'hi');
        const turns = await transcript(message!.conversation_id);
        expect(turns[turns.length - 1]!.text.startsWith(start)).toBe(true);
      }
    });

    it('sends the template when both text and a template are given', async () => {
      const to = fresh();
      const res = await send({ ...orderUpdate(to), text: 'ignored free text' });
      expect(res.status).toBe(201);
      const message = await outboundMessagesCollection(api.db).findOne({ _id: res.body.message_id });
      expect(message!.kind).toBe('template');
    });

    it('stores metadata on the message and never echoes it', async () => {
      const res = await send({ ...orderUpdate(fresh()), metadata: { order: 'A-1', attempt: 2 } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['channel', 'message_id', 'status', 'to']);
      const message = await outboundMessagesCollection(api.db).findOne({ _id: res.body.message_id });
      expect(message!.metadata).toEqual({ order: 'A-1', attempt: 2 });
    });

    it('fills header and URL-button placeholders as separate namespaces', async () => {
      const header = await send({ to: fresh(), template: { name: 'appointment_reminder', header_variables: 'Asha', variables: { '1': 'Mon', '2': '10:00' } } });
      expect(header.status).toBe(201);
      const button = await send({ to: fresh(), template: { name: 'payment_due', variables: ['Asha', '500', 'Friday'], button_variables: 'inv-9' } });
      expect(button.status).toBe(201);
      const bare = await send({ to: fresh(), template: { name: 'welcome' } });
      expect(bare.status).toBe(201);
    });
  });

  describe('request validation', () => {
    it.each([
      ['channel sms', { to: '+919800000000', channel: 'sms', text: 'x' }, ['body', 'channel']],
      ['to too short', { to: '12345', text: 'x' }, ['body', 'to']],
      ['to too long', { to: '+1234567890123456789012', text: 'x' }, ['body', 'to']],
      ['to with spaces', { to: '+91 98000 00000', text: 'x' }, ['body', 'to']],
      ['to with dashes', { to: '+91-9800000000', text: 'x' }, ['body', 'to']],
      ['to with parentheses', { to: '(91)9800000000', text: 'x' }, ['body', 'to']],
      ['to with dots', { to: '91.9800000000', text: 'x' }, ['body', 'to']],
      ['to missing', { text: 'x' }, ['body', 'to']],
      ['text over 4,096', { to: '+919800000000', text: 'x'.repeat(4097) }, ['body', 'text']],
      ['template name not lowercase', { to: '+919800000000', template: { name: 'Order_Update' } }, ['body', 'template', 'name']],
      ['template name over 120', { to: '+919800000000', template: { name: 'x'.repeat(121) } }, ['body', 'template', 'name']],
      ['language over 16', { to: '+919800000000', template: { name: 'welcome', language: 'x'.repeat(17) } }, ['body', 'template', 'language']],
      ['sender_id over 64', { to: '+919800000000', text: 'x', sender_id: 's'.repeat(65) }, ['body', 'sender_id']],
      ['metadata not an object', { to: '+919800000000', text: 'x', metadata: 'no' }, ['body', 'metadata']],
    ])('%s is 400 Request validation failed at %j, with no reason', async (_label, body, loc) => {
      const res = await send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc, msg: expect.any(String), type: expect.any(String) }] }),
      );
    });

    it('accepts a to of 6 and of 20 characters, read as international digits', async () => {
      await injectInbound(api, ws.workspaceId, { from: '+123456', text: 'hi' });
      expect((await send({ to: '123456', text: 'x' })).body.to).toBe('+123456');
      const long = `+${'9'.repeat(19)}`;
      await injectInbound(api, ws.workspaceId, { from: long, text: 'hi' });
      expect((await send({ to: long, text: 'x' })).status).toBe(201);
    });
  });

  describe('empty_message', () => {
    it.each([{}, { text: '' }, { text: null, template: null }])('%j is 400 empty_message', async (extra) => {
      const res = await send({ to: fresh(), ...extra });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'Send text or a template: the message is empty.', { reason: 'empty_message' }));
    });

    it('does not catch whitespace-only text (it meets the window guard instead)', async () => {
      const res = await send({ to: fresh(), text: '   ' });
      expect(res.body.error.details.reason).toBe('session_window_closed');
    });
  });

  describe('free text and the 24-hour window', () => {
    it('is 409 session_window_closed before the customer has written', async () => {
      const to = fresh();
      const res = await send({ to, text: 'hello' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(envelope('conflict', `The 24-hour window with ${to} is closed; send a template instead.`, { reason: 'session_window_closed' }));
    });

    it('goes out inside the window, Markdown converted, never split', async () => {
      const to = fresh();
      const inbound = await injectInbound(api, ws.workspaceId, { from: to, text: 'hi there' });
      const long = `**Hello** see [our site](https://shop.test/a) ${'y'.repeat(4000)}`;
      const res = await send({ to, text: long });
      expect(res.status).toBe(201);
      const turns = await transcript(inbound.conversation_id);
      expect(turns.map((t) => t.role)).toEqual(['user', 'human']);
      expect(turns[1]!.text).toBe(`*Hello* see our site: https://shop.test/a ${'y'.repeat(4000)}`);
      expect(await outboundMessagesCollection(api.db).countDocuments({ to })).toBe(1);
    });

    it('is closed again 24 hours after the customer’s last message', async () => {
      const to = fresh();
      await injectInbound(api, ws.workspaceId, { from: to, text: 'old', received_at: new Date(Date.now() - 24 * 3600_000 - 60_000).toISOString() });
      expect((await send({ to, text: 'late' })).status).toBe(409);
      await injectInbound(api, ws.workspaceId, { from: to, text: 'new', received_at: new Date(Date.now() - 23 * 3600_000).toISOString() });
      expect((await send({ to, text: 'in time' })).status).toBe(201);
    });

    it('keeps the window per sender: a customer who wrote to one number is closed on another', async () => {
      const to = fresh();
      await injectInbound(api, ws.workspaceId, { from: to, text: 'hi' });
      const other = await request(api.server)
        .post(`/console/v1/workspaces/${ws.workspaceId}/senders`)
        .set(CONSOLE)
        .send({ phone: '+919000011111', display_name: 'Second line' });
      expect((await send({ to, text: 'hi', sender_id: other.body.sender_id })).status).toBe(409);
      expect((await send({ to, text: 'hi', sender_id: ws.senderId })).status).toBe(201);
      expect((await send({ ...orderUpdate(to), sender_id: other.body.sender_id })).status).toBe(201);
    });
  });

  describe('templates', () => {
    it('is 404 template_not_found for an unknown name, naming it', async () => {
      const res = await send({ to: fresh(), template: { name: 'no_such_template' } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelope('not_found', 'No approved template named no_such_template.', { reason: 'template_not_found' }));
    });

    it('is 404 template_not_found for a template not yet approved, and sends once approved', async () => {
      const created = await request(api.server)
        .post(`/console/v1/workspaces/${ws.workspaceId}/templates`)
        .set(CONSOLE)
        .send({ name: 'spring_sale', language: 'en', body: 'Sale starts {{1}}', status: 'pending' });
      const to = fresh();
      const res = await send({ to, template: { name: 'spring_sale', variables: ['Monday'] } });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ message: 'No approved template named spring_sale.', details: { reason: 'template_not_found' } });
      await request(api.server)
        .patch(`/console/v1/workspaces/${ws.workspaceId}/templates/${created.body.template_id}`)
        .set(CONSOLE)
        .send({ status: 'approved' });
      expect((await send({ to, template: { name: 'spring_sale', variables: ['Monday'] } })).status).toBe(201);
    });

    it('is 412 template_media_missing for an image header with no file', async () => {
      await request(api.server)
        .post(`/console/v1/workspaces/${ws.workspaceId}/templates`)
        .set(CONSOLE)
        .send({ name: 'new_arrivals', language: 'en', body: 'New in store', header: { type: 'image' } });
      const res = await send({ to: fresh(), template: { name: 'new_arrivals' } });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(
        envelope('failed_precondition', 'Template new_arrivals (en) has an image header with no file attached.', { reason: 'template_media_missing' }),
      );
    });

    it('sends an image-header template once its file is attached, with no header variables', async () => {
      await request(api.server)
        .post(`/console/v1/workspaces/${ws.workspaceId}/templates`)
        .set(CONSOLE)
        .send({ name: 'lookbook', language: 'en', body: 'Our {{1}} lookbook', header: { type: 'video', media_url: 'https://cdn.test/look.mp4' } });
      expect((await send({ to: fresh(), template: { name: 'lookbook', variables: 'summer' } })).status).toBe(201);
    });

    it.each([
      [{ name: 'order_update', variables: ['Asha', 'A-1'] }, 'Template order_update: the body has 3 placeholders but 2 variables were given.', { component: 'body', expected: 3, received: 2 }],
      [{ name: 'order_update', variables: 'Asha' }, 'Template order_update: the body has 3 placeholders but 1 variable was given.', { component: 'body', expected: 3, received: 1 }],
      [{ name: 'order_update' }, 'Template order_update: the body has 3 placeholders but 0 variables were given.', { component: 'body', expected: 3, received: 0 }],
      [
        { name: 'appointment_reminder', variables: ['Mon', '10:00'] },
        'Template appointment_reminder: the header has 1 placeholder but 0 variables were given.',
        { component: 'header', expected: 1, received: 0 },
      ],
      [
        { name: 'payment_due', variables: ['Asha', '500', 'Friday'], button_variables: ['a', 'b'] },
        'Template payment_due: the URL buttons have 1 placeholder but 2 variables were given.',
        { component: 'buttons', expected: 1, received: 2 },
      ],
      [{ name: 'welcome', variables: ['x'] }, 'Template welcome: the body has 0 placeholders but 1 variable was given.', { component: 'body', expected: 0, received: 1 }],
      [
        { name: 'order_update', variables: { '0': 'a', '1': 'b', '2': 'c' } },
        'Template order_update: body variables given as an object must be keyed by placeholder number, 1 to 3.',
        { component: 'body' },
      ],
    ])('%j is 400 template_variables', async (template, message, details) => {
      const res = await send({ to: fresh(), template });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', message, { reason: 'template_variables', ...details }));
    });
  });

  describe('senders', () => {
    it('is 412 channel_not_connected for a sender_id that is not the workspace’s', async () => {
      const other = await createTestWorkspace(api.db);
      for (const senderId of ['snd_missing', other.senderId]) {
        const res = await send({ ...orderUpdate(fresh()), sender_id: senderId });
        expect(res.status).toBe(412);
        expect(res.body).toEqual(
          envelope('failed_precondition', `Sender ${senderId} is not a sender of this workspace.`, { reason: 'channel_not_connected' }),
        );
      }
    });

    it('is 412 channel_not_connected when no sender is connected, and for a disconnected sender_id', async () => {
      const lone = await createTestWorkspace(api.db);
      await request(api.server).patch(`/console/v1/workspaces/${lone.workspaceId}/senders/${lone.senderId}`).set(CONSOLE).send({ connected: false });
      const res = await send(orderUpdate(fresh()), lone.key);
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', 'No WhatsApp sender is connected to this workspace.', { reason: 'channel_not_connected' }));
      const named = await send({ ...orderUpdate(fresh()), sender_id: lone.senderId }, lone.key);
      expect(named.body).toEqual(envelope('failed_precondition', `Sender ${lone.senderId} is not connected.`, { reason: 'channel_not_connected' }));
    });

    it('uses the default sender when sender_id is omitted, and the named one otherwise', async () => {
      const other = await request(api.server)
        .post(`/console/v1/workspaces/${ws.workspaceId}/senders`)
        .set(CONSOLE)
        .send({ phone: '+919000022222', display_name: 'Third line' });
      const byDefault = await send(orderUpdate(fresh()));
      const named = await send({ ...orderUpdate(fresh()), sender_id: other.body.sender_id });
      const messages = outboundMessagesCollection(api.db);
      expect((await messages.findOne({ _id: byDefault.body.message_id }))!.sender_id).toBe(ws.senderId);
      expect((await messages.findOne({ _id: named.body.message_id }))!.sender_id).toBe(other.body.sender_id);
    });
  });

  describe('suppressed', () => {
    it('is 403 suppressed after the customer replied STOP, for templates and text', async () => {
      const to = fresh();
      const stop = await injectInbound(api, ws.workspaceId, { from: to, text: '  Stop ' });
      expect(stop.opted_out).toBe(true);
      for (const body of [orderUpdate(to), { to, text: 'are you sure?' }]) {
        const res = await send(body);
        expect(res.status).toBe(403);
        expect(res.body).toEqual(
          envelope('permission_denied', `${to} opted out by replying STOP; nothing can be sent to this number.`, { reason: 'suppressed' }),
        );
      }
      await injectInbound(api, ws.workspaceId, { from: to, text: 'hello again' });
      expect((await send(orderUpdate(to))).status).toBe(403);
    });
  });

  describe('plan and standing', () => {
    let w: TestWorkspace;
    beforeEach(async () => {
      w = await createTestWorkspace(api.db);
    });

    it('is 412 channel_dormant when the plan no longer includes the chat channel', async () => {
      await updateWorkspace(api, w.workspaceId, { plan: { chat_channel: false } });
      const res = await send(orderUpdate(fresh()), w.key);
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', 'The plan no longer includes the WhatsApp channel.', { reason: 'channel_dormant' }));
    });

    it('counts a template send against included conversations first, then prepaid credits', async () => {
      await updateWorkspace(api, w.workspaceId, { plan: { conversations_included: 1, conversations_used: 0, prepaid_credits: 1 } });
      expect((await send(orderUpdate(fresh()), w.key)).status).toBe(201);
      expect(await plan(w.workspaceId)).toMatchObject({ conversations_used: 1, prepaid_credits: 1 });
      expect((await send(orderUpdate(fresh()), w.key)).status).toBe(201);
      expect(await plan(w.workspaceId)).toMatchObject({ conversations_used: 1, prepaid_credits: 0 });
      const res = await send(orderUpdate(fresh()), w.key);
      expect(res.status).toBe(412);
      expect(res.body).toEqual(
        envelope('failed_precondition', "The plan's conversations for this month are used up and there are no prepaid credits.", {
          reason: 'allowance_exhausted',
        }),
      );
    });

    it('takes nothing for text, but refuses text too once the allowance is used up', async () => {
      const to = fresh();
      await injectInbound(api, w.workspaceId, { from: to, text: 'hi' });
      await updateWorkspace(api, w.workspaceId, { plan: { conversations_included: 1, conversations_used: 0, prepaid_credits: 0 } });
      expect((await send({ to, text: 'free text' }, w.key)).status).toBe(201);
      expect((await plan(w.workspaceId)).conversations_used).toBe(0);
      await updateWorkspace(api, w.workspaceId, { plan: { conversations_used: 1 } });
      const res = await send({ to, text: 'free text' }, w.key);
      expect(res.status).toBe(412);
      expect(res.body.error.details).toEqual({ reason: 'allowance_exhausted' });
    });

    it('never over-spends under parallel sends', async () => {
      await updateWorkspace(api, w.workspaceId, { plan: { conversations_included: 5, conversations_used: 0, prepaid_credits: 3 } });
      const results = await Promise.all(Array.from({ length: 20 }, () => send(orderUpdate(fresh()), w.key)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(8);
      expect(statuses.filter((s) => s === 412)).toHaveLength(12);
      for (const r of results.filter((x) => x.status === 412)) expect(r.body.error.details).toEqual({ reason: 'allowance_exhausted' });
      expect(await plan(w.workspaceId)).toMatchObject({ conversations_used: 5, prepaid_credits: 0 });
    });

    it('is 503 busy with Retry-After when the plan lease stays taken past the wait; nothing is charged or recorded, and the key runs fresh after', async () => {
      // Another process holding the plan lease for longer than a request waits (5 s).
      const leaseName = `workspace-plan:${w.workspaceId}`;
      await api.db.collection('leases').insertOne({ _id: leaseName as never, token: 'another-process', expires_at: new Date(Date.now() + 120_000) });
      const to = fresh();
      const body = orderUpdate(to);
      const keyed = () => request(api.server).post('/api/v1/messages').set(bearer(w.key)).set('Idempotency-Key', `busy-${to}`).send(body);
      try {
        const res = await keyed();
        expect(res.status).toBe(503);
        expect(res.body).toEqual(envelope('internal', 'Too many requests are changing this workspace at once; retry shortly.', { reason: 'busy' }));
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        await api.db.collection('leases').deleteOne({ _id: leaseName as never, token: 'another-process' });
      }
      expect((await plan(w.workspaceId)).conversations_used).toBe(0);
      expect(await outboundMessagesCollection(api.db).countDocuments({ tenant_id: w.workspaceId })).toBe(0);
      const retried = await keyed();
      expect(retried.status).toBe(201);
      expect((await plan(w.workspaceId)).conversations_used).toBe(1);
    });

    it('is 412 workspace_suspended when the workspace is suspended during the send', async () => {
      // Hold the plan lease in the database (as another process would), so the send waits after
      // authentication; suspend once the send asks for the lease, then let it go. A fixed pause
      // here was not enough on a loaded machine: the suspension landed before the key check (403).
      const leaseName = `workspace-plan:${w.workspaceId}`;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let leased!: () => void;
      const gotLease = new Promise<void>((resolve) => (leased = resolve));
      const holder = withDatabaseLease(api.db, leaseName, async () => {
        leased();
        await held;
      });
      await gotLease;
      let asked!: () => void;
      const sendAsked = new Promise<void>((resolve) => (asked = resolve));
      const watch = (event: CommandStartedEvent) => {
        const doc = event.commandName === 'insert' && event.command.insert === 'leases' ? (event.command.documents as { _id: unknown }[])[0] : undefined;
        if (doc?._id === leaseName) asked();
      };
      api.mongo.on('commandStarted', watch);
      const pending = send(orderUpdate(fresh()), w.key).then((r) => r);
      await answeredWithin('the send asking for the plan lease', sendAsked, 30_000).finally(() => api.mongo.off('commandStarted', watch));
      await suspend(api.db, w.workspaceId);
      release();
      await holder;
      const res = await pending;
      expect(res.status).toBe(412);
      expect(res.body).toEqual(envelope('failed_precondition', 'This workspace is suspended for billing; nothing was sent.', { reason: 'workspace_suspended' }));
      expect((await plan(w.workspaceId)).conversations_used).toBe(0);
      // Suspended before the request, the key check answers first (api-core §5).
      expect((await send(orderUpdate(fresh()), w.key)).body.error.details.reason).toBe('workspace_suspended');
      expect((await send(orderUpdate(fresh()), w.key)).status).toBe(403);
    });
  });

  describe('the provider', () => {
    it('refuses with 502 provider_error, the provider’s details and no reason; the conversation is given back', async () => {
      const to = fresh();
      await scriptRecipient(api, ws.workspaceId, to, {
        refuse: { code: 131026, subcode: 2494010, message: 'Message undeliverable', user_message: 'This number is not on WhatsApp.' },
      });
      const before = await plan();
      const res = await send(orderUpdate(to));
      expect(res.status).toBe(502);
      expect(res.body).toEqual(
        envelope('provider_error', 'WhatsApp provider refused the message: Message undeliverable (code 131026).', {
          provider_code: 131026,
          provider_subcode: 2494010,
          provider_message: 'Message undeliverable',
          provider_user_message: 'This number is not on WhatsApp.',
        }),
      );
      expect(await plan()).toEqual(before);
      expect(await outboundMessagesCollection(api.db).countDocuments({ to })).toBe(0);
    });

    it('retries rate-limit and server errors, then succeeds', async () => {
      const to = fresh();
      await scriptRecipient(api, ws.workspaceId, to, { fail_next: 2, fail_kind: 'rate_limit' });
      const res = await send(orderUpdate(to));
      expect(res.status).toBe(201);
      const scripts = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/simulator/whatsapp`).set(CONSOLE);
      expect(scripts.body.items.find((s: { recipient: string }) => s.recipient === to).fail_next).toBe(0);
    });

    it('answers 502 after three attempts that all fail temporarily', async () => {
      const to = fresh();
      await scriptRecipient(api, ws.workspaceId, to, { fail_next: 4, fail_kind: 'server' });
      const res = await send(orderUpdate(to));
      expect(res.status).toBe(502);
      expect(res.body).toEqual(
        envelope('provider_error', 'WhatsApp provider refused the message: (#131000) Something went wrong (code 131000).', {
          provider_code: 131000,
          provider_subcode: null,
          provider_message: '(#131000) Something went wrong',
          provider_user_message: null,
        }),
      );
      const scripts = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/simulator/whatsapp`).set(CONSOLE);
      expect(scripts.body.items.find((s: { recipient: string }) => s.recipient === to).fail_next).toBe(1);
    });

    it('reports delivery statuses as message.status events keyed by message_id', async () => {
      const to = fresh();
      await scriptRecipient(api, ws.workspaceId, to, { outcome: 'read', delays_ms: { sent: 0, delivered: 50, read: 50 } });
      const res = await send(orderUpdate(to));
      const id = res.body.message_id;
      const statuses = await eventually(async () => {
        const events = (await eventsOf(api.db, ws.workspaceId, 'message.status')).filter((e) => e.data.message_id === id);
        return events.length === 3 ? events : null;
      }, 'three statuses');
      expect(statuses.map((e) => String(e.data.status)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(['delivered', 'read', 'sent']);
      expect(statuses[0]!.data).toMatchObject({ message_id: id, channel: 'whatsapp', to });
      expect((await outboundMessagesCollection(api.db).findOne({ _id: id }))!.status).toBe('read');
    });

    it('reports a failed delivery with the provider’s reason', async () => {
      const to = fresh();
      await scriptRecipient(api, ws.workspaceId, to, { outcome: 'failed', delays_ms: { sent: 0, failed: 10 } });
      const id = (await send(orderUpdate(to))).body.message_id;
      const failed = await eventually(
        async () => (await eventsOf(api.db, ws.workspaceId, 'message.status')).find((e) => e.data.message_id === id && e.data.status === 'failed'),
        'a failed status',
      );
      expect(failed.data.error).toEqual({ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' });
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer without reaching the provider again; a different body is 409', async () => {
      const to = fresh();
      const body = orderUpdate(to);
      const first = await send(body).set('Idempotency-Key', `msg-${to}`);
      const again = await send(body).set('Idempotency-Key', `msg-${to}`);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(await outboundMessagesCollection(api.db).countDocuments({ to })).toBe(1);
      const reuse = await send({ ...body, text: 'different' }).set('Idempotency-Key', `msg-${to}`);
      expect(reuse.status).toBe(409);
      expect(reuse.body.error.details).toEqual({ reason: 'idempotency_key_reuse' });
    });

    it('releases the key on a refusal, so a retry runs fresh', async () => {
      const to = fresh();
      const refused = await send({ to, text: 'hi' }).set('Idempotency-Key', `retry-${to}`);
      expect(refused.status).toBe(409);
      await injectInbound(api, ws.workspaceId, { from: to, text: 'hello' });
      expect((await send({ to, text: 'hi' }).set('Idempotency-Key', `retry-${to}`)).status).toBe(201);
    });
  });

  it('needs the messages:send scope', async () => {
    const { key } = await ws.addKey(['conversations:read']);
    const res = await send(orderUpdate(fresh()), key);
    expect(res.status).toBe(403);
    expect(res.body.error.details).toEqual({ reason: 'missing_scope', required_scope: 'messages:send' });
  });
});

describe('POST /api/v1/messages on a deployment without WhatsApp', () => {
  it('is 412 unsupported_channel listing what the deployment offers', async () => {
    const api = await startTestApi({ env: { DEPLOYMENT_CHANNELS: 'voice' } });
    try {
      const ws = await createTestWorkspace(api.db);
      const res = await request(api.server)
        .post('/api/v1/messages')
        .set(bearer(ws.key))
        .send({ to: '+919800000001', template: { name: 'welcome' } });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(
        envelope('failed_precondition', 'WhatsApp is not available on this deployment.', { reason: 'unsupported_channel', supported: ['voice'] }),
      );
    } finally {
      await api.close();
    }
  });
});
