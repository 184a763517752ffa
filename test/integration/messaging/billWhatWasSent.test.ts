import type { Client } from '@temporalio/client';
import { recipientId, stageRecipients, stagingCollections } from '../../../src/campaigns/staging';
import { sendCampaignBatch } from '../../../src/campaigns/whatsapp/sendBatch';
import { collections } from '../../../src/db/collections';
import { createEventPublisher } from '../../../src/events/publisher';
import { HOLD_ORPHANED_AFTER_MS } from '../../../src/messaging/conversationHold';
import { campaignSendIntentKey, dueReminderSendIntentKey, sendIntentsCollection } from '../../../src/messaging/sendIntents';
import { SEND_INTENT_LEASE_MS, SendOutcomeUnknown, sendWhatsAppMessage, type SendMessageDeps } from '../../../src/messaging/sendMessage';
import type { SendAttempt, SendRequest, WhatsAppProvider } from '../../../src/messaging/whatsAppSender';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { insertCampaignDraft, insertContacts, openDbWithWorkspace, zoneOpenAt } from '../../support/campaigns';
import { hookedDb } from '../../support/hookedDb';
import { eventually } from '../../support/messaging';

/**
 * A provider whose n-th send is lost: its answer never comes, as when the worker holding the
 * call is killed (the test ends that attempt with a refusal at the end, as a stalled process
 * that wakes would hear one). Every other send is accepted.
 */
class LosingProvider implements WhatsAppProvider {
  readonly name = 'cloud' as const;
  private count = 0;
  private readonly lost: ((attempt: SendAttempt) => void)[] = [];
  readonly took: string[] = [];

  constructor(private readonly loseSend: number | null) {}

  send(request: SendRequest): Promise<SendAttempt> {
    this.count += 1;
    if (this.count === this.loseSend) return new Promise((resolve) => this.lost.push(resolve));
    const messageId = `wamid.BILL${this.count}${Date.now()}`;
    this.took.push(request.to);
    return Promise.resolve({ ok: true, messageId });
  }

  /** The lost attempts hear the provider accepted them now (a stalled process waking to its answer). */
  wakeAccepting(): void {
    for (const resolve of this.lost.splice(0)) resolve({ ok: true, messageId: `wamid.BILLLATE${Date.now()}` });
  }

  /** The lost attempts hear a refusal now. */
  wake(): void {
    for (const resolve of this.lost.splice(0)) {
      resolve({ ok: false, retryable: false, error: { provider_code: 100, provider_subcode: null, provider_message: 'woke too late', provider_user_message: null } });
    }
  }
}

/**
 * Issue 32, billing: a send whose attempt died before the provider's answer was recorded
 * ends `failed outcome_unknown` with no message, and must not stay counted as a used
 * conversation (2,170 billed, 2,169 sent). What is billed is what the provider accepted.
 */
