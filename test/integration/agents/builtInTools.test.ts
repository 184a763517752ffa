import type { CallBack } from '../../../src/calls/contracts';
import { conversationMessagesCollection } from '../../../src/conversations';
import { callBackIdFor } from '../../../src/calls';
import { callCollections } from '../../../src/calls/callStore';
import { matchOrCreateContact } from '../../../src/contacts';
import { collections } from '../../../src/db/collections';
import { duesCollections, dueIdFor, phoneClaimId, type DueDoc, type SubscriberDoc } from '../../../src/dues/store';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { ticketCollections } from '../../../src/tickets/ticketStore';
import { useTestApi } from '../../support/app';
import { builtInToolbox, toolContext } from '../../support/agentTools';
import { injectInbound } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';
import type { Toolbox } from '../../../src/agents';

/**
 * The built-in agent tools against the real FerretDB (and Temporal for the call-back): each
 * acts only within its context's workspace, a retried run (same run key) repeats nothing, and
 * a failure answers `ok: false` in words the agent can say, with a trail row.
 */
describe('built-in agent tools', () => {
  const { api, ws } = useTestApi({ worker: true });
  let tools: Toolbox;
  let other: TestWorkspace;
  let n = 0;
  const phone = () => `+9197${String(Date.now() % 100_000).padStart(5, '0')}${String(++n).padStart(3, '0')}`;
  beforeAll(async () => {
    tools = builtInToolbox(api);
    other = await createTestWorkspace(api.db);
  });
  /** What went out to `to` from the test workspace: each message's id and its transcript text. */
  async function sentTexts(to: string): Promise<[string, string | null][]> {
    const outbound = await outboundMessagesCollection(api.db).find({ tenant_id: ws.workspaceId, to }).toArray();
    return Promise.all(outbound.map(async (m) => [m._id, (await conversationMessagesCollection(api.db).findOne({ _id: m.transcript_message_id }))!.text] as [string, string | null]));
  }
  const ctx = (w: TestWorkspace, more: Parameters<typeof toolContext>[2] = {}) => toolContext(w.workspaceId, w.agentId, more);

  it('lists the six built-ins with JSON-schema parameters', async () => {
    const listed = await tools.toolsFor({ tenantId: ws.workspaceId, agentId: ws.agentId, channel: 'voice' });
    expect(listed.map((tool) => tool.name)).toEqual(['find_contact', 'open_ticket', 'read_dues', 'send_payment_link', 'schedule_call_back', 'send_whatsapp_follow_up']);
    for (const tool of listed) expect(tool.parameters).toMatchObject({ type: 'object', additionalProperties: false });
  });

  describe('find_contact', () => {
    it("finds the caller's contact by their number, by email, and nothing of another workspace", async () => {
      const caller = phone();
      const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
      const { contact } = await matchOrCreateContact(api.db, workspace, { name: 'Asha Rao', phone: caller, email: `asha${n}@example.com` }, new Date());
      const expected = { id: contact._id, name: 'Asha Rao', email: `asha${n}@example.com`, phone: caller, external_id: null, tags: [] };

      const byNumber = await tools.run(ctx(ws, { customerPhone: caller }), 'find_contact', {});
      expect(byNumber).toMatchObject({ ok: true, output: { found: true, contact: expected } });
      expect(byNumber.trail).toEqual({ kind: 'lookup', text: `Looked up the contact for ${caller}: Asha Rao (${contact._id})`, detail: { contact_id: contact._id } });
      // Found by what the person said: the contact's other identity is not read out.
      const byEmail = await tools.run(ctx(ws), 'find_contact', { email: `ASHA${n}@example.com` });
      expect(byEmail.output).toEqual({ found: true, contact: { ...expected, phone: undefined } });
      expect(JSON.stringify(byEmail.output)).not.toContain(caller);
      const byPhone = await tools.run(ctx(ws, { customerPhone: phone() }), 'find_contact', { phone: caller });
      expect(byPhone.output).toEqual({ found: true, contact: { ...expected, email: undefined } });

      const elsewhere = await tools.run(ctx(other, { customerPhone: caller }), 'find_contact', {});
      expect(elsewhere).toMatchObject({ ok: true, output: { found: false }, trail: { kind: 'lookup', text: `Looked up the contact for ${caller}: none found` } });
    });

    it('refuses arguments outside its schema as ok:false, never throwing', async () => {
      const refused = await tools.run(ctx(ws), 'find_contact', { name: 'Asha' });
      expect(refused.ok).toBe(false);
      expect(refused.output).toEqual({ error: 'The find_contact arguments were not understood (arguments: Unrecognized key: "name").' });
      expect(refused.trail.kind).toBe('lookup');
      const nothing = await tools.run(ctx(ws), 'find_contact', {});
      expect(nothing).toMatchObject({ ok: false, output: { error: 'Tell me a phone number or an email to look up.' } });
    });
  });

  describe('open_ticket', () => {
    it('opens one ticket per run key, in the context’s workspace, from the agent on its channel', async () => {
      const caller = phone();
      const context = ctx(ws, { customerPhone: caller, callId: 'call_000000000000aaaaaaaaaaaa' });
      const args = { subject: 'Parcel not delivered', description: 'Order 1234 has not arrived.', priority: 'high' };
      const first = await tools.run(context, 'open_ticket', args);
      expect(first.ok).toBe(true);
      const { ticket_id: ticketId, reference } = first.output as { ticket_id: string; reference: string };
      expect(first.output).toEqual({ ticket_id: ticketId, reference: expect.stringMatching(/^TKT-[0-9A-F]{8}$/), status: 'new', priority: 'high' });
      expect(first.trail).toEqual({ kind: 'tool', text: `Opened ticket ${reference}: Parcel not delivered`, detail: { ticket_id: ticketId, created: true } });

      // Temporal or the realtime session retries the run: the same ticket, not a second.
      const again = await tools.run(context, 'open_ticket', args);
      expect(again.output).toEqual(first.output);
      expect(again.trail.detail).toEqual({ ticket_id: ticketId, created: false });

      const stored = (await ticketCollections(api.db).tickets.findOne({ _id: ticketId }))!;
      expect(stored).toMatchObject({
        tenant_id: ws.workspaceId,
        subject: 'Parcel not delivered',
        priority: 'high',
        requester: { name: null, email: null, phone: caller, external_id: null },
        source: { channel: 'voice', thread_id: 'call_000000000000aaaaaaaaaaaa', message_id: null },
        created_by: { kind: 'agent', agent_id: ws.agentId },
        tags: ['agent'],
      });
      expect(await ticketCollections(api.db).tickets.countDocuments({ tenant_id: ws.workspaceId, 'requester.phone': caller })).toBe(1);

      // The same run key in another workspace is that workspace's own ticket.
      const elsewhere = await tools.run({ ...context, tenantId: other.workspaceId, agentId: other.agentId }, 'open_ticket', args);
      const otherId = (elsewhere.output as { ticket_id: string }).ticket_id;
      expect(otherId).not.toBe(ticketId);
      expect((await ticketCollections(api.db).tickets.findOne({ _id: otherId }))!.tenant_id).toBe(other.workspaceId);
    });

    it('answers ok:false when the deployment has no tickets, and for a missing subject', async () => {
      const closed = await createTestWorkspace(api.db);
      await collections(api.db).workspaces.updateOne({ _id: closed.workspaceId }, { $set: { 'capabilities.tickets': false } });
      const refused = await tools.run(ctx(closed), 'open_ticket', { subject: 'Help', description: 'Please.' });
      expect(refused).toMatchObject({ ok: false, output: { error: 'Tickets are not available for this business.' }, trail: { kind: 'tool', text: 'open_ticket: tickets are not available on this deployment' } });
      const noSubject = await tools.run(ctx(ws), 'open_ticket', { description: 'Please.' });
      expect(noSubject).toMatchObject({ ok: false, output: { error: 'The open_ticket arguments were not understood (subject: Invalid input: expected string, received undefined).' } });
    });
  });

  /** A subscriber on `phone` with an open due (Rs 1,500, Nov) and a paid one (Oct), written as the dues app writes them. */
  async function subscriberWithDues(w: TestWorkspace, on: string): Promise<{ subscriber: SubscriberDoc; open: DueDoc; paid: DueDoc }> {
    const { subscribers, phones, dues } = duesCollections(api.db);
    const now = new Date();
    const subscriber: SubscriberDoc = {
      _id: `sub_${String(Date.now()).padStart(16, '0')}${String(++n).padStart(8, '0')}`,
      tenant_id: w.workspaceId,
      contact_id: null,
      contact_pending: false,
      name: 'Ravi Kumar',
      phone: on,
      email: null,
      plan_name: 'Gym monthly',
      amount: 1500,
      currency: 'INR',
      cycle_unit: 'monthly',
      cycle_days: null,
      due_day: 5,
      start_date: '2026-10-05',
      status: 'active',
      notes: null,
      tags: [],
      next_due_date: '2026-12-05',
      last_paid_at: now,
      collected_total: 1500,
      outstanding_total: 1500,
      dues_paid: 1,
      dues_declined: 0,
      version: 1,
      created_at: now,
      updated_at: now,
    };
    await subscribers.insertOne(subscriber);
    await phones.insertOne({ _id: phoneClaimId(w.workspaceId, on), tenant_id: w.workspaceId, subscriber_id: subscriber._id, created_at: now });
    const due = (cycle: number, period: string, date: string, status: DueDoc['status']): DueDoc => ({
      _id: dueIdFor(subscriber._id, cycle),
      tenant_id: w.workspaceId,
      subscriber_id: subscriber._id,
      subscriber_name: 'Ravi Kumar',
      phone: on,
      contact_id: null,
      cycle_index: cycle,
      period_label: period,
      amount: 1500,
      currency: 'INR',
      due_date: date,
      status,
      collection_mode: 'payment_link',
      payment_link: null,
      payment_link_id: null,
      payment_reference: null,
      paid_at: status === 'paid' ? now : null,
      paid_amount: status === 'paid' ? 1500 : null,
      paid_source: status === 'paid' ? 'manual' : null,
      marked_by: null,
      marked_by_name: null,
      reminders_sent: 1,
      last_reminder_at: null,
      next_action_at: null,
      campaign_id: null,
      failure_reason: null,
      version: 1,
      created_at: now,
      updated_at: now,
    });
    const paid = due(0, 'Oct 2026', '2026-10-05', 'paid');
    const open = due(1, 'Nov 2026', '2026-11-05', 'reminded');
    await dues.insertMany([paid, open]);
    return { subscriber, open, paid };
  }

  describe('read_dues', () => {
    it("reads the caller's dues, open first; another workspace's subscriber on the same number is not theirs", async () => {
      const caller = phone();
      const { subscriber, open, paid } = await subscriberWithDues(ws, caller);
      const read = await tools.run(ctx(ws, { customerPhone: caller }), 'read_dues', {});
      expect(read.ok).toBe(true);
      expect(read.output).toEqual({
        subscriber: true,
        name: 'Ravi Kumar',
        plan: 'Gym monthly',
        outstanding: 'Rs 1,500',
        dues: [
          { due_id: open._id, period: 'Nov 2026', amount: 'Rs 1,500', due_date: '2026-11-05', status: 'reminded', open: true, has_payment_link: false },
          { due_id: paid._id, period: 'Oct 2026', amount: 'Rs 1,500', due_date: '2026-10-05', status: 'paid', open: false, has_payment_link: false },
        ],
      });
      expect(read.trail).toEqual({
        kind: 'lookup',
        text: `Looked up the dues of ${caller}: 1 open, Rs 1,500 outstanding`,
        detail: { subscriber_id: subscriber._id, due_ids: [open._id, paid._id] },
      });
      const elsewhere = await tools.run(ctx(other, { customerPhone: caller }), 'read_dues', {});
      expect(elsewhere).toMatchObject({ ok: true, output: { subscriber: false, dues: [] }, trail: { text: `Looked up the dues of ${caller}: not a subscriber` } });
    });

    it('answers ok:false without a customer number', async () => {
      const read = await tools.run(ctx(ws), 'read_dues', {});
      expect(read).toMatchObject({ ok: false, output: { error: "I don't have this person's phone number." }, trail: { kind: 'lookup', text: 'read_dues: no customer phone on this call' } });
    });
  });

  describe('send_payment_link', () => {
    it('inside the 24-hour window sends the link as text, once per run key; only the caller’s own open dues', async () => {
      const caller = phone();
      const { open, paid } = await subscriberWithDues(ws, caller);
      await injectInbound(api, ws.workspaceId, { from: caller, text: 'How do I pay?' });
      const context = ctx(ws, { customerPhone: caller });
      const sent = await tools.run(context, 'send_payment_link', { due_id: open._id });
      expect(sent).toMatchObject({ ok: true, output: { sent: true, due_id: open._id, amount: 'Rs 1,500', by: 'text' } });
      const linked = (await duesCollections(api.db).dues.findOne({ _id: open._id }))!;
      expect(linked.payment_link).toMatch(/^https:\/\/pay\.example\.com\/l\/plink_sim_/);
      const messageId = (sent.trail.detail as { message_id: string }).message_id;
      expect(sent.trail).toEqual({ kind: 'tool', text: `Sent the payment link for Nov 2026 (Rs 1,500) to ${caller} on WhatsApp as text`, detail: { due_id: open._id, message_id: messageId } });
      expect(await sentTexts(caller)).toEqual([[messageId, `Here is your payment link for Nov 2026 (Rs 1,500): ${linked.payment_link}`]]);

      const again = await tools.run(context, 'send_payment_link', { due_id: open._id });
      expect(again.trail.detail).toEqual({ due_id: open._id, message_id: messageId });
      expect(await outboundMessagesCollection(api.db).countDocuments({ tenant_id: ws.workspaceId, to: caller })).toBe(1);

      const paidDue = await tools.run(ctx(ws, { customerPhone: caller }), 'send_payment_link', { due_id: paid._id });
      expect(paidDue).toMatchObject({ ok: false, output: { error: 'That due is already paid; there is nothing to pay.' } });
      const notTheirs = await tools.run(ctx(ws, { customerPhone: phone() }), 'send_payment_link', { due_id: open._id });
      expect(notTheirs).toMatchObject({ ok: false, output: { error: 'I could not find that due for this person.' } });
      const otherWorkspace = await tools.run(ctx(other, { customerPhone: caller }), 'send_payment_link', { due_id: open._id });
      expect(otherWorkspace).toMatchObject({ ok: false, output: { error: 'I could not find that due for this person.' } });
    });

    it('outside the window sends the dues app’s template instead of free text', async () => {
      const caller = phone();
      const { open } = await subscriberWithDues(ws, caller);
      const sent = await tools.run(ctx(ws, { customerPhone: caller }), 'send_payment_link', { due_id: open._id });
      expect(sent).toMatchObject({ ok: true, output: { by: 'template' }, trail: { text: `Sent the payment link for Nov 2026 (Rs 1,500) to ${caller} on WhatsApp as template` } });
      const [message] = await outboundMessagesCollection(api.db).find({ tenant_id: ws.workspaceId, to: caller }).toArray();
      expect(message!.template).toEqual({ name: 'payment_due', language: 'en' });
    });
  });

  describe('send_whatsapp_follow_up', () => {
    it('sends text inside the window once per run key; outside it, says a template is needed', async () => {
      const caller = phone();
      const closed = await tools.run(ctx(ws, { customerPhone: caller }), 'send_whatsapp_follow_up', { text: 'Thanks for your call!' });
      expect(closed).toEqual({
        ok: false,
        output: { error: `The WhatsApp message could not be sent: The 24-hour window with ${caller} is closed; send a template instead.` },
        trail: { kind: 'tool', text: `send_whatsapp_follow_up: not sent to ${caller}: session_window_closed` },
        latencyMs: expect.any(Number),
      });

      await injectInbound(api, ws.workspaceId, { from: caller, text: 'Send me the summary please' });
      const context = ctx(ws, { customerPhone: caller, callId: 'call_000000000000bbbbbbbbbbbb' });
      const sent = await tools.run(context, 'send_whatsapp_follow_up', { text: 'Thanks for your call!' });
      const messageId = (sent.output as { message_id: string }).message_id;
      expect(sent).toMatchObject({ ok: true, output: { sent: true, message_id: messageId }, trail: { kind: 'tool', text: `Sent a WhatsApp follow-up to ${caller}: "Thanks for your call!"` } });
      const again = await tools.run(context, 'send_whatsapp_follow_up', { text: 'Thanks for your call!' });
      expect(again.output).toEqual(sent.output);
      expect(await sentTexts(caller)).toEqual([[messageId, 'Thanks for your call!']]);
      expect((await outboundMessagesCollection(api.db).findOne({ _id: messageId }))!.metadata).toEqual({ call_id: 'call_000000000000bbbbbbbbbbbb' });
      // Another workspace has no window with this person.
      const elsewhere = await tools.run({ ...context, tenantId: other.workspaceId, agentId: other.agentId }, 'send_whatsapp_follow_up', { text: 'Hi' });
      expect(elsewhere.trail.text).toBe(`send_whatsapp_follow_up: not sent to ${caller}: session_window_closed`);
    });

    it('refuses both text and a template at once', async () => {
      const refused = await tools.run(ctx(ws, { customerPhone: phone() }), 'send_whatsapp_follow_up', { text: 'a', template: { name: 'order_update' } });
      expect(refused).toMatchObject({ ok: false, output: { error: 'The send_whatsapp_follow_up arguments were not understood (arguments: give exactly one of text and template).' } });
    });
  });

  describe('schedule_call_back', () => {
    it('starts one call-back workflow per run key, which places the call to the caller when its time comes', async () => {
      const caller = phone();
      // The run began 58 s ago: a call-back "in 1 minute" is due in about 2 s.
      const context = ctx(ws, { customerPhone: caller, now: new Date(Date.now() - 58_000) });
      const scheduled = await tools.run(context, 'schedule_call_back', { in_minutes: 1, reason: 'the invoice' });
      const callBackId = callBackIdFor(ws.workspaceId, context.runKey);
      const at = new Date(context.now.getTime() + 60_000).toISOString();
      expect(scheduled).toMatchObject({
        ok: true,
        output: { scheduled: true, call_back_id: callBackId, at },
        trail: { kind: 'tool', text: `Scheduled a call-back to ${caller} at ${at}`, detail: { call_back_id: callBackId, first_run: true } },
      });
      const again = await tools.run(context, 'schedule_call_back', { in_minutes: 1, reason: 'the invoice' });
      expect(again.output).toEqual(scheduled.output);
      expect(again.trail.detail).toEqual({ call_back_id: callBackId, first_run: false });

      const result = await api.temporal.workflow.getHandle<CallBack>(callBackId).result();
      expect(result).toEqual({ callId: expect.stringMatching(/^call_[0-9a-f]{24}$/), refusal: null });
      const call = (await callCollections(api.db).calls.findOne({ _id: result.callId! }))!;
      expect(call).toMatchObject({ tenant_id: ws.workspaceId, to: caller, agent_id: ws.agentId, purpose: 'A call-back the person asked for: the invoice', metadata: { call_back_id: callBackId } });
      expect(call.created_at.getTime()).toBeGreaterThanOrEqual(Date.parse(at));
    });

    it('answers ok:false for a time out of range and without a number', async () => {
      const tooSoon = await tools.run(ctx(ws, { customerPhone: phone() }), 'schedule_call_back', { at: new Date(Date.now() + 10_000).toISOString() });
      expect(tooSoon).toMatchObject({ ok: false, output: { error: 'A call-back must be between 1 minute and 30 days from now.' } });
      const nobody = await tools.run(ctx(ws), 'schedule_call_back', { in_minutes: 5 });
      expect(nobody).toMatchObject({ ok: false, output: { error: "I don't have this person's phone number." } });
    });
  });
});
