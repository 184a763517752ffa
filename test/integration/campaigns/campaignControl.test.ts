import request from 'supertest';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { collections } from '../../../src/db/collections';
import { startTestApi, type TestApi } from '../../support/app';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, tomorrowNoonUtc, zoneOpenAt } from '../../support/campaigns';
import { bearer, envelope } from '../../support/http';
import { eventsOf } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const DOCS = 'https://docs.orchestrator.dev/campaigns#';

/**
 * POST …/launch, …/pause, …/resume, …/cancel and GET …/recipients over HTTP with a real
 * worker: each rule, reason and status, and one winner among parallel requests.
 */
describe('campaign controls (launch, pause, resume, cancel, recipients)', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  const provider = new CountingWhatsAppProvider();

  beforeAll(async () => {
    api = await startTestApi({ worker: { whatsapp: provider } });
    ws = await createTestWorkspace(api.db);
  });
  afterAll(async () => {
    await api?.close();
  });

  let keyUses = 0;
  let key = '';
  async function auth() {
    if (!key || ++keyUses > 100) {
      key = (await ws.addKey(['campaigns:read', 'campaigns:write'])).key;
      keyUses = 1;
    }
    return bearer(key);
  }
  const post = async (id: string, action: string, body: unknown) =>
    request(api.server).post(`/api/v1/campaigns/${id}/${action}`).set(await auth()).send(body as object);
  const get = async (id: string) => request(api.server).get(`/api/v1/campaigns/${id}`).set(await auth());

  /** A draft to `count` people; `throttle` 1 a minute keeps it running through a test. */
  async function draft(count: number, schedule: Record<string, unknown> = { throttle_per_minute: 1, timezone: 'UTC', send_window_start_hour: 9, send_window_end_hour: 21 }) {
    const people = await insertContacts(api.db, ws.workspaceId, count);
    return insertCampaignDraft(api.db, ws.workspaceId, { contactIds: people.map((p) => p._id), schedule: schedule as never });
  }
  /** Starts tomorrow, so a test decides when anything is sent. */
  const later = () => ({ start_at: tomorrowNoonUtc(), throttle_per_minute: 60, timezone: 'UTC' });

  describe('POST …/launch', () => {
    it('answers 200 with the Campaign scheduled, version 2, the staged count, no notices; fires campaign.launched once', async () => {
      const c = await draft(3, later());
      const res = await post(c._id, 'launch', { expected_version: 1, confirm_recipients: 3 });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ campaign_id: c._id, status: 'scheduled', version: 2, recipients: 3, excluded: {}, consent_basis: 'existing_customer', notices: [] });
      expect(res.body.launched_at).toEqual(expect.any(String));
      const launched = (await eventsOf(api.db, ws.workspaceId, 'campaign.launched')).filter((e) => e.data.campaign_id === c._id);
      expect(launched).toHaveLength(1);
      expect(launched[0]!.data).toEqual({
        campaign_id: c._id,
        name: 'Broadcast',
        channel: 'whatsapp',
        type: 'whatsapp_broadcast',
        status: 'scheduled',
        version: 2,
        recipients: 3,
        excluded: {},
        consent_basis: 'existing_customer',
        checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        start_at: expect.any(String),
        launched_at: expect.any(String),
        notices: [],
      });
    });

    it('a stale expected_version is 409 version_conflict with current_version', async () => {
      const c = await draft(1, later());
      const res = await post(c._id, 'launch', { expected_version: 2 });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(envelope('conflict', 'This campaign is at version 1, not 2; read it again.', { reason: 'version_conflict', current_version: 1 }));
    });

    it('confirm_recipients that differs is 409 version_conflict with eligible', async () => {
      const c = await draft(2, later());
      const res = await post(c._id, 'launch', { expected_version: 1, confirm_recipients: 5 });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(
        envelope('conflict', 'The audience is now 2 people, not 5; evaluate again and confirm the new count.', {
          reason: 'version_conflict',
          eligible: 2,
          confirm_recipients: 5,
        }),
      );
    });

    it('sees a contact written between evaluate and launch: the launch does not reuse the evaluated audience then', async () => {
      const tag = `seg${Date.now() % 100_000}`;
      const who = (i: number) => ({ name: `Seg ${i}`, phone: `+9198${String(Date.now() % 100_000).padStart(5, '0')}${String(i).padStart(3, '0')}`, tags: [tag] });
      for (const i of [1, 2]) await matchOrCreateContact(api.db, { _id: ws.workspaceId, country: 'IN' }, who(i), new Date());
      const made = await request(api.server)
        .post('/api/v1/campaigns')
        .set(await auth())
        .send({ name: 'Segment', audience: { kind: 'segment', tags: [tag] }, template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] }, schedule: later() });
      expect(made.status).toBe(201);
      const id = made.body.campaign_id as string;
      expect((await post(id, 'evaluate', undefined)).body.eligible).toBe(2);
      await matchOrCreateContact(api.db, { _id: ws.workspaceId, country: 'IN' }, who(3), new Date());
      const res = await post(id, 'launch', { expected_version: 1, confirm_recipients: 2 });
      expect(res.status).toBe(409);
      expect(res.body.error.details).toMatchObject({ reason: 'version_conflict', eligible: 3, confirm_recipients: 2 });
      // Nothing written since that read: the launch goes through on the count it just gave.
      expect((await post(id, 'evaluate', undefined)).body.eligible).toBe(3);
      expect((await post(id, 'launch', { expected_version: 1, confirm_recipients: 3 })).body).toMatchObject({ status: 'scheduled', recipients: 3 });
    });

    it('a launched (scheduled) campaign is 412 campaign_frozen', async () => {
      const c = await draft(1, later());
      expect((await post(c._id, 'launch', { expected_version: 1 })).status).toBe(200);
      const res = await post(c._id, 'launch', { expected_version: 2 });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(
        envelope('failed_precondition', 'This campaign is scheduled; only a draft or a paused campaign can be launched.', {
          reason: 'campaign_frozen',
          docs: `${DOCS}campaign-frozen`,
          fix: 'Create a new campaign; only a draft or a paused campaign can be launched.',
        }),
      );
    });

    it('an audience nobody is left in is 412 audience_empty with the findings', async () => {
      const c = await insertCampaignDraft(api.db, ws.workspaceId, { contactIds: ['cnt_000000000000000000000000'] });
      const res = await post(c._id, 'launch', { expected_version: 1 });
      expect(res.status).toBe(412);
      expect(res.body.error).toMatchObject({ code: 'failed_precondition', details: { reason: 'audience_empty', docs: `${DOCS}audience-empty` } });
      expect(res.body.error.details.findings.map((f: { code: string }) => f.code)).toContain('audience_empty');
    });

    it('a plan without the chat channel is 412 channel_dormant; no allowance or credits is 412 allowance_exhausted', async () => {
      const other = await createTestWorkspace(api.db);
      const people = await insertContacts(api.db, other.workspaceId, 1);
      const c = await insertCampaignDraft(api.db, other.workspaceId, { contactIds: [people[0]!._id] });
      const launch = () => request(api.server).post(`/api/v1/campaigns/${c._id}/launch`).set(bearer(other.key)).send({ expected_version: 1 });
      const plan = (set: Record<string, unknown>) => collections(api.db).workspaces.updateOne({ _id: other.workspaceId }, { $set: set });

      await plan({ 'plan.chat_channel': false });
      let res = await launch();
      expect(res.status).toBe(412);
      expect(res.body).toEqual(
        envelope('failed_precondition', 'The plan no longer includes the WhatsApp channel.', {
          reason: 'channel_dormant',
          docs: `${DOCS}channel-dormant`,
          fix: 'Add the WhatsApp channel to the plan.',
        }),
      );
      await plan({ 'plan.chat_channel': true, 'plan.conversations_used': 100_000, 'plan.prepaid_credits': 0 });
      res = await launch();
      expect(res.status).toBe(412);
      expect(res.body).toEqual(
        envelope('failed_precondition', "The plan's conversations for this month are used up and there are no prepaid credits.", {
          reason: 'allowance_exhausted',
          docs: `${DOCS}allowance-exhausted`,
          fix: 'Buy prepaid credits or wait for the monthly allowance.',
        }),
      );
      // One conversation left and credits for the rest: launched, with the spill notice.
      const three = await insertContacts(api.db, other.workspaceId, 3);
      const d = await insertCampaignDraft(api.db, other.workspaceId, { contactIds: three.map((p) => p._id), schedule: later() });
      await plan({ 'plan.conversations_used': 99_999, 'plan.prepaid_credits': 5 });
      res = await request(api.server).post(`/api/v1/campaigns/${d._id}/launch`).set(bearer(other.key)).send({ expected_version: 1 });
      expect(res.status).toBe(200);
      expect(res.body.notices).toEqual([
        {
          code: 'allowance_spill',
          severity: 'info',
          message: "2 of 3 messages go beyond the plan's 1 remaining conversations and use prepaid credits.",
          fix: 'Nothing to do; check the credit balance.',
          docs: `${DOCS}allowance-spill`,
          count: 2,
        },
      ]);
    });

    it('validates the body: expected_version is required and at least 1 (400)', async () => {
      const c = await draft(1, later());
      for (const body of [{}, { expected_version: 0 }, { expected_version: 1, confirm_recipients: -1 }]) {
        const res = await post(c._id, 'launch', body);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_argument', message: 'Request validation failed.' });
      }
    });

    it('an unknown or foreign campaign is 404 Campaign not found.', async () => {
      const res = await post('cmp_000000000000000000000000', 'launch', { expected_version: 1 });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelope('not_found', 'Campaign not found.'));
    });

    it('parallel launches: exactly one 200, the others 409; the run sends each recipient once', async () => {
      const c = await draft(2, { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) });
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(c._id, 'launch', { expected_version: 1 })));
      expect(answers.map((r) => r.status).sort((a, b) => a - b)).toEqual([200, 409, 409, 409, 409, 409]);
      for (const r of answers.filter((a) => a.status === 409)) expect(r.body.error.details.reason).toBe('version_conflict');
      await waitFor(async () => (await get(c._id)).body.status === 'completed');
      const people = (await request(api.server).get(`/api/v1/campaigns/${c._id}/recipients`).set(await auth())).body.items as { to: string }[];
      for (const p of people) expect(provider.sends.get(p.to)).toBe(1);
    }, 120_000);
  });

  describe('pause, resume, cancel', () => {
    it('each state: pause 200 (version up), pause again 200 unchanged, resume 200, cancel 200 with completed_at, then frozen', async () => {
      const c = await draft(2, later());
      expect((await post(c._id, 'pause', { expected_version: 1 })).body).toEqual(
        envelope('failed_precondition', 'This campaign is a draft; there is nothing to pause.', {
          reason: 'campaign_not_launched',
          docs: `${DOCS}campaign-not-launched`,
          fix: 'Launch the campaign first.',
        }),
      );
      expect((await post(c._id, 'resume', { expected_version: 1 })).status).toBe(412);
      expect((await post(c._id, 'launch', { expected_version: 1 })).body).toMatchObject({ status: 'scheduled', version: 2 });
      let res = await post(c._id, 'pause', { expected_version: 2 });
      expect([res.status, res.body.status, res.body.version]).toEqual([200, 'paused', 3]);
      res = await post(c._id, 'pause', { expected_version: 3 });
      expect([res.status, res.body.status, res.body.version]).toEqual([200, 'paused', 3]);
      res = await post(c._id, 'pause', { expected_version: 2 });
      expect(res.status).toBe(409);
      expect(res.body).toEqual(envelope('conflict', 'This campaign is at version 3, not 2; read it again.', { reason: 'version_conflict', current_version: 3 }));
      res = await post(c._id, 'resume', { expected_version: 3 });
      expect([res.status, res.body.status, res.body.version]).toEqual([200, 'scheduled', 4]);
      res = await post(c._id, 'cancel', { expected_version: 4 });
      expect([res.status, res.body.status, res.body.version]).toEqual([200, 'cancelled', 5]);
      expect(res.body.completed_at).toEqual(expect.any(String));
      res = await post(c._id, 'cancel', { expected_version: 5 });
      expect([res.status, res.body.version]).toEqual([200, 5]);
      res = await post(c._id, 'resume', { expected_version: 5 });
      expect(res.status).toBe(412);
      expect(res.body).toEqual(
        envelope('failed_precondition', 'This campaign is cancelled; it cannot be resumed.', {
          reason: 'campaign_frozen',
          docs: `${DOCS}campaign-frozen`,
          fix: 'A finished campaign cannot change; create a new one.',
        }),
      );
      await waitFor(async () => {
        const items = (await request(api.server).get(`/api/v1/campaigns/${c._id}/recipients`).set(await auth())).body.items as { state: string }[];
        return items.every((i) => i.state === 'skipped');
      });
      await waitFor(async () => (await get(c._id)).body.skipped === 2);
    }, 120_000);

    it('a draft cancelled is cancelled at once (no run)', async () => {
      const c = await draft(1, later());
      const res = await post(c._id, 'cancel', { expected_version: 1 });
      expect([res.status, res.body.status, res.body.version]).toEqual([200, 'cancelled', 2]);
    });

    it('resume in a suspended workspace is 412 workspace_suspended', async () => {
      const c = await draft(1, later());
      await post(c._id, 'launch', { expected_version: 1 });
      await post(c._id, 'pause', { expected_version: 2 });
      // Suspended after the key check (a suspended key is refused 403 before the route).
      const { workspaces } = collections(api.db);
      const res = await (async () => {
        const headers = await auth();
        const pending = request(api.server).post(`/api/v1/campaigns/${c._id}/resume`).set(headers).send({ expected_version: 3 });
        await workspaces.updateOne({ _id: ws.workspaceId }, { $set: { suspended: true } });
        try {
          return await pending;
        } finally {
          await workspaces.updateOne({ _id: ws.workspaceId }, { $set: { suspended: false } });
        }
      })();
      // The suspension may land before the key check (403) or after it (412); either way nothing resumed.
      expect([403, 412]).toContain(res.status);
      if (res.status === 412) expect(res.body.error.details).toMatchObject({ reason: 'workspace_suspended' });
      expect((await get(c._id)).body.status).toBe('paused');
    });

    it('parallel pauses of a running campaign: one 200 at the next version, the others 409', async () => {
      const c = await draft(3, later());
      await post(c._id, 'launch', { expected_version: 1 });
      const answers = await Promise.all(Array.from({ length: 5 }, () => post(c._id, 'pause', { expected_version: 2 })));
      expect(answers.map((r) => r.status).sort((a, b) => a - b)).toEqual([200, 409, 409, 409, 409]);
      expect(answers.find((r) => r.status === 200)!.body).toMatchObject({ status: 'paused', version: 3 });
      expect((await get(c._id)).body).toMatchObject({ status: 'paused', version: 3 });
    });
  });

  describe('GET …/recipients', () => {
    it('pages by position with each state; a draft has none; a damaged cursor is 400; unknown is 404', async () => {
      const c = await draft(5, later());
      const list = async (query: Record<string, unknown>) => request(api.server).get(`/api/v1/campaigns/${c._id}/recipients`).query(query).set(await auth());
      expect((await list({})).body).toEqual({ items: [], next_cursor: null });
      await post(c._id, 'launch', { expected_version: 1 });
      const first = await list({ limit: 2 });
      expect(first.status).toBe(200);
      expect(first.body.items).toHaveLength(2);
      expect(first.body.items[0]).toEqual({
        position: 0,
        contact_id: expect.stringMatching(/^cnt_/),
        to: expect.stringMatching(/^\+91/),
        name: 'Person 0',
        state: 'queued',
        reason: null,
        message_id: null,
        state_at: expect.any(String),
      });
      const second = await list({ limit: 2, cursor: first.body.next_cursor });
      const third = await list({ limit: 2, cursor: second.body.next_cursor });
      expect([...first.body.items, ...second.body.items, ...third.body.items].map((i: { position: number }) => i.position)).toEqual([0, 1, 2, 3, 4]);
      expect(third.body.next_cursor).toBeNull();
      expect((await list({ cursor: 'nope.nope' })).status).toBe(400);
      expect((await list({ limit: 101 })).status).toBe(400);
      const missing = await request(api.server).get('/api/v1/campaigns/cmp_000000000000000000000000/recipients').set(await auth());
      expect(missing.body).toEqual(envelope('not_found', 'Campaign not found.'));
    });
  });
});

/** Runs go through Temporal: the cases that wait have a jest timeout past this deadline, so a slow run fails here with its reason. */
async function waitFor(check: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('condition not met in time');
}