describe('a send is billed only when the provider accepted it', () => {
  let opened: Awaited<ReturnType<typeof openDbWithWorkspace>>;
  const db = () => opened.db.db;
  const tenant = () => opened.workspace._id;
  let n = 0;
  const fresh = () => `+9196${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;
  const used = async () => (await collections(db()).workspaces.findOne({ _id: tenant() }))!.plan.conversations_used;

  beforeAll(async () => {
    opened = await openDbWithWorkspace();
    // Some used already: a conversation given back twice would show (the counter stops at 0).
    await collections(db()).workspaces.updateOne({ _id: tenant() }, { $set: { 'plan.conversations_used': 10 } });
  });
  afterAll(async () => {
    await opened?.db.drop();
  });

  const depsAt = (provider: WhatsAppProvider, now: () => Date): SendMessageDeps => ({
    db: db(),
    events: createEventPublisher(db(), { dispatch: async () => undefined }),
    provider,
    deploymentChannels: ['whatsapp'],
    now,
  });
  const orderUpdate = (to: string, intentKey: string) => ({ tenantId: tenant(), to, template: { name: 'order_update', variables: ['Asha', 'A-1', 'Friday'] }, intentKey });

  it('one send: a lost attempt’s charge is given back once when its outcome is found unknown; a sent one is billed once', async () => {
    const provider = new LosingProvider(1);
    const before = await used();
    const key = dueReminderSendIntentKey(tenant(), `due_lost${n}`, 0);
    // The lost attempt's clock: its process stalls, and reads a later time when it wakes.
    let stalledMs = 0;
    const lost = sendWhatsAppMessage(depsAt(provider, () => new Date(Date.now() + stalledMs)), orderUpdate(fresh(), key));
    await eventually(async () => (await sendIntentsCollection(db()).findOne({ _id: key }))?.state === 'sending', 'the lost send’s intent');
    // Charged while the send is in flight.
    expect(await used()).toBe(before + 1);

    // Retries after its lease: the outcome is unknown, nothing is sent again, the charge goes back once.
    const later = () => new Date(Date.now() + SEND_INTENT_LEASE_MS + 60_000);
    const retries = await Promise.allSettled([1, 2, 3].map(() => sendWhatsAppMessage(depsAt(provider, later), orderUpdate('+919600000000', key))));
    expect(retries.map((r) => r.status === 'rejected' && r.reason instanceof SendOutcomeUnknown)).toEqual([true, true, true]);
    expect(await used()).toBe(before);
    await expect(sendWhatsAppMessage(depsAt(provider, later), orderUpdate('+919600000000', key))).rejects.toBeInstanceOf(SendOutcomeUnknown);
    expect(await used()).toBe(before);

    // The lost attempt was only stalled, past its lease, and now hears a refusal: it gives back nothing more.
    stalledMs = SEND_INTENT_LEASE_MS + 60_000;
    provider.wake();
    await expect(lost).rejects.toMatchObject({ reason: 'provider_error' });
    expect(await used()).toBe(before);

    // A send the provider accepts is billed once, its retry too.
    const sentKey = dueReminderSendIntentKey(tenant(), `due_sent${n}`, 0);
    const to = fresh();
    await sendWhatsAppMessage(depsAt(provider, () => new Date()), orderUpdate(to, sentKey));
    await sendWhatsAppMessage(depsAt(provider, later), orderUpdate(to, sentKey));
    expect(await used()).toBe(before + 1);
  });

  it('a stalled attempt that hears the provider accepted after its retry gave the charge back is billed again, once', async () => {
    const provider = new LosingProvider(1);
    const before = await used();
    const key = dueReminderSendIntentKey(tenant(), `due_late${n}`, 0);
    let stalledMs = 0;
    const stalled = sendWhatsAppMessage(depsAt(provider, () => new Date(Date.now() + stalledMs)), orderUpdate(fresh(), key));
    await eventually(async () => (await sendIntentsCollection(db()).findOne({ _id: key }))?.state === 'sending', 'the stalled send’s intent');
    expect(await used()).toBe(before + 1);
    // Its retry after the lease: unknown, the charge given back.
    const later = () => new Date(Date.now() + SEND_INTENT_LEASE_MS + 60_000);
    await expect(sendWhatsAppMessage(depsAt(provider, later), orderUpdate('+919600000000', key))).rejects.toBeInstanceOf(SendOutcomeUnknown);
    expect(await used()).toBe(before);
    // The stalled attempt wakes to the provider's acceptance: the message went out, so it is billed.
    stalledMs = SEND_INTENT_LEASE_MS + 60_000;
    provider.wakeAccepting();
    const result = await stalled;
    expect(result.message_id).toMatch(/^wamid\.BILLLATE/);
    expect(await sendIntentsCollection(db()).findOne({ _id: key })).toMatchObject({ state: 'sent', message_id: result.message_id });
    expect(await used()).toBe(before + 1);
    // A retry now answers the recorded send and bills nothing more.
    const again = await sendWhatsAppMessage(depsAt(provider, later), orderUpdate('+919600000000', key));
    expect(again.message_id).toBe(result.message_id);
    expect(await used()).toBe(before + 1);
  });

  it('a refused send whose intent the database would not remove keeps its charge for the retry to give back, once', async () => {
    const before = await used();
    const key = dueReminderSendIntentKey(tenant(), `due_refused${n}`, 0);
    const refusing: WhatsAppProvider = {
      name: 'cloud',
      send: async () => ({ ok: false, retryable: false, error: { provider_code: 131026, provider_subcode: null, provider_message: 'Message undeliverable', provider_user_message: null } }),
    };
    // The database refuses the removal of the intent once, as a FerretDB killed and restarting does.
    let refuseDelete = true;
    const restarting = hookedDb(db(), ['deleteOne'], async (call) => {
      if (call.collection === 'send_intents' && refuseDelete) {
        refuseDelete = false;
        throw new Error('connect ECONNREFUSED 127.0.0.1:27017');
      }
      return call.run();
    });
    const deps = { ...depsAt(refusing, () => new Date()), db: restarting };
    await expect(sendWhatsAppMessage(deps, orderUpdate(fresh(), key))).rejects.toThrow('ECONNREFUSED');
    // The intent stayed, `sending`, with its charge.
    expect(await sendIntentsCollection(db()).findOne({ _id: key })).toMatchObject({ state: 'sending' });
    expect(await used()).toBe(before + 1);
    // Its retry after the lease: unknown, and the charge given back once.
    const later = () => new Date(Date.now() + SEND_INTENT_LEASE_MS + 60_000);
    await expect(sendWhatsAppMessage(depsAt(refusing, later), orderUpdate('+919600000000', key))).rejects.toBeInstanceOf(SendOutcomeUnknown);
    expect(await used()).toBe(before);
  });

  // Two whole batches with their reads and writes: on a loaded CI machine the first took over 20 s to reach its second send.
  it('a campaign: the recipient whose send was lost ends failed outcome_unknown and is not billed', async () => {
    const people = await insertContacts(db(), tenant(), 3);
    const campaign = await insertCampaignDraft(db(), tenant(), { contactIds: people.map((p) => p._id), schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    const workspace = (await collections(db()).workspaces.findOne({ _id: tenant() }))!;
    await stageRecipients(db(), { campaign, workspace, at: new Date() });
    const { events } = buildActivityDeps({ db: db(), temporal: {} as Client, taskQueue: 'unused' });
    const before = await used();
    const input = { campaignId: campaign._id, tenantId: tenant(), from: 0, max: 10, recipients: 3, plannedStartMs: Date.now(), throttlePerMinute: 600 };
    const runner = { pace: () => Promise.resolve(), heartbeat: () => undefined };

    // The first attempt's second send is lost, as when its worker is killed mid-send.
    const losing = new LosingProvider(2);
    const first = sendCampaignBatch({ db: db(), events, whatsapp: losing, deploymentChannels: ['whatsapp'], now: () => new Date(), controlCheckMs: 60_000 }, input, runner);
    const recipientKey = (position: number) => campaignSendIntentKey(tenant(), campaign._id, recipientId(campaign._id, position));
    await eventually(async () => (await sendIntentsCollection(db()).findOne({ _id: recipientKey(1) }))?.state === 'sending', 'the lost campaign send’s intent');

    // Temporal retries the batch once the attempt is given up: its hold is orphaned and its lease long gone.
    const later = () => new Date(Date.now() + HOLD_ORPHANED_AFTER_MS + SEND_INTENT_LEASE_MS + 60_000);
    const fresh2 = new LosingProvider(null);
    const retried = await sendCampaignBatch({ db: db(), events, whatsapp: fresh2, deploymentChannels: ['whatsapp'], now: later, controlCheckMs: 60_000 }, input, runner);
    expect(retried).toMatchObject({ kind: 'sent', sent: 2, failed: 1 });
    const recipients = await stagingCollections(db()).recipients.find({ campaign_id: campaign._id }).sort({ position: 1 }).toArray();
    expect(recipients.map((r) => [r.state, r.skip_reason ?? null])).toEqual([
      ['sent', null],
      ['failed', 'outcome_unknown'],
      ['sent', null],
    ]);
    // Two messages went out (one by each attempt): two conversations billed, not three.
    expect(losing.took.length + fresh2.took.length).toBe(2);
    expect(await used()).toBe(before + 2);

    losing.wake();
    await first.catch(() => undefined);
    expect(await used()).toBe(before + 2);
  }, 180_000);
});
