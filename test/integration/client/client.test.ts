import type { AddressInfo } from 'node:net';
import { createClient, OrchestratorApiError, type ClientOptions } from '../../../src/client';
import { useTestApi } from '../../support/app';

/** The typed client (@orchestrator/client) against the real API (api-core §4, §7): what an integrator sees. */
describe('the typed client against the API', () => {
  const { api, ws } = useTestApi();
  let n = 0;
  /** A recipient no other test has touched. */
  const fresh = () => `+9196${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  /** A client of this file's workspace; `tries` records every request it sends, retries included. */
  function client(options: Partial<ClientOptions> = {}) {
    const tries: Request[] = [];
    const c = createClient({
      baseUrl: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`,
      apiKey: ws.key,
      fetch: (request) => {
        tries.push(request);
        return fetch(request);
      },
      ...options,
    });
    return Object.assign(c, { tries });
  }
  /** The typed error a request ends with (a success fails the test). */
  async function failureOf(request: Promise<unknown>): Promise<OrchestratorApiError> {
    const outcome = await request.then(
      (data) => new Error(`expected a failure, got ${JSON.stringify(data)}`),
      (err: unknown) => err,
    );
    expect(outcome).toBeInstanceOf(OrchestratorApiError);
    return outcome as OrchestratorApiError;
  }
  const orderUpdate = (to: string) => ({ to, template: { name: 'order_update', variables: ['Asha', 'A-1', 'Friday'] } });

  it('creates a contact, then matches it by email', async () => {
    const c = client();
    const email = `asha.${Date.now()}@example.com`;
    const created = await c.post('/api/v1/contacts', { body: { name: 'Asha', email, tags: ['vip'] } });
    expect(created).toMatchObject({ contact_id: expect.stringMatching(/^cnt_/), name: 'Asha', email, tags: ['vip'], created: true, matched_on: null });
    const matched = await c.post('/api/v1/contacts', { body: { email } });
    expect(matched).toMatchObject({ contact_id: created.contact_id, created: false, matched_on: 'email' });
    const found = await c.get('/api/v1/contacts/lookup', { params: { query: { email } } });
    expect(found.contact_id).toBe(created.contact_id);
  });

  it('walks every conversation across pages with the iterator', async () => {
    const c = client();
    const recipients = [fresh(), fresh(), fresh()];
    // Each first template to a number opens that customer's conversation.
    for (const to of recipients) await c.post('/api/v1/messages', { body: orderUpdate(to) });

    const sizes: number[] = [];
    for await (const page of c.pages('/api/v1/conversations', { params: { query: { limit: 2 } } })) sizes.push(page.items.length);
    expect(sizes).toEqual([2, 1]);

    const phones: string[] = [];
    for await (const conversation of c.paginate('/api/v1/conversations', { params: { query: { limit: 2 } } })) {
      expect(conversation.conversation_id).toMatch(/^con_/);
      phones.push(conversation.customer.phone!);
    }
    expect(phones.sort()).toEqual([...recipients].sort());
  });

  it('sends a message with an Idempotency-Key of its own making: the same key replays the first answer', async () => {
    const key = `client-test-${Date.now()}`;
    const c = client({ idempotencyKey: () => key });
    const body = orderUpdate(fresh());
    const first = await c.raw.POST('/api/v1/messages', { body });
    const again = await c.raw.POST('/api/v1/messages', { body });
    expect(first.response.status).toBe(201);
    expect(again.response.status).toBe(201);
    expect(again.data).toEqual(first.data);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(c.tries.map((r) => r.headers.get('idempotency-key'))).toEqual([key, key]);

    // The same key with another body is the typed 409, not retried.
    const reuse = await failureOf(c.post('/api/v1/messages', { body: orderUpdate(fresh()) }));
    expect(reuse).toMatchObject({ status: 409, code: 'conflict', reason: 'idempotency_key_reuse', message: 'This Idempotency-Key was used with a different request body.' });
    expect(c.tries).toHaveLength(3);
  });

  it('sends each create with a fresh key unless one is given; a key the caller gives replays', async () => {
    const c = client();
    const to = fresh();
    const a = await c.post('/api/v1/messages', { body: orderUpdate(to) });
    const b = await c.post('/api/v1/messages', { body: orderUpdate(to) });
    expect(b.message_id).not.toBe(a.message_id);
    const given = `order-${Date.now()}`;
    const x = await c.post('/api/v1/messages', { body: orderUpdate(to), params: { header: { 'Idempotency-Key': given } } });
    const y = await c.post('/api/v1/messages', { body: orderUpdate(to), params: { header: { 'Idempotency-Key': given } } });
    expect(y.message_id).toBe(x.message_id);
    const keys = c.tries.map((r) => r.headers.get('idempotency-key'));
    expect(new Set(keys.slice(0, 2)).size).toBe(2);
    expect(keys.slice(2)).toEqual([given, given]);
  });

  it('turns a 4xx into the typed error with the exact code, reason, message and ids', async () => {
    const c = client({ headers: { 'X-Correlation-Id': 'cor_client_test' } });
    const empty = await failureOf(c.post('/api/v1/messages', { body: { to: fresh() } }));
    expect({ status: empty.status, code: empty.code, reason: empty.reason, message: empty.message, details: empty.details, correlationId: empty.correlationId }).toEqual({
      status: 400,
      code: 'invalid_argument',
      reason: 'empty_message',
      message: 'Send text or a template: the message is empty.',
      details: { reason: 'empty_message' },
      correlationId: 'cor_client_test',
    });
    expect(empty.requestId).toMatch(/^req_/);

    const missing = await failureOf(c.get('/api/v1/calls/{call_id}', { params: { path: { call_id: 'call_nope' } } }));
    expect(missing).toMatchObject({ status: 404, code: 'not_found', reason: null, message: 'Call not found.' });
  });

  it('on the 121st request of a minute, waits for the server’s next minute boundary before each retry', async () => {
    // A key of its own, so the other tests keep their budget. Near the end of a minute, the
    // window could turn during the burst: start in the next one.
    const { key } = await ws.addKey(['messages:send']);
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const burst = client({ apiKey: key, retry: false });
    for (let sent = 0; sent < 120; sent += 20) {
      await Promise.all(Array.from({ length: 20 }, () => burst.get('/api/v1/ping')));
    }

    const notices: { delayMs: number; served: string | null; reason: string | null }[] = [];
    const c = client({
      apiKey: key,
      retry: { maxRetries: 2 },
      random: () => 0,
      // Waiting for real would take up to a minute; the decision is what is checked.
      sleep: async () => undefined,
      onRetry: ({ delayMs, outcome }) =>
        notices.push({ delayMs, served: outcome.kind === 'response' ? outcome.headers.get('date') : null, reason: outcome.kind === 'response' ? outcome.reason : null }),
    });
    const limited = await failureOf(c.get('/api/v1/ping'));
    expect(limited).toMatchObject({
      status: 429,
      code: 'rate_limited',
      reason: 'rate_limited',
      message: 'Rate limit of 120 requests per minute reached; retry at the next minute.',
      details: { reason: 'rate_limited', limit: 120, window_seconds: 60 },
    });
    expect(c.tries).toHaveLength(3);
    expect(notices).toHaveLength(2);
    for (const notice of notices) {
      expect(notice.reason).toBe('rate_limited');
      expect(notice.delayMs).toBeGreaterThan(0);
      expect(notice.delayMs).toBeLessThanOrEqual(60_000);
      expect((Date.parse(notice.served!) + notice.delayMs) % 60_000).toBe(0);
    }
  });

  it('does not retry a 412: one request, failed_precondition channel_not_connected', async () => {
    const c = client();
    const refused = await failureOf(c.post('/api/v1/messages', { body: { ...orderUpdate(fresh()), sender_id: 'snd_missing' } }));
    expect(refused).toMatchObject({
      status: 412,
      code: 'failed_precondition',
      reason: 'channel_not_connected',
      message: 'Sender snd_missing is not a sender of this workspace.',
    });
    expect(c.tries).toHaveLength(1);
  });
});
