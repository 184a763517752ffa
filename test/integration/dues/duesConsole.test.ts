import request from 'supertest';
import { DEFAULT_DUES_SETTINGS } from '../../../src/dues/settings';
import { duesCollections } from '../../../src/dues/store';
import { createSubscriber } from '../../../src/dues/subscribers';
import { collections } from '../../../src/db/collections';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { CONSOLE, eventsOf } from '../../support/messaging';

describe('the dues app in the console (/console/v1/workspaces/{id}/apps/dues/…)', () => {
  const { api, ws } = useTestApi();
  const app = () => `/console/v1/workspaces/${ws.workspaceId}/apps/dues`;
  let n = 0;
  const subscribe = async (extra: Record<string, unknown> = {}) => {
    n += 1;
    const res = await request(api.server)
      .post('/api/v1/apps/dues/subscribers')
      .set(bearer(ws.key))
      .send({ name: `Person ${n}`, phone: `+9197${String(Date.now() % 10_000).padStart(4, '0')}${String(n).padStart(4, '0')}`, amount: 700, ...extra });
    if (res.status !== 201) throw new Error(`subscriber refused: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { subscriber_id: string; phone: string };
  };
  const dues = async (subscriberId: string) =>
    (await request(api.server).get(`${app()}/dues`).query({ subscriber_id: subscriberId }).set(CONSOLE)).body.items as Record<string, any>[];
  const post = (path: string, body?: Record<string, unknown>) => request(api.server).post(`${app()}${path}`).set(CONSOLE).send(body ?? {});

  it('settings: the defaults, then a PUT replaces them (omitted keys take defaults); a bad value is 400', async () => {
    const read = await request(api.server).get(`${app()}/settings`).set(CONSOLE);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(DEFAULT_DUES_SETTINGS);
    const put = await request(api.server)
      .put(`${app()}/settings`)
      .set(CONSOLE)
      .send({ reminder_offset_days: 1, followup_interval_days: [2, 2], collection: { upi_id: 'shop@bank' } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...DEFAULT_DUES_SETTINGS, reminder_offset_days: 1, followup_interval_days: [2, 2], collection: { mode: 'manual_upi', upi_id: 'shop@bank', qr_url: null } });
    expect((await request(api.server).get(`${app()}/settings`).set(CONSOLE)).body).toEqual(put.body);
    const bad = await request(api.server).put(`${app()}/settings`).set(CONSOLE).send({ send_hour: 24 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors[0].loc).toEqual(['body', 'send_hour']);
    await request(api.server).put(`${app()}/settings`).set(CONSOLE).send({});
  });

  it('GET dues shows each due with its chase', async () => {
    const s = await subscribe({ start_date: '2031-01-10' });
    const items = await dues(s.subscriber_id);
    expect(items.map((d) => [d.due_date, d.status, d.chase.state, d.chase.next_step])).toEqual([
      ['2031-02-10', 'scheduled', 'running', 'reminder'],
      ['2031-01-10', 'scheduled', 'running', 'reminder'],
    ]);
    expect(items[1]!.chase).toMatchObject({ workflow_id: items[1]!.due_id, reminders_sent: 0, ended_as: null, next_action_at: '2031-01-07T04:30:00.000000+00:00' });
  });

  /** Every page of a console list, following `next_cursor` until it is null. */
  const walk = async (path: string, query: Record<string, unknown>) => {
    const items: Record<string, any>[] = [];
    let cursor: string | null = null;
    do {
      const res = await request(api.server).get(`${app()}${path}`).query({ ...query, ...(cursor ? { cursor } : {}) }).set(CONSOLE);
      expect(res.status).toBe(200);
      items.push(...(res.body.items as Record<string, any>[]));
      cursor = res.body.next_cursor as string | null;
    } while (cursor);
    return items;
  };

  it('the lists page by cursor: subscribers newest first (optionally one status), dues latest due date first (optionally one subscriber, one status)', async () => {
    const a = await subscribe({ start_date: '2031-03-10' });
    const b = await subscribe({ start_date: '2031-03-11' });
    const c = await subscribe({ start_date: '2031-03-12' });
    expect((await post(`/subscribers/${b.subscriber_id}/pause`)).status).toBe(200);

    const everyone = (await request(api.server).get(`${app()}/subscribers`).query({ limit: 200 }).set(CONSOLE)).body.items as Record<string, any>[];
    const ids = everyone.map((x) => x.subscriber_id as string);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(ids.filter((id) => [a, b, c].some((x) => x.subscriber_id === id))).toEqual([c.subscriber_id, b.subscriber_id, a.subscriber_id]);
    expect((await walk('/subscribers', { limit: 2 })).map((x) => x.subscriber_id)).toEqual(ids);
    const paused = await walk('/subscribers', { limit: 1, status: 'paused' });
    expect(paused.map((x) => x.status)).toEqual(paused.map(() => 'paused'));
    expect(paused.map((x) => x.subscriber_id)).toContain(b.subscriber_id);
    expect(paused.map((x) => x.subscriber_id)).not.toContain(c.subscriber_id);

    expect((await walk('/dues', { limit: 1, subscriber_id: c.subscriber_id, status: 'scheduled' })).map((d) => d.due_date)).toEqual(['2031-04-12', '2031-03-12']);
    expect(await walk('/dues', { limit: 1, subscriber_id: c.subscriber_id, status: 'paid' })).toEqual([]);
    const scheduled = await walk('/dues', { limit: 3, status: 'scheduled' });
    const order = scheduled.map((d) => `${d.due_date}|${d.due_id}`);
    expect(order).toEqual([...order].sort().reverse());
    expect(new Set(order).size).toBe(order.length);
    expect(scheduled.map((d) => d.status)).toEqual(scheduled.map(() => 'scheduled'));
    expect(scheduled.filter((d) => d.subscriber_id === a.subscriber_id).map((d) => d.due_date)).toEqual(['2031-04-10', '2031-03-10']);
  });

  it('pause, resume and cancel a subscriber; cancel cancels its open dues; an unknown subscriber is 404', async () => {
    const s = await subscribe();
    const paused = await post(`/subscribers/${s.subscriber_id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ subscriber_id: s.subscriber_id, status: 'paused', version: 2 });
    expect((await post(`/subscribers/${s.subscriber_id}/resume`)).body).toMatchObject({ status: 'active', version: 3 });
    const cancelled = await post(`/subscribers/${s.subscriber_id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', outstanding_total: 0, next_due_date: null });
    expect((await dues(s.subscriber_id)).map((d) => [d.status, d.chase.state, d.chase.ended_as])).toEqual([
      ['cancelled', 'ended', 'cancelled'],
      ['cancelled', 'ended', 'cancelled'],
    ]);
    const again = await post(`/subscribers/${s.subscriber_id}/resume`);
    expect(again.status).toBe(412);
    expect(again.body).toEqual(envelope('failed_precondition', 'A cancelled subscriber cannot be resumed.', { reason: 'conflict', current_status: 'cancelled' }));
    const unknown = await post('/subscribers/sub_000000000000000000000000/pause');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(envelope('not_found', 'Subscriber not found.'));
    const listed = await request(api.server).get(`${app()}/subscribers`).query({ status: 'cancelled' }).set(CONSOLE);
    expect(listed.body.items.map((x: { subscriber_id: string }) => x.subscriber_id)).toContain(s.subscriber_id);
  });

  it('waive and cancel a due: its chase ends; a second time is 412 with the current status', async () => {
    const s = await subscribe();
    const [later, first] = await dues(s.subscriber_id);
    const waived = await post(`/dues/${first!.due_id}/waive`);
    expect(waived.status).toBe(200);
    expect(waived.body).toMatchObject({ status: 'waived', version: 2, chase: { state: 'ended', ended_as: 'waived' } });
    const cancelled = await post(`/dues/${later!.due_id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', chase: { state: 'ended' } });
    const twice = await post(`/dues/${first!.due_id}/cancel`);
    expect(twice.status).toBe(412);
    expect(twice.body).toEqual(envelope('failed_precondition', 'This payment is already waived.', { reason: 'conflict', current_status: 'waived' }));
    expect((await request(api.server).get('/api/v1/apps/dues/subscribers').set(bearer(ws.key))).body.items.find((x: { subscriber_id: string }) => x.subscriber_id === s.subscriber_id)).toMatchObject({
      outstanding_total: 0,
    });
    const unknown = await post('/dues/due_0123456789abcdef0123456789/waive');
    expect(unknown.body).toEqual(envelope('not_found', 'Payment not found.'));
  });

  it('a gateway payment applies once (source gateway), however often it is repeated; then a manual mark is 412', async () => {
    const s = await subscribe();
    const [, first] = await dues(s.subscriber_id);
    const results = await Promise.all([1, 2, 3].map(() => post(`/dues/${first!.due_id}/gateway-payment`, { reference: 'pay_123' })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.filter((r) => r.body.applied)).toHaveLength(1);
    for (const r of results) expect(r.body.due).toMatchObject({ status: 'paid', payment_reference: 'pay_123', version: 2 });
    const paidEvents = (await eventsOf(api.db, ws.workspaceId, 'payment.paid')).filter((e) => e.data.due_id === first!.due_id);
    expect(paidEvents.map((e) => e.data)).toEqual([{ due_id: first!.due_id, subscriber_id: s.subscriber_id, amount: 700, period: first!.period_label, reference: 'pay_123', source: 'gateway' }]);
    const manual = await post(`/dues/${first!.due_id}/paid`, { reference: 'cash' });
    expect(manual.status).toBe(412);
    expect(manual.body).toEqual(envelope('failed_precondition', 'This payment is already paid.', { reason: 'conflict', current_status: 'paid' }));
  });

  it('a manual payment from the console fires payment.paid with source manual', async () => {
    const s = await subscribe();
    const [, first] = await dues(s.subscriber_id);
    const res = await post(`/dues/${first!.due_id}/paid`, { expected_version: 1, reference: 'cash', marked_by_name: 'Ravi' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'paid', marked_by: 'console', marked_by_name: 'Ravi', chase: { state: 'ended', ended_as: 'paid' } });
    const [event] = (await eventsOf(api.db, ws.workspaceId, 'payment.paid')).filter((e) => e.data.due_id === first!.due_id);
    expect(event!.data).toMatchObject({ source: 'manual', reference: 'cash' });
  });

  it('an unreachable contact directory: the subscriber is still created, contact_id null and contact_pending true', async () => {
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    const created = await createSubscriber(
      {
        db: api.db,
        events: { publish: async () => ({}) as never },
        temporal: api.temporal,
        taskQueue: api.config.TEMPORAL_TASK_QUEUE,
        linkContact: () => Promise.reject(new Error('connect ECONNREFUSED contacts directory')),
      },
      workspace,
      { name: 'Unlinked', phone: '+919700099999', email: 'unlinked@example.com', plan_name: 'Monthly plan', amount: 10, cycle_unit: 'monthly', cycle_days: null, due_day: null, start_date: null },
      new Date(),
    );
    expect(created).toMatchObject({ kind: 'created', subscriber: { contact_id: null, contact_pending: true, outstanding_total: 20 } });
    const raised = await duesCollections(api.db).dues.find({ subscriber_id: (created as { subscriber: { _id: string } }).subscriber._id }).toArray();
    expect(raised.map((d) => d.contact_id)).toEqual([null, null]);
  });

  it("a subscriber's page: due now and scheduled in the workspace's today, each due's standing and why it exists; unknown is 404", async () => {
    const zone = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.timezone;
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
    const s = await subscribe({ amount: 750 });
    const res = await request(api.server).get(`${app()}/subscribers/${s.subscriber_id}`).set(CONSOLE);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscriber: { subscriber_id: s.subscriber_id, outstanding_total: 1500, next_due_date: today },
      time_zone: zone,
      today,
      due_now_total: 750,
      due_now_count: 1,
      scheduled_total: 750,
      scheduled_count: 1,
    });
    const raisedWhy = /^Raised on \d{1,2} [A-Z][a-z]{2} \d{4} when the subscriber was added: a new subscriber's first two dues are raised at once, this one and the next\.$/;
    expect(res.body.dues.map((d: Record<string, any>) => [d.standing, d.status, d.chase.state])).toEqual([
      ['scheduled', 'scheduled', 'running'],
      ['due_now', 'scheduled', 'running'],
    ]);
    expect(res.body.dues[1].due_date).toBe(today);
    for (const d of res.body.dues) expect(d.why).toMatch(raisedWhy);

    // Paid today's due: nothing due now, the next still scheduled.
    const paid = await post(`/dues/${res.body.dues[1].due_id}/paid`, {});
    expect(paid.status).toBe(200);
    const after = (await request(api.server).get(`${app()}/subscribers/${s.subscriber_id}`).set(CONSOLE)).body;
    expect(after).toMatchObject({ due_now_total: 0, due_now_count: 0, scheduled_total: 750, scheduled_count: 1 });
    expect(after.dues.map((d: Record<string, any>) => d.standing)).toEqual(['scheduled', 'settled']);

    for (const id of ['sub_000000000000000000000000', 'not-a-subscriber']) {
      const missing = await request(api.server).get(`${app()}/subscribers/${id}`).set(CONSOLE);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(envelope('not_found', 'Subscriber not found.'));
    }
  });

  it('the console routes answer 404 for an unknown workspace', async () => {
    const res = await request(api.server).get('/console/v1/workspaces/ws_nope/apps/dues/settings').set(CONSOLE);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelope('not_found', 'Workspace not found.'));
  });
});
