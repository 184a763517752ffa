import request from 'supertest';
import { credentialsChanged } from '../../../src/auth/credentialCache';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { collections } from '../../../src/db/collections';
import { addDays, zoneDate } from '../../../src/dues/cycle';
import { DUES_APP_DOCS_URL } from '../../../src/dues/limits';
import { duesCollections, type DueStatus } from '../../../src/dues/store';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { CONSOLE, eventsOf } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;
const BASE = '/api/v1/apps/dues';
const NOT_INSTALLED = envelope('failed_precondition', 'The dues app is not installed in this workspace; install it in the console.', {
  reason: 'not_found',
  docs: DUES_APP_DOCS_URL,
});

describe('the dues app (POST/GET /api/v1/apps/dues/subscribers, GET …/dues, POST …/dues/{id}/paid)', () => {
  const { api, ws } = useTestApi();
  let n = 0;
  /** A fresh Indian mobile number, local form and E.164. */
  const phone = () => {
    n += 1;
    const digits = `9${String(Date.now() % 100_000).padStart(5, '0')}${String(n).padStart(4, '0')}`;
    return { local: digits, e164: `+91${digits}` };
  };
  const today = () => zoneDate(new Date(), 'Asia/Kolkata');

  /** Its own workspace (and a fresh key) for tests whose lists must hold only their own records. */
  async function workspace(): Promise<TestWorkspace> {
    return createTestWorkspace(api.db);
  }
  const subscribe = (body: Record<string, unknown>, as: TestWorkspace | string = ws, headers: Record<string, string> = {}) =>
    request(api.server)
      .post(`${BASE}/subscribers`)
      .set({ ...bearer(typeof as === 'string' ? as : as.key), ...headers })
      .send(body);
  const listDues = (query: Record<string, string | number>, as: TestWorkspace = ws) => request(api.server).get(`${BASE}/dues`).query(query).set(bearer(as.key));
  const listSubscribers = (query: Record<string, string | number>, as: TestWorkspace = ws) =>
    request(api.server).get(`${BASE}/subscribers`).query(query).set(bearer(as.key));
  const pay = (dueId: string, body: Record<string, unknown>, as: TestWorkspace = ws) =>
    request(api.server).post(`${BASE}/dues/${dueId}/paid`).set(bearer(as.key)).send(body);
  const person = (extra: Record<string, unknown> = {}) => ({ name: 'Asha Rao', phone: phone().local, amount: 1500, ...extra });
  const duesOf = (subscriberId: string) => duesCollections(api.db).dues.find({ subscriber_id: subscriberId }).sort({ cycle_index: 1 }).toArray();

  describe('the app must be installed', () => {
    let other: TestWorkspace;
    beforeAll(async () => {
      other = await workspace();
      await collections(api.db).workspaces.updateOne({ _id: other.workspaceId }, { $set: { installed_apps: [] } });
      credentialsChanged(other.workspaceId);
    });

    it('every route answers 412 failed_precondition, reason not_found, with details.docs (never 404)', async () => {
      const answers = [
        await subscribe(person(), other),
        await listSubscribers({}, other),
        await listDues({}, other),
        await pay('due_00000000000000000000000000', { expected_version: 1 }, other),
      ];
      for (const res of answers) {
        expect(res.status).toBe(412);
        expect(res.body).toEqual(NOT_INSTALLED);
      }
    });
  });

  describe('POST subscribers', () => {
    it('201: a local number in E.164, linked to a contact, start_date today in the workspace zone, the next two dues raised with payment.due_created', async () => {
      const { local, e164 } = phone();
      const res = await subscribe({ name: 'Asha Rao', phone: local, email: 'Asha@Example.com', amount: 1500 });
      expect(res.status).toBe(201);
      const start = today();
      expect(res.body).toEqual({
        subscriber_id: expect.stringMatching(/^sub_[0-9a-f]{24}$/),
        tenant_id: ws.workspaceId,
        contact_id: expect.stringMatching(/^cnt_/),
        contact_pending: false,
        name: 'Asha Rao',
        phone: e164,
        email: 'asha@example.com',
        plan_name: 'Monthly plan',
        amount: 1500,
        currency: 'INR',
        cycle_unit: 'monthly',
        cycle_days: null,
        due_day: null,
        start_date: start,
        status: 'active',
        notes: null,
        tags: [],
        next_due_date: start,
        last_paid_at: null,
        collected_total: 0,
        outstanding_total: 3000,
        dues_paid: 0,
        dues_declined: 0,
        version: 1,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      const contact = await matchOrCreateContact(api.db, { _id: ws.workspaceId, country: 'IN' }, { phone: e164 }, new Date());
      expect(contact.contact._id).toBe(res.body.contact_id);

      const dues = await duesOf(res.body.subscriber_id);
      expect(dues.map((d) => [d.due_date, d.status, d.amount, d.version])).toEqual([
        [start, 'scheduled', 1500, 1],
        [dueDateIn(start, 1), 'scheduled', 1500, 1],
      ]);
      const events = (await eventsOf(api.db, ws.workspaceId, 'payment.due_created')).filter((e) => e.data.subscriber_id === res.body.subscriber_id);
      // Both in the same second: compared in due date order.
      expect(events.map((e) => e.data).sort((a, b) => String(a.due_date).localeCompare(String(b.due_date)))).toEqual(
        dues.map((d) => ({ due_id: d._id, subscriber_id: d.subscriber_id, amount: 1500, currency: 'INR', period: d.period_label, due_date: d.due_date })),
      );
      const listed = await listDues({ limit: 200 });
      expect(listed.body.items.filter((d: { subscriber_id: string }) => d.subscriber_id === res.body.subscriber_id)).toHaveLength(2);
    });

    it('a weekly plan with a start date: dues on it and a week later, labelled by date', async () => {
      const res = await subscribe(person({ cycle_unit: 'weekly', start_date: '2031-05-30', plan_name: 'Tiffin' }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ cycle_unit: 'weekly', start_date: '2031-05-30', next_due_date: '2031-05-30', plan_name: 'Tiffin' });
      expect((await duesOf(res.body.subscriber_id)).map((d) => [d.due_date, d.period_label])).toEqual([
        ['2031-05-30', '30 May 2031'],
        ['2031-06-06', '6 June 2031'],
      ]);
    });

    it('custom_days needs cycle_days: 400 validation failure at body.cycle_days', async () => {
      const res = await subscribe(person({ cycle_unit: 'custom_days' }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'cycle_days'], msg: 'cycle_days is required for custom_days.', type: 'custom' }] }),
      );
    });

    it.each([
      ['amount 0', 'amount', { amount: 0 }],
      ['amount over 10,000,000', 'amount', { amount: 10_000_001 }],
      ['a name over 140 characters', 'name', { name: 'x'.repeat(141) }],
      ['a phone under 6 characters', 'phone', { phone: '98123' }],
      ['a phone over 24 characters', 'phone', { phone: '9'.repeat(25) }],
      ['cycle_days 731', 'cycle_days', { cycle_unit: 'custom_days', cycle_days: 731 }],
      ['due_day 32', 'due_day', { due_day: 32 }],
      ['an unknown cycle_unit', 'cycle_unit', { cycle_unit: 'daily' }],
      ['a start_date that is not a date', 'start_date', { start_date: '2026-02-30' }],
      ['a plan name over 120 characters', 'plan_name', { plan_name: 'p'.repeat(121) }],
      ['a start_date past what the cycle math carries (9999-12-31)', 'start_date', { start_date: '9999-12-31' }],
      ['a start_date after 2999-12-31', 'start_date', { start_date: '3000-01-01' }],
      ['a start_date before 1970-01-01', 'start_date', { start_date: '1969-12-31' }],
      ['amount 0.001 (under a paisa)', 'amount', { amount: 0.001 }],
      ['amount 100.123 (a fraction of a paisa)', 'amount', { amount: 100.123 }],
    ])('%s: 400 at body.%s', async (_, field, extra) => {
      const res = await subscribe(person(extra));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_argument', message: 'Request validation failed.' });
      expect(res.body.error.details.errors.map((e: { loc: string[] }) => e.loc)).toEqual([['body', field]]);
    });

    it('start_date 9999-12-31 and amount 100.123: 400 validation failures naming the bounds, and the phone stays free', async () => {
      const { local } = phone();
      const res = await subscribe(person({ phone: local, start_date: '9999-12-31', amount: 100.123 }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [
            { loc: ['body', 'amount'], msg: 'expected rupees in whole paise: at most two decimals, at least 0.01', type: 'custom' },
            { loc: ['body', 'start_date'], msg: 'expected a start date from 1970-01-01 to 2999-12-31', type: 'custom' },
          ],
        }),
      );
      expect((await subscribe(person({ phone: local, start_date: '2999-12-31' }))).status).toBe(201);
    });

    it('amount 100.12 and start_date 2999-12-31, the last allowed: 201, whole paise in the dues and the totals', async () => {
      const res = await subscribe(person({ amount: 100.12, start_date: '2999-12-31' }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ amount: 100.12, outstanding_total: 200.24, next_due_date: '2999-12-31' });
      expect((await duesOf(res.body.subscriber_id)).map((d) => [d.due_date, d.amount])).toEqual([
        ['2999-12-31', 100.12],
        ['3000-01-31', 100.12],
      ]);
      // Paid in parts whose float sum drifts (0.1 + 0.2): the totals are added in paise.
      const dues = await duesOf(res.body.subscriber_id);
      expect((await pay(dues[0]!._id, { expected_version: 1, amount: 0.1 })).status).toBe(200);
      expect((await pay(dues[1]!._id, { expected_version: 1, amount: 0.2 })).status).toBe(200);
      const after = (await listSubscribers({ limit: 200 })).body.items.find((s: { subscriber_id: string }) => s.subscriber_id === res.body.subscriber_id);
      expect(after).toMatchObject({ collected_total: 0.3, outstanding_total: 0, dues_paid: 2 });
    });

    it('a workspace collecting by payment link: an amount under Rs 1 (the gateway minimum) is 400 at body.amount; Rs 1 is accepted', async () => {
      const linkWs = await workspace();
      const settings = await request(api.server)
        .put(`/console/v1/workspaces/${linkWs.workspaceId}/apps/dues/settings`)
        .set(CONSOLE)
        .send({ collection: { mode: 'payment_link' } });
      expect(settings.status).toBe(200);
      const { local, e164 } = phone();
      const res = await subscribe(person({ phone: local, amount: 0.99 }), linkWs);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [
            {
              loc: ['body', 'amount'],
              msg: "expected at least 1: this workspace collects by payment link, and a payment link must ask at least Rs 1 (the gateway's minimum)",
              type: 'too_small',
            },
          ],
        }),
      );
      // Nothing was written: the phone is free.
      expect(await duesCollections(api.db).phones.findOne({ _id: `${linkWs.workspaceId}|${e164}` })).toBeNull();
      expect((await subscribe(person({ phone: local, amount: 1 }), linkWs)).status).toBe(201);
      // The same amount where the workspace collects by UPI: accepted.
      expect((await subscribe(person({ amount: 0.99 }))).status).toBe(201);
    });

    it('a phone that is neither international nor of the workspace country: 400 invalid_destination', async () => {
      const res = await subscribe(person({ phone: '+999123456' }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', "That phone number isn't usable: give it with its country code (+…), or as a number of the workspace's country (IN).", {
          reason: 'invalid_destination',
        }),
      );
    });

    it('one subscriber per phone: the same number in another form is 409 duplicate_recipient naming the first', async () => {
      const { local, e164 } = phone();
      const first = await subscribe(person({ phone: local }));
      const again = await subscribe(person({ phone: e164, name: 'Someone else' }));
      expect(again.status).toBe(409);
      expect(again.body).toEqual(
        envelope('conflict', 'A subscriber with this phone number already exists.', { reason: 'duplicate_recipient', subscriber_id: first.body.subscriber_id }),
      );
    });

    it('details matching two different contacts: created with contact_id null and contact_pending true', async () => {
      const { e164 } = phone();
      const email = `two.${Date.now()}@example.com`;
      const tenant = { _id: ws.workspaceId, country: 'IN' };
      const byEmail = await matchOrCreateContact(api.db, tenant, { email }, new Date());
      const byPhone = await matchOrCreateContact(api.db, tenant, { phone: e164 }, new Date());
      expect(byEmail.contact._id).not.toBe(byPhone.contact._id);
      const res = await subscribe(person({ phone: e164, email }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ contact_id: null, contact_pending: true, phone: e164, outstanding_total: 3000 });
      expect((await duesOf(res.body.subscriber_id)).map((d) => d.contact_id)).toEqual([null, null]);
    });

    it('honours Idempotency-Key: the same key and body replay the first 201; another body under the key is 409', async () => {
      const body = person();
      const key = `sub-${Date.now()}`;
      const first = await subscribe(body, ws, { 'Idempotency-Key': key });
      const replay = await subscribe(body, ws, { 'Idempotency-Key': key });
      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      const reuse = await subscribe({ ...body, amount: 99 }, ws, { 'Idempotency-Key': key });
      expect(reuse.status).toBe(409);
      expect(reuse.body.error.details.reason).toBe('idempotency_key_reuse');
    });

    it('needs campaigns:write (403 missing_scope)', async () => {
      const readOnly = await ws.addKey(['campaigns:read']);
      const res = await subscribe(person(), readOnly.key);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(
        envelope('permission_denied', 'This key lacks the campaigns:write scope this route requires.', { reason: 'missing_scope', required_scope: 'campaigns:write' }),
      );
    });
  });

  describe('GET subscribers', () => {
    it('newest first, limit and cursor; a full page carries next_cursor, a short one none', async () => {
      const own = await workspace();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await subscribe(person(), own)).body.subscriber_id);
      const first = await listSubscribers({ limit: 2 }, own);
      expect(first.status).toBe(200);
      expect(first.body.items.map((s: { subscriber_id: string }) => s.subscriber_id)).toEqual([ids[2], ids[1]]);
      const second = await listSubscribers({ limit: 2, cursor: first.body.next_cursor }, own);
      expect(second.body).toEqual({ items: [expect.objectContaining({ subscriber_id: ids[0] })], next_cursor: null });
    });

    it('limit outside 1 to 200 is 400; needs campaigns:read', async () => {
      for (const limit of [0, 201]) {
        const res = await listSubscribers({ limit });
        expect(res.status).toBe(400);
        expect(res.body.error.details.errors[0].loc).toEqual(['query', 'limit']);
      }
      const writeOnly = await ws.addKey(['campaigns:write']);
      const res = await request(api.server).get(`${BASE}/subscribers`).set(bearer(writeOnly.key));
      expect(res.status).toBe(403);
      expect(res.body.error.details).toEqual({ reason: 'missing_scope', required_scope: 'campaigns:read' });
    });
  });

  describe('GET dues: scopes, status and orders', () => {
    let own: TestWorkspace;
    const d = (days: number) => addDays(today(), days);
    let byDate: Record<string, string>;

    beforeAll(async () => {
      own = await workspace();
      // Weekly from two weeks ago: dues 14 and 7 days ago. Monthly from 5 days on: +5 and a month later.
      const late = await subscribe(person({ cycle_unit: 'weekly', start_date: d(-14) }), own);
      const soon = await subscribe(person({ cycle_unit: 'custom_days', cycle_days: 20, start_date: d(5) }), own);
      const paidOne = await subscribe(person({ cycle_unit: 'custom_days', cycle_days: 30, start_date: d(-40) }), own);
      const all = [...(await duesOf(late.body.subscriber_id)), ...(await duesOf(soon.body.subscriber_id)), ...(await duesOf(paidOne.body.subscriber_id))];
      byDate = Object.fromEntries(all.map((due) => [due.due_date, due._id]));
      const set = (date: string, status: DueStatus) => duesCollections(api.db).dues.updateOne({ _id: byDate[date] }, { $set: { status } });
      // -40 paid, -10 reminded (open, overdue), -14 and -7 scheduled (overdue), +5 scheduled, +25 followup_1 (open, not upcoming)
      await set(d(-40), 'paid');
      await set(d(-10), 'reminded');
      await set(d(25), 'followup_1');
    });

    const dates = (res: request.Response) => res.body.items.map((due: { due_date: string }) => due.due_date);

    it('none: every due, latest due date first', async () => {
      expect(dates(await listDues({}, own))).toEqual([d(25), d(5), d(-7), d(-10), d(-14), d(-40)]);
    });
    it('open: scheduled, reminded, followup_1, followup_2, latest first', async () => {
      expect(dates(await listDues({ scope: 'open' }, own))).toEqual([d(25), d(5), d(-7), d(-10), d(-14)]);
    });
    it('overdue: open with a due date before today, oldest first', async () => {
      expect(dates(await listDues({ scope: 'overdue' }, own))).toEqual([d(-14), d(-10), d(-7)]);
    });
    it('upcoming: scheduled, due today or later, soonest first', async () => {
      const own2 = own;
      expect(dates(await listDues({ scope: 'upcoming' }, own2))).toEqual([d(5)]);
    });
    it('paid: paid only, latest first', async () => {
      expect(dates(await listDues({ scope: 'paid' }, own))).toEqual([d(-40)]);
    });
    it('status wins over scope', async () => {
      expect(dates(await listDues({ scope: 'paid', status: 'reminded' }, own))).toEqual([d(-10)]);
      expect(dates(await listDues({ scope: 'upcoming', status: 'scheduled' }, own))).toEqual([d(5), d(-7), d(-14)]);
    });
    it('pages in the scope\'s order with the cursor', async () => {
      const first = await listDues({ scope: 'overdue', limit: 2 }, own);
      expect(dates(first)).toEqual([d(-14), d(-10)]);
      const second = await listDues({ scope: 'overdue', limit: 2, cursor: first.body.next_cursor }, own);
      expect(second.body.next_cursor).toBeNull();
      expect(dates(second)).toEqual([d(-7)]);
    });
    it('an unknown scope or status, or limit outside 1 to 200: 400', async () => {
      for (const query of [{ scope: 'late' }, { status: 'owing' }, { limit: 201 }, { limit: 0 }] as Record<string, string | number>[]) {
        const res = await listDues(query, own);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_argument', message: 'Request validation failed.' });
        expect(res.body.error.details.errors[0].loc).toEqual(['query', Object.keys(query)[0]]);
      }
    });
  });

  describe('POST dues/{due_id}/paid', () => {
    async function freshDue(extra: Record<string, unknown> = {}) {
      const res = await subscribe(person({ amount: 2500, ...extra }));
      return { subscriber: res.body, dues: await duesOf(res.body.subscriber_id) };
    }

    it('200: paid with paid_amount, paid_at, payment_reference, version plus 1; totals move; payment.paid with source', async () => {
      const { subscriber, dues } = await freshDue();
      const due = dues[0]!;
      const res = await pay(due._id, { expected_version: 1, amount: 2400, reference: 'UPI-123', paid_at: '2026-03-02T10:15:00+05:30' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        due_id: due._id,
        status: 'paid',
        paid_amount: 2400,
        paid_at: '2026-03-02T04:45:00.000000+00:00',
        payment_reference: 'UPI-123',
        version: 2,
        marked_by: ws.keyId,
        marked_by_name: expect.stringMatching(/^API key /),
        next_action_at: null,
      });
      const after = (await listSubscribers({ limit: 200 })).body.items.find((s: { subscriber_id: string }) => s.subscriber_id === subscriber.subscriber_id);
      expect(after).toMatchObject({ collected_total: 2400, outstanding_total: 2500, dues_paid: 1, next_due_date: dues[1]!.due_date, last_paid_at: '2026-03-02T04:45:00.000000+00:00' });
      const [event] = (await eventsOf(api.db, ws.workspaceId, 'payment.paid')).filter((e) => e.data.due_id === due._id);
      expect(event!.data).toEqual({ due_id: due._id, subscriber_id: subscriber.subscriber_id, amount: 2400, period: due.period_label, reference: 'UPI-123', source: 'gateway' });
    });

    it('amount defaults to the amount owed and paid_at to now', async () => {
      const { dues } = await freshDue();
      const before = Date.now();
      const res = await pay(dues[0]!._id, { expected_version: 1 });
      expect(res.body).toMatchObject({ status: 'paid', paid_amount: 2500, payment_reference: null });
      expect(Date.parse(res.body.paid_at)).toBeGreaterThanOrEqual(before - 1000);
    });

    it('expected_version is checked first: a retry of a successful call is 409 version_conflict with current_version', async () => {
      const { dues } = await freshDue();
      expect((await pay(dues[0]!._id, { expected_version: 1 })).status).toBe(200);
      const retry = await pay(dues[0]!._id, { expected_version: 1 });
      expect(retry.status).toBe(409);
      expect(retry.body).toEqual(
        envelope('conflict', 'This payment changed since it was read; read it again and send its current version.', { reason: 'version_conflict', current_version: 2 }),
      );
    });

    it('a due no longer open (paid, declined, waived, cancelled): 412 conflict with current_status and "This payment is already paid."', async () => {
      const { dues } = await freshDue();
      expect((await pay(dues[0]!._id, { expected_version: 1 })).status).toBe(200);
      const again = await pay(dues[0]!._id, { expected_version: 2 });
      expect(again.status).toBe(412);
      expect(again.body).toEqual(envelope('failed_precondition', 'This payment is already paid.', { reason: 'conflict', current_status: 'paid' }));
      for (const status of ['declined', 'waived', 'cancelled'] as const) {
        const { dues: more } = await freshDue();
        await duesCollections(api.db).dues.updateOne({ _id: more[0]!._id }, { $set: { status } });
        const res = await pay(more[0]!._id, { expected_version: 1 });
        expect(res.status).toBe(412);
        expect(res.body).toEqual(envelope('failed_precondition', 'This payment is already paid.', { reason: 'conflict', current_status: status }));
      }
    });

    it('an unknown, malformed or foreign due: 404 "Payment not found."', async () => {
      const { dues } = await freshDue();
      const other = await workspace();
      for (const [id, as] of [
        ['due_0123456789abcdef0123456789', ws],
        ['not-a-due', ws],
        [dues[0]!._id, other],
      ] as const) {
        const res = await pay(id, { expected_version: 1 }, as);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(envelope('not_found', 'Payment not found.'));
      }
    });

    it('validation: expected_version required and at least 1, amount above 0, reference up to 140', async () => {
      const { dues } = await freshDue();
      for (const [body, field] of [
        [{}, 'expected_version'],
        [{ expected_version: 0 }, 'expected_version'],
        [{ expected_version: 1, amount: 0 }, 'amount'],
        [{ expected_version: 1, amount: 0.001 }, 'amount'],
        [{ expected_version: 1, amount: 100.123 }, 'amount'],
        [{ expected_version: 1, reference: 'r'.repeat(141) }, 'reference'],
        [{ expected_version: 1, paid_at: 'yesterday' }, 'paid_at'],
      ] as const) {
        const res = await pay(dues[0]!._id, body);
        expect(res.status).toBe(400);
        expect(res.body.error.details.errors[0].loc).toEqual(['body', field]);
      }
    });

    it('two payments of the same due at once: one 200, the other 409', async () => {
      const { dues } = await freshDue();
      const both = await Promise.all([pay(dues[0]!._id, { expected_version: 1, reference: 'a' }), pay(dues[0]!._id, { expected_version: 1, reference: 'b' })]);
      expect(both.map((r) => r.status).sort((a, b) => a - b)).toEqual([200, 409]);
    });
  });
});

/** The monthly due one month after `start` (the start day, or the month's last day). */
function dueDateIn(start: string, months: number): string {
  const [y, m, d] = start.split('-').map(Number) as [number, number, number];
  const index = m - 1 + months;
  const year = y + Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}
