import type { Db } from 'mongodb';
import { createEventPublisher } from '../../../src/events/publisher';
import { collections } from '../../../src/db/collections';
import { checkedSender, lookUpSendChecks, SendRefusal, sendWhatsAppMessage, type SendChecked } from '../../../src/messaging/sendMessage';
import { recordOptOut } from '../../../src/messaging/optOut';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import type { SendAttempt, WhatsAppProvider } from '../../../src/messaging/whatsAppSender';
import { openTestDb, testConfig } from '../../support/env';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';
import { acceptingProvider } from '../../support/acceptingProvider';

/** The send core on its own, with a provider whose follow-up fails after it accepted. */
describe('sendWhatsAppMessage', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
  });
  afterAll(async () => {
    await drop();
  });

  it('answers the accepted message even when the provider’s follow-up fails, and logs it', async () => {
    const provider: WhatsAppProvider = {
      name: 'simulator',
      send: async (): Promise<SendAttempt> => ({ ok: true, messageId: 'wamid.ACCEPTED' }),
      accepted: async () => {
        throw new Error('temporal unreachable');
      },
    };
    const warnings: unknown[] = [];
    const result = await sendWhatsAppMessage(
      {
        db,
        events: createEventPublisher(db, { dispatch: async () => undefined }),
        provider,
        deploymentChannels: ['whatsapp'],
        now: () => new Date(),
        logger: { warn: (...args: unknown[]) => warnings.push(args) } as never,
      },
      { tenantId: ws.workspaceId, to: '919800000555', template: { name: 'welcome' }, intentKey: `${ws.workspaceId}|test|accepted` },
    );
    expect(result).toMatchObject({ message_id: 'wamid.ACCEPTED', channel: 'whatsapp', to: '+919800000555', status: 'sent' });
    expect(warnings).toHaveLength(1);
  });

  it('stores a send’s origin in the intent’s and the message’s fields as before (campaign_id, campaign_recipient_id), and nulls without one', async () => {
    const provider: WhatsAppProvider = { name: 'simulator', send: async (request): Promise<SendAttempt> => ({ ok: true, messageId: `wamid.ORIGIN${request.to.slice(-3)}` }) };
    const deps = { db, events: createEventPublisher(db, { dispatch: async () => undefined }), provider, deploymentChannels: ['whatsapp'], now: () => new Date() };
    const fromCampaign = await sendWhatsAppMessage(deps, {
      tenantId: ws.workspaceId,
      to: '919800000701',
      template: { name: 'welcome' },
      intentKey: `${ws.workspaceId}|test|origin-1`,
      origin: { kind: 'campaign', id: 'cmp_origin', recipientKey: 'cmp_origin:0' },
    });
    const direct = await sendWhatsAppMessage(deps, { tenantId: ws.workspaceId, to: '919800000702', template: { name: 'welcome' }, intentKey: `${ws.workspaceId}|test|origin-2` });
    const intents = db.collection('send_intents');
    const messages = outboundMessagesCollection(db);
    expect(await intents.findOne({ _id: `${ws.workspaceId}|test|origin-1` as never })).toMatchObject({ campaign_id: 'cmp_origin', campaign_recipient_id: 'cmp_origin:0' });
    expect(await messages.findOne({ _id: fromCampaign.message_id })).toMatchObject({ campaign_id: 'cmp_origin', campaign_recipient_id: 'cmp_origin:0' });
    expect(await intents.findOne({ _id: `${ws.workspaceId}|test|origin-2` as never })).toMatchObject({ campaign_id: null, campaign_recipient_id: null });
    expect(await messages.findOne({ _id: direct.message_id })).toMatchObject({ campaign_id: null, campaign_recipient_id: null });
  });

  describe('with a batch context (a campaign batch looks up its sender and template once)', () => {
    const { provider, sent } = acceptingProvider('simulator', 'CTX');
    const deps = () => ({ db, events: createEventPublisher(db, { dispatch: async () => undefined }), provider, deploymentChannels: ['whatsapp'], now: () => new Date() });

    it('sends with the context’s sender and template variant, reading neither', async () => {
      const context = await lookUpSendChecks(db, ws.workspaceId, null, { name: 'welcome' });
      expect(context.sender.ok).toBe(true);
      expect(context.template?.name).toBe('welcome');
      const changed = { ...context, template: { ...context.template!, body: 'Changed after the lookup' } };
      const result = await sendWhatsAppMessage(deps(), { tenantId: ws.workspaceId, to: '919800000601', template: { name: 'welcome' }, intentKey: `${ws.workspaceId}|test|ctx-1`, checked: changed });
      expect(result.status).toBe('sent');
      const intent = await db.collection('send_intents').findOne({ _id: `${ws.workspaceId}|test|ctx-1` as never });
      expect(intent?.transcript_text).toBe('Changed after the lookup');
      expect(sent.at(-1)).toMatchObject({ from: context.sender.ok ? context.sender.sender.phone : null, to: '+919800000601' });
    });

    it('refuses a context sender at the sender’s place in the guard order (before the opt-out), and a missing variant as template_not_found', async () => {
      await recordOptOut(db, { tenantId: ws.workspaceId, phone: '+919800000602', sourceMessageId: 'wamid.STOP602', at: new Date() });
      const context = await lookUpSendChecks(db, ws.workspaceId, null, { name: 'welcome' });
      const noSender = { ...context, sender: { ok: false as const, message: 'No WhatsApp sender is connected to this workspace.' } };
      const refused = await sendWhatsAppMessage(deps(), { tenantId: ws.workspaceId, to: '919800000602', template: { name: 'welcome' }, intentKey: `${ws.workspaceId}|test|ctx-2`, checked: noSender }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SendRefusal);
      expect((refused as SendRefusal).reason).toBe('channel_not_connected');

      const noTemplate = { ...context, template: null };
      const missing = await sendWhatsAppMessage(deps(), { tenantId: ws.workspaceId, to: '919800000603', template: { name: 'welcome' }, intentKey: `${ws.workspaceId}|test|ctx-3`, checked: noTemplate }).catch((e: unknown) => e);
      expect((missing as SendRefusal).reason).toBe('template_not_found');
      expect((missing as SendRefusal).message).toBe('No approved template named welcome.');
      expect(await collections(db).templates.countDocuments({ tenant_id: ws.workspaceId, name: 'welcome' })).toBeGreaterThan(0);
    });
  });

  describe('with what a chat agent’s turn checked (its sender and the window, one `checked` input)', () => {
    const sent: string[] = [];
    const provider: WhatsAppProvider = {
      name: 'simulator',
      send: async (request): Promise<SendAttempt> => {
        sent.push(request.to);
        return { ok: true, messageId: `wamid.TURN${sent.length}` };
      },
    };
    const deps = () => ({ db, events: createEventPublisher(db, { dispatch: async () => undefined }), provider, deploymentChannels: ['whatsapp'], now: () => new Date() });
    const text = (to: string, key: string, checked?: SendChecked) =>
      sendWhatsAppMessage(deps(), { tenantId: ws.workspaceId, to, text: 'Your order is on its way.', intentKey: `${ws.workspaceId}|test|${key}`, ...(checked ? { checked } : {}) }).catch((e: unknown) => e);

    it('a text inside the window the turn found is sent without reading it; past that time, or unchecked, the closed window refuses it', async () => {
      const sender = (await collections(db).senders.findOne({ _id: ws.senderId }))!;
      // Nobody at this number ever wrote: its window, when read, is closed.
      const unchecked = await text('919800000801', 'turn-1');
      expect((unchecked as SendRefusal).reason).toBe('session_window_closed');
      const open = await text('919800000801', 'turn-2', { sender: checkedSender(sender, ws.workspaceId), windowOpenUntil: new Date(Date.now() + 60_000) });
      expect(open).toMatchObject({ status: 'sent', to: '+919800000801' });
      expect(sent).toEqual(['+919800000801']);
      const lapsed = await text('919800000801', 'turn-3', { sender: checkedSender(sender, ws.workspaceId), windowOpenUntil: new Date(Date.now() - 1_000) });
      expect(lapsed).toBeInstanceOf(SendRefusal);
      expect((lapsed as SendRefusal).message).toBe('The 24-hour window with +919800000801 is closed; send a template instead.');
      expect(sent).toHaveLength(1);
    });

    it('a checked sender disconnected or of another workspace is refused as a named one is, at the sender’s place (before the opt-out)', async () => {
      const sender = (await collections(db).senders.findOne({ _id: ws.senderId }))!;
      await recordOptOut(db, { tenantId: ws.workspaceId, phone: '+919800000802', sourceMessageId: 'wamid.STOP802', at: new Date() });
      const until = new Date(Date.now() + 60_000);
      const disconnected = await text('919800000802', 'turn-4', { sender: checkedSender({ ...sender, connected: false }, ws.workspaceId), windowOpenUntil: until });
      expect(disconnected).toMatchObject({ reason: 'channel_not_connected', message: `Sender ${sender._id} is not connected.` });
      const foreign = await text('919800000802', 'turn-5', { sender: checkedSender(sender, 'ws_someone_else'), windowOpenUntil: until });
      expect(foreign).toMatchObject({ reason: 'channel_not_connected', message: `Sender ${sender._id} is not a sender of this workspace.` });
      const suppressed = await text('919800000802', 'turn-6', { sender: checkedSender(sender, ws.workspaceId), windowOpenUntil: until });
      expect(suppressed).toMatchObject({ reason: 'suppressed' });
    });
  });
});
