import type { Db } from 'mongodb';
import { collections } from '../../../src/db/collections';
import { createEventPublisher } from '../../../src/events/publisher';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { claimSendIntent, sendIntentsCollection, type SendIntentDoc } from '../../../src/messaging/sendIntents';
import { sendResolutionsCollection } from '../../../src/messaging/unknownOutcomes';
import { pendingStatusesCollection } from '../../../src/providers/whatsapp/simulatedStatuses';
import { SimulatedWhatsAppProvider } from '../../../src/providers/whatsapp/simulator';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { eventsOf } from '../../support/messaging';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The simulator echoes the send's intent key with its statuses as the Cloud API echoes
 * `biz_opaque_callback_data` (issue 36 §2): it stores an accepted message's statuses before it
 * answers, so a sender that dies before recording the answer (its intent left `sending`) still
 * sees them come, from the sweep, and the send is adopted as sent. A sender still within its
 * lease is left to record its own answer.
 */
describe('the simulator’s statuses of a send whose answer was never recorded', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let simulator: SimulatedWhatsAppProvider;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    simulator = new SimulatedWhatsAppProvider(db, createEventPublisher(db, { dispatch: async () => undefined }));
  });
  afterAll(async () => {
    await simulator?.statuses.stopSweeping();
    await drop?.();
  });

  /** A template send's intent as the send use case writes it before calling the provider, its lease ending at `leaseUntil`. */
  async function sendingIntent(tenantId: string, senderId: string, leaseUntil: Date): Promise<SendIntentDoc> {
    const sender = (await collections(db).senders.findOne({ _id: senderId }))!;
    const key = `${tenantId}|api|${uniqueName('k')}`;
    const now = new Date();
    const intent: SendIntentDoc = {
      _id: key,
      tenant_id: tenantId,
      state: 'sending',
      owner: uniqueName('owner'),
      lease_until: leaseUntil,
      billed: 'included',
      request: {
        tenantId,
        senderId,
        from: sender.phone,
        to: `+9197${String(Date.now() % 100_000_000).padStart(8, '0')}`,
        message: { type: 'template', name: 'order_update', language: 'en', header: null, body: ['Asha', 'A-1', 'Friday'], buttons: [] },
        callbackData: key,
      },
      transcript_text: 'Hi Asha, your order A-1 is on its way and should reach you by Friday.',
      kind: 'template',
      template: { name: 'order_update', language: 'en' },
      metadata: {},
      campaign_id: null,
      campaign_recipient_id: null,
      provider: 'simulator',
      message_id: null,
      sent_at: null,
      created_at: now,
      updated_at: now,
    };
    expect(await claimSendIntent(db, intent)).toBe(true);
    return intent;
  }

  it('a dead sender’s message is adopted from its swept statuses; a live one is left to its sender', async () => {
    const ws = await createTestWorkspace(db);
    const dead = await sendingIntent(ws.workspaceId, ws.senderId, new Date(Date.now() - 1_000));
    const live = await sendingIntent(ws.workspaceId, ws.senderId, new Date(Date.now() + 60_000));
    // The provider accepts both; neither sender records the answer (nor tells it `accepted`).
    const deadSend = await simulator.send(dead.request);
    const liveSend = await simulator.send(live.request);
    if (!deadSend.ok || !liveSend.ok) throw new Error('the simulator refused a send');
    expect(await pendingStatusesCollection(db).findOne({ _id: deadSend.messageId })).toMatchObject({ callback_data: dead._id });

    // Once their first status (`sent`, 100 ms after the send) is due, a sweep with no grace takes both over as a later worker's would.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await simulator.statuses.sweepOnce(0)).toBe(2);
    await waitUntil(async () => (await sendIntentsCollection(db).findOne({ _id: dead._id }))?.state === 'sent');
    expect(await sendIntentsCollection(db).findOne({ _id: dead._id })).toMatchObject({ state: 'sent', message_id: deadSend.messageId });
    expect(await sendResolutionsCollection(db).findOne({ _id: dead._id })).toMatchObject({ message_id: deadSend.messageId, tenant_id: ws.workspaceId });
    await waitUntil(async () => (await outboundMessagesCollection(db).findOne({ _id: deadSend.messageId }))?.status === 'read');
    // A status's event is stored after the message's status moves (CI saw the read mark's event not yet there).
    const statusEvents = async (): Promise<unknown[]> =>
      (await eventsOf(db, ws.workspaceId, 'message.status')).filter((e) => e.data.message_id === deadSend.messageId).map((e) => e.data.status);
    await waitUntil(async () => (await statusEvents()).includes('read'));
    const statuses = await statusEvents();
    expect(new Set(statuses)).toEqual(new Set(['sent', 'delivered', 'read']));
    expect(statuses).toHaveLength(3);

    // The live sender's message is neither adopted nor reported; its statuses wait for it.
    expect(await sendIntentsCollection(db).findOne({ _id: live._id })).toMatchObject({ state: 'sending', message_id: null });
    expect(await outboundMessagesCollection(db).findOne({ _id: liveSend.messageId })).toBeNull();
    expect(await sendResolutionsCollection(db).findOne({ _id: live._id })).toBeNull();
    expect(await pendingStatusesCollection(db).findOne({ _id: liveSend.messageId })).toMatchObject({ next: 0 });
  }, 60_000);

  it('a store of its statuses that fails while the database restarts is tried again: the send is accepted, not failed', async () => {
    const ws = await createTestWorkspace(db);
    const intent = await sendingIntent(ws.workspaceId, ws.senderId, new Date(Date.now() + 60_000));
    let failures = 2;
    // The database refuses the first two inserts of the pending statuses, as a FerretDB killed and restarting does.
    const restarting = new Proxy(db, {
      get(target, prop) {
        if (prop === 'collection') {
          return (name: string) => {
            const collection = target.collection(name);
            if (name !== 'whatsapp_simulated_statuses') return collection;
            return new Proxy(collection, {
              get(c, p) {
                if (p === 'insertMany' && failures > 0) {
                  failures -= 1;
                  return async () => {
                    throw new Error('connect ECONNREFUSED 127.0.0.1:27017');
                  };
                }
                const value = Reflect.get(c, p) as unknown;
                return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(c) : value;
              },
            });
          };
        }
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const flaky = new SimulatedWhatsAppProvider(restarting, createEventPublisher(db, { dispatch: async () => undefined }));
    const sent = await flaky.send(intent.request);
    expect(sent).toMatchObject({ ok: true, messageId: expect.stringMatching(/^wamid\.SIM/) });
    expect(failures).toBe(0);
    if (!sent.ok) throw new Error('refused');
    expect(await pendingStatusesCollection(db).findOne({ _id: sent.messageId })).toMatchObject({ callback_data: intent._id, next: 0 });
  }, 60_000);
});

async function waitUntil(probe: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
