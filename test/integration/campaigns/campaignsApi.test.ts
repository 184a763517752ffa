import request from 'supertest';
import { campaignCollections } from '../../../src/campaigns/campaign';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { collections } from '../../../src/db/collections';
import { recordOptOut } from '../../../src/messaging/optOut';
import { startTestApi, type TestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const DOCS = 'https://docs.orchestrator.dev/campaigns#';

describe('campaigns (POST/GET /api/v1/campaigns, GET …/{id}, POST …/evaluate)', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  let used = 0;
  let key: string;

  beforeAll(async () => {
    api = await startTestApi();
    ws = await createTestWorkspace(api.db);
    key = ws.key;
  });
  afterAll(async () => {
    await api?.close();
  });

  /** A fresh full key every 100 requests: the per-key limit must not decide a test. */
  async function auth() {
    if (++used > 100) {
      key = (await ws.addKey(['campaigns:read', 'campaigns:write'])).key;
      used = 1;
    }
    return bearer(key);
  }
  const create = async (body: Record<string, unknown>, headers?: Record<string, string>) =>
    request(api.server).post('/api/v1/campaigns').set(headers ?? (await auth())).send(body);
  const list = async (query: Record<string, string | number | undefined> = {}, as?: TestWorkspace) =>
    request(api.server).get('/api/v1/campaigns').query(query).set(as ? bearer(as.key) : await auth());
  const get = async (id: string, as?: TestWorkspace) => request(api.server).get(`/api/v1/campaigns/${id}`).set(as ? bearer(as.key) : await auth());
  const evaluate = async (id: string, as?: TestWorkspace) =>
    request(api.server).post(`/api/v1/campaigns/${id}/evaluate`).set(as ? bearer(as.key) : await auth());

  let n = 0;
  async function contact(overrides: { name?: string | null; phone?: string | null; email?: string | null; tags?: string[] } = {}, workspaceId = ws.workspaceId) {
    n += 1;
    const phone = overrides.phone === undefined ? `+9197${String(Date.now() % 10_000).padStart(4, '0')}${String(n).padStart(4, '0')}` : overrides.phone;
    const email = overrides.email === undefined ? `c${n}.${Date.now()}@example.com` : overrides.email;
    const { contact: doc } = await matchOrCreateContact(
      api.db,
      { _id: workspaceId, country: 'IN' },
      { name: overrides.name === undefined ? `Person ${n}` : overrides.name, phone, email, tags: overrides.tags ?? [] },
      new Date(),
    );
    return doc;
  }

  const broadcast = (contactIds: string[], extra: Record<string, unknown> = {}) => ({
    name: 'Spring sale',
    audience: { contact_ids: contactIds },
    template: { name: 'order_update', variables: ['{{contact.name}}', 'A-1', 'Friday'] },
    ...extra,
  });

  describe('POST /campaigns', () => {
    it('answers 201 with a draft at version 1, metadata stored and not returned', async () => {
      const c = await contact();
      const res = await create(broadcast([c._id], { metadata: { crm_id: 'x-1' }, consent: { basis: 'existing_customer' } }));
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        campaign_id: expect.stringMatching(/^cmp_[0-9a-f]{24}$/),
        name: 'Spring sale',
        channel: 'whatsapp',
        type: 'whatsapp_broadcast',
        status: 'draft',
        version: 1,
        recipients: 0,
        sent: 0,
        delivered: 0,
        read: 0,
        failed: 0,
        skipped: 0,
        excluded: {},
        consent_basis: 'existing_customer',
        created_at: expect.stringMatching(TIMESTAMP),
        launched_at: null,
        completed_at: null,
        capture: null,
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      const stored = await campaignCollections(api.db).campaigns.findOne({ _id: res.body.campaign_id });
      expect(stored?.metadata).toEqual({ crm_id: 'x-1' });
      expect(stored?.created_by).toEqual({ kind: 'api_key', id: ws.keyId });
    });

    it('refuses a WhatsApp campaign without a template: 400 template_not_found', async () => {
      const res = await create({ name: 'x', audience: { contact_ids: [] } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'A WhatsApp campaign needs a template.', { reason: 'template_not_found', field: 'template' }));
    });

    it.each([
      ['script', { script: 'Ask about the order' }],
      ['capture', { capture: { goal: 'Confirm the delivery' } }],
      ['call_back_incomplete', { call_back_incomplete: true }],
    ])('refuses %s on a WhatsApp campaign: 400 invalid_argument', async (field, extra) => {
      const res = await create(broadcast([], extra));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', `${field} applies to voice campaigns only.`, { reason: 'invalid_argument', field }));
    });

    it('refuses a voice campaign without agent_id: 400 invalid_argument', async () => {
      const res = await create({ name: 'Calls', channel: 'voice', audience: { contact_ids: [] } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'A voice campaign needs an agent_id.', { reason: 'invalid_argument', field: 'agent_id' }));
    });

    it('refuses a variable the audience cannot fill: 400 unknown_variable with the field', async () => {
      const res = await create(broadcast([], { template: { name: 'order_update', variables: ['{{contact.city}}', 'a', 'b'] } }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'No contact can fill {{contact.city}}; use {{contact.name}}, {{contact.phone}}, {{contact.email}}.', {
          reason: 'unknown_variable',
          field: 'contact.city',
          loc: ['body', 'template', 'variables', 0],
        }),
      );
    });

    it.each([
      ['name', { name: '' }],
      ['name', { name: 'x'.repeat(141) }],
      ['channel', { channel: 'sms' }],
      ['template.name', { template: { name: 'x'.repeat(513) } }],
      ['template.variables', { template: { name: 'order_update', variables: Array(21).fill('a') } }],
      ['audience.tags', { audience: { kind: 'segment', tags: Array(21).fill('a') } }],
      ['audience.tags', { audience: { kind: 'segment', tags: [] } }],
      ['schedule.throttle_per_minute', { schedule: { throttle_per_minute: 0 } }],
      ['schedule.throttle_per_minute', { schedule: { throttle_per_minute: 601 } }],
      ['schedule.send_window_start_hour', { schedule: { send_window_start_hour: 24 } }],
      ['schedule.send_window_end_hour', { schedule: { send_window_end_hour: 0 } }],
      ['schedule.timezone', { schedule: { timezone: 'Mars/Olympus' } }],
      ['schedule.start_at', { schedule: { start_at: 'tomorrow' } }],
      ['consent.basis', { consent: { basis: 'because' } }],
      ['consent.note', { consent: { basis: 'explicit_opt_in', note: 'x'.repeat(401) } }],
    ])('refuses a bad %s with 400 Request validation failed.', async (field, extra) => {
      const res = await create({ ...broadcast([]), ...extra });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: expect.any(Array) }));
      expect(res.body.error.details.errors.map((e: { loc: string[] }) => e.loc.join('.'))).toContain(`body.${field}`);
    });

    it('takes up to 50,000 contact ids and refuses 50,001', async () => {
      const ids = Array.from({ length: 50_000 }, (_, i) => `cnt_${String(i).padStart(24, '0')}`);
      const ok = await create(broadcast(ids));
      expect(ok.status).toBe(201);
      const over = await create(broadcast([...ids, 'cnt_extra']));
      expect(over.status).toBe(400);
      expect(over.body.error.details.errors[0].loc).toEqual(['body', 'audience', 'contact_ids']);
    });

    it('refuses a send window with no open hour as a field error', async () => {
      const res = await create(broadcast([], { schedule: { send_window_start_hour: 21 } }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [{ loc: ['body', 'schedule', 'send_window_start_hour'], msg: 'The send window 21:00 to 21:00 has no open hour; the start must come before the end.', type: 'send_window_empty' }],
        }),
      );
    });

    it('needs campaigns:write (403 missing_scope)', async () => {
      const readOnly = await ws.addKey(['campaigns:read']);
      const res = await create(broadcast([]), bearer(readOnly.key));
      expect(res.status).toBe(403);
      expect(res.body).toEqual(
        envelope('permission_denied', 'This key lacks the campaigns:write scope this route requires.', { reason: 'missing_scope', required_scope: 'campaigns:write' }),
      );
    });

    it('replays the first response for the same Idempotency-Key and body', async () => {
      const headers = { ...(await auth()), 'Idempotency-Key': `cmp-${Date.now()}` };
      const first = await create(broadcast([]), headers);
      const again = await create(broadcast([]), headers);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.campaign_id).toBe(first.body.campaign_id);
    });
  });

  describe('GET /campaigns and /campaigns/{id}', () => {
    let other: TestWorkspace;
    beforeAll(async () => {
      other = await createTestWorkspace(api.db);
    });

    it('reads one campaign; another workspace gets 404 Campaign not found. like an unknown id', async () => {
      const made = await create(broadcast([]));
      const res = await get(made.body.campaign_id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(made.body);
      for (const res404 of [await get(made.body.campaign_id, other), await get('cmp_000000000000000000000000'), await get('nonsense')]) {
        expect(res404.status).toBe(404);
        expect(res404.body).toEqual(envelope('not_found', 'Campaign not found.'));
      }
    });

    it('lists most recently changed first, with a cursor, hiding archived unless asked, filtering by status', async () => {
      const mine = await createTestWorkspace(api.db);
      const made: string[] = [];
      for (let i = 0; i < 3; i++) made.push((await request(api.server).post('/api/v1/campaigns').set(bearer(mine.key)).send(broadcast([]))).body.campaign_id);
      // The first one changed last; one is archived.
      const { campaigns } = campaignCollections(api.db);
      await campaigns.updateOne({ _id: made[0] }, { $set: { updated_at: new Date(Date.now() + 60_000), status: 'running', version: 2 } });
      await campaigns.updateOne({ _id: made[1] }, { $set: { status: 'archived' } });

      const first = await list({ limit: 1 }, mine);
      expect(first.status).toBe(200);
      expect(first.body.items.map((c: { campaign_id: string }) => c.campaign_id)).toEqual([made[0]]);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await request(api.server).get('/api/v1/campaigns').query({ limit: 1, cursor: first.body.next_cursor }).set(bearer(mine.key));
      expect(second.body.items.map((c: { campaign_id: string }) => c.campaign_id)).toEqual([made[2]]);
      const third = await request(api.server).get('/api/v1/campaigns').query({ limit: 1, cursor: second.body.next_cursor }).set(bearer(mine.key));
      expect(third.body).toEqual({ items: [], next_cursor: null });

      const all = await list({}, mine);
      expect(all.body).toEqual({ items: [expect.objectContaining({ campaign_id: made[0] }), expect.objectContaining({ campaign_id: made[2] })], next_cursor: null });
      const archived = await list({ status: 'archived' }, mine);
      expect(archived.body.items.map((c: { campaign_id: string }) => c.campaign_id)).toEqual([made[1]]);
      const running = await list({ status: 'running' }, mine);
      expect(running.body.items.map((c: { campaign_id: string; status: string }) => [c.campaign_id, c.status])).toEqual([[made[0], 'running']]);
      // Another workspace sees none of them.
      expect((await list({}, other)).body).toEqual({ items: [], next_cursor: null });
    });

    it('refuses a bad status, limit or a damaged cursor with 400', async () => {
      for (const query of [{ status: 'done' }, { limit: 0 }, { limit: 101 }, { cursor: 'abc.def' }]) {
        const res = await list(query);
        expect(res.status).toBe(400);
        expect(res.body.error.message).toBe('Request validation failed.');
      }
    });

    it('needs campaigns:read', async () => {
      const writeOnly = await ws.addKey(['messages:send']);
      const res = await request(api.server).get('/api/v1/campaigns').set(bearer(writeOnly.key));
      expect(res.status).toBe(403);
      expect(res.body.error.details).toEqual({ reason: 'missing_scope', required_scope: 'campaigns:read' });
    });
  });

  describe('POST /campaigns/{id}/evaluate', () => {
    it('answers eligible, total_rows, excluded, invalid rows, samples, findings and the checksum, and changes nothing', async () => {
      const good = await contact({ name: 'Asha' });
      const noPhone = await contact({ phone: null });
      const noName = await contact({ name: null });
      const optedOut = await contact();
      await recordOptOut(api.db, { tenantId: ws.workspaceId, phone: optedOut.phone!, sourceMessageId: 'wamid.x', at: new Date() });
      const foreign = await contact({}, (await createTestWorkspace(api.db)).workspaceId);
      const made = await create(broadcast([good._id, good._id, noPhone._id, noName._id, optedOut._id, foreign._id, 'cnt_missing']));
      const before = await campaignCollections(api.db).campaigns.findOne({ _id: made.body.campaign_id });

      const res = await evaluate(made.body.campaign_id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        eligible: 1,
        total_rows: 5,
        excluded: { duplicate_recipient: 1, invalid_destination: 1, suppressed: 1, missing_variable: 1 },
        invalid_rows: [
          { reason: 'duplicate_recipient', contact_id: good._id },
          { reason: 'invalid_destination', contact_id: noPhone._id },
          { reason: 'missing_variable', contact_id: noName._id, field: 'contact.name' },
          { reason: 'suppressed', contact_id: optedOut._id },
        ],
        sample: [{ to: good.phone, name: 'Asha', variables: { '1': 'Asha', '2': 'A-1', '3': 'Friday' } }],
        findings: [
          expect.objectContaining({ code: 'suppressed', severity: 'warn', count: 1, docs: `${DOCS}suppressed` }),
          expect.objectContaining({ code: 'duplicate_recipient', severity: 'warn', count: 1 }),
          expect.objectContaining({ code: 'invalid_destination', severity: 'warn', count: 1 }),
          expect.objectContaining({ code: 'missing_variable', severity: 'warn', count: 1 }),
          {
            code: 'contacts_not_found',
            severity: 'info',
            message: '2 contact ids match no contact of this workspace and were dropped.',
            fix: 'Check the ids, or leave them: they are ignored.',
            docs: `${DOCS}contacts-not-found`,
            count: 2,
          },
        ],
        checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      });
      // The same audience gives the same checksum; nothing was written.
      expect((await evaluate(made.body.campaign_id)).body.checksum).toBe(res.body.checksum);
      expect(await campaignCollections(api.db).campaigns.findOne({ _id: made.body.campaign_id })).toEqual(before);
    });

    it('resolves a segment: a contact needs every tag', async () => {
      const both = await contact({ tags: ['VIP', 'Delhi'] });
      await contact({ tags: ['vip'] });
      await contact({ tags: ['delhi'] });
      const made = await create({ ...broadcast([]), audience: { kind: 'segment', tags: ['vip', 'DELHI'] } });
      const res = await evaluate(made.body.campaign_id);
      expect(res.body).toMatchObject({ eligible: 1, total_rows: 1, sample: [{ to: both.phone }] });
    });

    it('blocks an empty audience and a template with no approved variant', async () => {
      await collections(api.db).templates.insertOne({
        _id: `tpl_pending_${Date.now()}`,
        tenant_id: ws.workspaceId,
        name: 'pending_offer',
        language: 'en',
        status: 'pending',
        header: null,
        body: 'Hi {{1}}',
        buttons: [],
        created_at: new Date(),
      });
      const made = await create({ ...broadcast([]), template: { name: 'pending_offer', variables: ['x'] } });
      const res = await evaluate(made.body.campaign_id);
      expect(res.body.findings).toEqual([
        { code: 'audience_empty', severity: 'block', message: 'The audience names no contacts: nobody matched.', fix: 'Give the contact ids to reach, or choose contacts by tag.', docs: `${DOCS}audience-empty`, count: 0 },
        {
          code: 'template_not_approved',
          severity: 'block',
          message: 'Template pending_offer has no approved variant.',
          fix: 'Wait for the template to be approved, or choose an approved one.',
          docs: `${DOCS}template-not-approved`,
          count: 0,
        },
      ]);
      expect(res.body).toMatchObject({ eligible: 0, total_rows: 0, excluded: {}, invalid_rows: [], sample: [] });
    });

    it('warns when asked hours were clamped (quiet_hours), and blocks an unknown sender', async () => {
      const c = await contact();
      const made = await create(broadcast([c._id], { schedule: { send_window_start_hour: 7, timezone: 'Europe/London' }, sender_id: 'snd_nope' }));
      const res = await evaluate(made.body.campaign_id);
      expect(res.body.findings).toEqual([
        expect.objectContaining({ code: 'channel_not_connected', severity: 'block', message: 'Sender snd_nope is not a sender of this workspace.' }),
        expect.objectContaining({ code: 'quiet_hours', severity: 'warn', count: 1, message: 'Sending hours were clamped to 9:00 to 21:00 (Europe/London).' }),
      ]);
    });

    it('is 404 for another workspace and needs campaigns:read', async () => {
      const made = await create(broadcast([]));
      const other = await createTestWorkspace(api.db);
      const res = await evaluate(made.body.campaign_id, other);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelope('not_found', 'Campaign not found.'));
      const noRead = await ws.addKey(['campaigns:write']);
      const denied = await request(api.server).post(`/api/v1/campaigns/${made.body.campaign_id}/evaluate`).set(bearer(noRead.key));
      expect(denied.status).toBe(403);
      expect(denied.body.error.details).toEqual({ reason: 'missing_scope', required_scope: 'campaigns:read' });
    });
  });
});
