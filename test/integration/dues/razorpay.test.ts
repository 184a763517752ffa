import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { duesCollections } from '../../../src/dues/store';
import { RazorpayPaymentLinkProvider } from '../../../src/providers/payments/razorpay';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { eventsOf } from '../../support/messaging';

const SECRET = 'whsec_test_0123456789';

describe('Razorpay Payment Links: the adapter against a local fake, and the signed paid webhook', () => {
  describe('the adapter', () => {
    let server: Server;
    const seen: { method: string; url: string; auth: string; body: Record<string, unknown> }[] = [];
    let answer: { status: number; body: unknown } = { status: 200, body: {} };
    let base: string;

    beforeAll(async () => {
      server = createServer((req: IncomingMessage, res) => {
        let data = '';
        req.on('data', (chunk) => (data += chunk));
        req.on('end', () => {
          seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization ?? '', body: data ? JSON.parse(data) : {} });
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answer.body));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const provider = () => new RazorpayPaymentLinkProvider({ baseUrl: base, keyId: 'rzp_test_key', keySecret: 'secret', timeoutMs: 10_000 });
    const link = { tenantId: 'ws_1', dueId: 'due_0123456789abcdef0123456789', amountPaise: 149950, description: 'March 2026', customer: { name: 'Asha', phone: '+919812345678', email: null } };

    it('creates a link: basic auth, amount in paise, the due as reference_id, Razorpay\'s own reminders off', async () => {
      answer = { status: 200, body: { id: 'plink_Abc123', short_url: 'https://rzp.io/i/abc' } };
      expect(await provider().createLink(link)).toEqual({ ok: true, id: 'plink_Abc123', url: 'https://rzp.io/i/abc' });
      expect(seen.at(-1)).toEqual({
        method: 'POST',
        url: '/v1/payment_links',
        auth: `Basic ${Buffer.from('rzp_test_key:secret').toString('base64')}`,
        body: {
          amount: 149950,
          currency: 'INR',
          reference_id: link.dueId,
          description: 'March 2026',
          customer: { name: 'Asha', contact: '+919812345678' },
          notify: { sms: false, email: false },
          reminder_enable: false,
          notes: { tenant_id: 'ws_1', due_id: link.dueId },
        },
      });
    });

    it('a refusal is a result with Razorpay\'s description; a 5xx throws (the step is retried)', async () => {
      answer = { status: 400, body: { error: { code: 'BAD_REQUEST_ERROR', description: 'reference_id already exists' } } };
      expect(await provider().createLink(link)).toEqual({ ok: false, reason: 'refused', message: 'reference_id already exists' });
      answer = { status: 502, body: {} };
      await expect(provider().createLink(link)).rejects.toThrow('Razorpay answered 502');
    });

    it('under 100 paise (Razorpay\'s minimum for a link), or not whole paise: refused as below_minimum without a call', async () => {
      const calls = seen.length;
      for (const amountPaise of [99, 0, 100.5]) {
        expect(await provider().createLink({ ...link, amountPaise })).toEqual({
          ok: false,
          reason: 'below_minimum',
          message: `A payment link must ask at least 100 paise (Rs 1); this one would ask ${amountPaise}.`,
        });
      }
      expect(seen).toHaveLength(calls);
      answer = { status: 200, body: { id: 'plink_Min100', short_url: 'https://rzp.io/i/min' } };
      expect(await provider().createLink({ ...link, amountPaise: 100 })).toMatchObject({ ok: true });
      expect(seen.at(-1)).toMatchObject({ body: { amount: 100 } });
    });

    it('cancels a link; a 4xx (already paid or cancelled) is not an error', async () => {
      answer = { status: 200, body: { id: 'plink_Abc123', status: 'cancelled' } };
      await provider().cancelLink('plink_Abc123');
      expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/payment_links/plink_Abc123/cancel' });
      answer = { status: 400, body: { error: { description: 'already paid' } } };
      await expect(provider().cancelLink('plink_Abc123')).resolves.toBeUndefined();
    });
  });

  describe('POST /webhooks/razorpay', () => {
    const { api, ws } = useTestApi({ env: { RAZORPAY_WEBHOOK_SECRET: SECRET } });
    let n = 0;
    async function freshDue() {
      n += 1;
      const res = await request(api.server)
        .post('/api/v1/apps/dues/subscribers')
        .set(bearer(ws.key))
        .send({ name: `Payer ${n}`, phone: `+9196${String(Date.now() % 10_000).padStart(4, '0')}${String(n).padStart(4, '0')}`, amount: 800 });
      return (await duesCollections(api.db).dues.find({ subscriber_id: res.body.subscriber_id }).sort({ cycle_index: 1 }).toArray())[0]!;
    }
    const paidEvent = (dueId: string, paymentId = 'pay_Xyz987') =>
      JSON.stringify({
        entity: 'event',
        event: 'payment_link.paid',
        payload: {
          payment_link: { entity: { id: 'plink_Abc123', reference_id: dueId, amount_paid: 80000, status: 'paid' } },
          payment: { entity: { id: paymentId, amount: 80000, currency: 'INR', status: 'captured' } },
        },
      });
    const sign = (raw: string, secret = SECRET) => createHmac('sha256', secret).update(raw).digest('hex');
    const deliver = (raw: string, signature: string) =>
      request(api.server).post('/webhooks/razorpay').set({ 'content-type': 'application/json', 'x-razorpay-signature': signature }).send(raw);
    const paidEvents = async (dueId: string) => (await eventsOf(api.db, ws.workspaceId, 'payment.paid')).filter((e) => e.data.due_id === dueId);

    it('a bad signature is refused (401) and nothing is paid', async () => {
      const due = await freshDue();
      const raw = paidEvent(due._id);
      for (const signature of [sign(raw, 'another-secret'), 'not-hex', '']) {
        const res = await deliver(raw, signature);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ status: 'invalid_signature' });
      }
      expect((await duesCollections(api.db).dues.findOne({ _id: due._id }))!.status).toBe('scheduled');
      expect(await paidEvents(due._id)).toEqual([]);
    });

    it('payment_link.paid marks the due paid with source gateway, exactly once however often it is delivered', async () => {
      const due = await freshDue();
      const raw = paidEvent(due._id);
      const first = await deliver(raw, sign(raw));
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ status: 'applied' });
      expect(await duesCollections(api.db).dues.findOne({ _id: due._id })).toMatchObject({ status: 'paid', paid_amount: 800, payment_reference: 'pay_Xyz987', paid_source: 'gateway', version: 2 });
      const again = await deliver(raw, sign(raw));
      expect(again.body).toEqual({ status: 'unchanged' });
      expect((await paidEvents(due._id)).map((e) => e.data)).toEqual([
        { due_id: due._id, subscriber_id: due.subscriber_id, amount: 800, period: due.period_label, reference: 'pay_Xyz987', source: 'gateway' },
      ]);
    });

    it('racing a manual mark through the API: one payment wins, one payment.paid', async () => {
      const due = await freshDue();
      const raw = paidEvent(due._id, 'pay_Race1');
      const [hook, manual] = await Promise.all([
        deliver(raw, sign(raw)),
        request(api.server).post(`/api/v1/apps/dues/dues/${due._id}/paid`).set(bearer(ws.key)).send({ expected_version: 1, reference: 'cash' }),
      ]);
      expect(hook.status).toBe(200);
      expect([200, 409, 412]).toContain(manual.status);
      expect(hook.body.status === 'applied').toBe(manual.status !== 200);
      expect(await paidEvents(due._id)).toHaveLength(1);
    });

    it('other events are acknowledged and change nothing', async () => {
      const raw = JSON.stringify({ event: 'payment.captured', payload: {} });
      const res = await deliver(raw, sign(raw));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ignored' });
    });
  });
});
