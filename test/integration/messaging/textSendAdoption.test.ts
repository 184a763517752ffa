import type { Db } from 'mongodb';
import { conversationMessagesCollection } from '../../../src/conversations/store';
import { createEventPublisher } from '../../../src/events/publisher';
import type { CloudStatus } from '../../../src/messaging/cloudWebhookBatch';
import { ingestCloudWebhook } from '../../../src/messaging/cloudIngest';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { sendIntentsCollection } from '../../../src/messaging/sendIntents';
import { SEND_INTENT_LEASE_MS, SendOutcomeUnknown, sendWhatsAppMessage, type SendMessageInput } from '../../../src/messaging/sendMessage';
import { openWindow } from '../../../src/messaging/sessionWindow';
import { openTestDb, testConfig } from '../../support/env';
import { hookedDb } from '../../support/hookedDb';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';
import { acceptingProvider } from '../../support/acceptingProvider';

/**
 * A free-text send (inside the 24-hour window: no charge) whose attempt died between the
 * provider's answer and its record of it, retried while the provider's status adopts it
 * (src/messaging/unknownOutcomes.ts). The two meet on one claim (`send_refunds`, as a
 * template's charge does), so the retry's answer agrees with the records: sent with the
 * message id when the adoption claimed first, unknown with nothing recorded when the retry
 * decided first. Each interleaving is forced at an exact database call of the real code.
 */
describe('a text send retried while a status adopts it', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;
  let n = 0;
  const { provider, sent } = acceptingProvider('cloud', 'TEXT');

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
  });
  afterAll(async () => {
    await drop();
  });

  const events = () => createEventPublisher(db, { dispatch: async () => undefined });
  /** Past the dead attempt's lease: what the retry and the status's processes read the clock as. */
  const later = () => new Date(Date.now() + SEND_INTENT_LEASE_MS + 60_000);
  const depsOn = (on: Db, now: () => Date) => ({ db: on, events: events(), provider, deploymentChannels: ['whatsapp'], now });

  /** A text send whose attempt died as it wrote the provider's answer: its intent left `sending`, the message out. */
  async function sendThatDied(): Promise<{ input: SendMessageInput; messageId: string }> {
    const to = `+9197${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;
    await openWindow(db, { tenantId: ws.workspaceId, senderId: ws.senderId, customer: to, at: new Date() });
    const input: SendMessageInput = { tenantId: ws.workspaceId, to, text: 'Your table is ready.', intentKey: `${ws.workspaceId}|api|text-adoption-${n}` };
    const dying = hookedDb(db, ['updateOne'], async (call) => {
      const update = call.args[1] as { $set?: { state?: string } };
      if (call.collection === 'send_intents' && update.$set?.state === 'sent') throw new Error('worker killed');
      return call.run();
    });
    await expect(sendWhatsAppMessage(depsOn(dying, () => new Date()), input)).rejects.toThrow('worker killed');
    expect(await sendIntentsCollection(db).findOne({ _id: input.intentKey })).toMatchObject({ state: 'sending', billed: null, kind: 'text' });
    return { input, messageId: `wamid.TEXT${sent.length}` };
  }

  /** The Cloud API's `delivered` webhook for the message, carrying the send's intent key, as cloudIngest applies it (on `on`). */
  function statusArrives(on: Db, messageId: string, input: SendMessageInput, at: Date) {
    const status: CloudStatus = { phoneNumberId: '1001', displayPhoneNumber: null, id: messageId, status: 'delivered', recipient: input.to.slice(1), at, error: null, callbackData: input.intentKey };
    // Statuses need no Temporal nor inbound hooks.
    const deps = { db: on, events: events(), temporal: null as never, taskQueue: 'unused', inboundHooks: { received: [] } };
    return ingestCloudWebhook(deps, { inbound: [], statuses: [status], echoes: [] }, {}, later());
  }

  const recordsOf = async (input: SendMessageInput) => ({
    intent: await sendIntentsCollection(db).findOne({ _id: input.intentKey }),
    messages: await outboundMessagesCollection(db).find({ tenant_id: ws.workspaceId, to: input.to }).toArray(),
  });

  it('a status adopting the send after the retry looked for it and before it decided: the retry answers sent, with the one message', async () => {
    const { input, messageId } = await sendThatDied();
    const statusAt = new Date(Date.now() - 500);
    let ingested: Awaited<ReturnType<typeof statusArrives>> | null = null;
    // The retry reads the resolution (none yet), then the whole status is ingested, then the retry goes on.
    const retryDb = hookedDb(db, ['findOne'], async (call) => {
      const found = await call.run();
      if (call.collection === 'send_resolutions' && ingested === null) ingested = await statusArrives(db, messageId, input, statusAt);
      return found;
    });
    const answer = await sendWhatsAppMessage(depsOn(retryDb, later), input);
    expect(ingested).toEqual({ applied: 1, parked: 0, skipped: 0 });
    const { intent, messages } = await recordsOf(input);
    expect(answer).toEqual({ message_id: messageId, channel: 'whatsapp', to: input.to, status: 'sent', conversation_id: messages[0]!.conversation_id });
    expect(intent).toMatchObject({ state: 'sent', message_id: messageId, sent_at: statusAt });
    // One message, the status the webhook brought applied to it.
    expect(messages).toEqual([expect.objectContaining({ _id: messageId, kind: 'text', billed: null, status: 'delivered' })]);
    const turns = await conversationMessagesCollection(db).find({ conversation_id: messages[0]!.conversation_id }).toArray();
    expect(turns.map((t) => [t.role, t.text])).toEqual([['human', 'Your table is ready.']]);
    expect(sent.filter((r) => r.to === input.to)).toHaveLength(1);
  });

  it('a status whose claim comes after the retry decided: the retry answers unknown with nothing recorded; the status then records the message', async () => {
    const { input, messageId } = await sendThatDied();
    let retried: unknown = null;
    let recordedWhenAnswered: Awaited<ReturnType<typeof recordsOf>> | null = null;
    // The status reads the intent (`sending`, past its lease); before it claims the resolution, the retry runs to its answer.
    const statusDb = hookedDb(db, ['insertOne'], async (call) => {
      if (call.collection === 'send_resolutions' && retried === null) {
        retried = await sendWhatsAppMessage(depsOn(db, later), input).catch((err: unknown) => err);
        recordedWhenAnswered = await recordsOf(input);
      }
      return call.run();
    });
    expect(await statusArrives(statusDb, messageId, input, new Date())).toEqual({ applied: 1, parked: 0, skipped: 0 });
    expect(retried).toBeInstanceOf(SendOutcomeUnknown);
    expect(recordedWhenAnswered).toEqual({ intent: expect.objectContaining({ state: 'sending', message_id: null }), messages: [] });
    // A status after the decision turns the unknown outcome into the message's real status, as for a template.
    const { intent, messages } = await recordsOf(input);
    expect(intent).toMatchObject({ state: 'sent', message_id: messageId });
    expect(messages).toEqual([expect.objectContaining({ _id: messageId, status: 'delivered' })]);
    expect(sent.filter((r) => r.to === input.to)).toHaveLength(1);
  });
});
