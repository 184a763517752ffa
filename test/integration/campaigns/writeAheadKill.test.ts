import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { CampaignDoc } from '../../../src/campaigns/campaign';
import { readRecipientBatch, stageRecipients } from '../../../src/campaigns/staging';
import { sendCampaignBatch } from '../../../src/campaigns/whatsapp/sendBatch';
import { collections } from '../../../src/db/collections';
import { campaignSendIntentKey, sendIntentsCollection } from '../../../src/messaging/sendIntents';
import type { SendAttempt, SendRequest, WhatsAppProvider } from '../../../src/messaging/whatsAppSender';
import { WRITE_AHEAD_SPAN_MS } from '../../../src/messaging/writeAheadSends';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { insertCampaignDraft, insertContacts, openDbWithWorkspace, zoneOpenAt } from '../../support/campaigns';

/**
 * A campaign batch writes a slice's send intents together before the slice's POSTs and their
 * outcomes together after (src/messaging/writeAheadSends.ts). Here its attempt "dies" with the
 * slice between the two writes: the provider never answers (the process gone). Every send of
 * the slice was already POSTed by then: the POSTs leave together once the intents are durable,
 * none waits for another's answer or for a later planned time, so a kill leaves no intent that
 * was never posted (a posted one of unknown outcome can be settled from the provider's status
 * webhooks; a never-posted one could not). The retried batch sends nobody twice: every send of
 * the dead slice is of unknown outcome, the rest are sent once. The provider checks, at each
 * POST, that the send's intent is already stored: a write-ahead in the wrong order fails here.
 */
describe('a campaign batch killed between its slice\'s intents and their outcomes', () => {
  let opened: Awaited<ReturnType<typeof openDbWithWorkspace>>;
  const db = () => opened.db.db;
  const tenant = () => opened.workspace._id;

  beforeAll(async () => {
    opened = await openDbWithWorkspace();
  });
  afterAll(async () => {
    await opened?.db.drop();
  });

  /** Records each POST and whether its intent was stored `sending` before it; from the `hangFrom`-th on, never answers (the process died). */
  class WatchingProvider implements WhatsAppProvider {
    readonly name = 'simulator' as const;
    readonly requests: { to: string; intentStored: boolean; intentsStored: number }[] = [];
    constructor(
      private readonly campaign: CampaignDoc,
      private readonly keyOf: Map<string, string>,
      private readonly hangFrom = Infinity,
    ) {}
    async send(request: SendRequest): Promise<SendAttempt> {
      const n = this.requests.length + 1;
      const row = { to: request.to, intentStored: false, intentsStored: 0 };
      this.requests.push(row);
      const intent = await sendIntentsCollection(db()).findOne({ _id: this.keyOf.get(request.to)! });
      row.intentStored = intent?.state === 'sending';
      row.intentsStored = await sendIntentsCollection(db()).countDocuments({ campaign_id: this.campaign._id, state: 'sending' });
      if (n >= this.hangFrom) return new Promise<SendAttempt>(() => undefined);
      return { ok: true, messageId: `wamid.TEST${randomBytes(12).toString('hex').toUpperCase()}` };
    }
  }

  it('posts the whole slice before any answer; sends nobody twice: the dead slice is of unknown outcome, the rest sent once', async () => {
    const people = await insertContacts(db(), tenant(), 12);
    const campaign = await insertCampaignDraft(db(), tenant(), { contactIds: people.map((p) => p._id), schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) } });
    await stageRecipients(db(), { campaign, workspace: (await collections(db()).workspaces.findOne({ _id: tenant() }))!, at: new Date() });
    const staged = await readRecipientBatch(db(), campaign._id, 0, 12);
    const keyOf = new Map(staged.map((r) => [`+${r.to.replace(/^\+/, '')}`, campaignSendIntentKey(tenant(), campaign._id, r._id)]));
    const { events } = buildActivityDeps({ db: db(), temporal: {} as Client, taskQueue: 'unused' });
    const input = { campaignId: campaign._id, tenantId: tenant(), from: 0, max: 50, recipients: 12, plannedStartMs: Date.now(), throttlePerMinute: 600 };
    const runner = { pace: () => Promise.resolve(), heartbeat: () => undefined };
    // At 600 a minute a slice spans the sends planned within WRITE_AHEAD_SPAN_MS of its first: the first eight.
    const slice = Math.ceil(WRITE_AHEAD_SPAN_MS / 100);
    expect(slice).toBe(8);

    // The dead attempt: its clock a minute behind, so its intents' leases have run out for the retry
    // (and its renewals, still ticking in this process, never bring them back). Paced for real, and
    // its provider answers no POST: a slice that spaced its POSTs, or waited on answers, stops short.
    const dead = new WatchingProvider(campaign, keyOf, 1);
    // POSTs made when each wait began: a slice's POSTs are never spaced by a wait among them.
    const pacedAfter: number[] = [];
    const pacedForReal = {
      pace: (ms: number) => {
        pacedAfter.push(dead.requests.length);
        return new Promise<void>((resolve) => setTimeout(resolve, ms));
      },
      heartbeat: () => undefined,
    };
    void sendCampaignBatch(
      { db: db(), events, whatsapp: dead, deploymentChannels: ['whatsapp'], now: () => new Date(Date.now() - 60_000), controlCheckMs: 60_000 },
      input,
      pacedForReal,
    );
    // Killed once the slice's intents are durable: by then every send of the slice has been POSTed.
    const deadline = Date.now() + 10_000;
    while (dead.requests.length < slice && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dead.requests.map((r) => r.to)).toEqual(staged.slice(0, slice).map((r) => `+${r.to.replace(/^\+/, '')}`));
    expect(pacedAfter).toEqual([0]);
    // Written ahead: every POST found its intent stored, and the first found the whole slice's.
    expect(dead.requests.every((r) => r.intentStored)).toBe(true);
    expect(dead.requests[0]!.intentsStored).toBe(slice);
    const stored = await sendIntentsCollection(db()).find({ campaign_id: campaign._id }).toArray();
    expect(stored.map((i) => i.state)).toEqual(Array(slice).fill('sending'));

    const retry = new WatchingProvider(campaign, keyOf);
    const result = await sendCampaignBatch(
      { db: db(), events, whatsapp: retry, deploymentChannels: ['whatsapp'], now: () => new Date(), controlCheckMs: 60_000 },
      input,
      runner,
    );
    expect(result).toMatchObject({ kind: 'sent', next: 12, sent: 4, failed: slice, skipped: 0 });
    expect(retry.requests.every((r) => r.intentStored)).toBe(true);
    const everyPost = [...dead.requests, ...retry.requests].map((r) => r.to);
    expect(new Set(everyPost).size).toBe(everyPost.length);
    expect(retry.requests.map((r) => r.to)).toEqual(staged.slice(slice).map((r) => `+${r.to.replace(/^\+/, '')}`));
    const after = await readRecipientBatch(db(), campaign._id, 0, 12);
    expect(after.map((r) => [r.state, r.skip_reason ?? null])).toEqual([
      ...Array.from({ length: slice }, () => ['failed', 'outcome_unknown']),
      ...Array.from({ length: 12 - slice }, () => ['sent', null]),
    ]);
  }, 60_000);
});
