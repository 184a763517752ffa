import { createClient, idempotentOperations, OrchestratorApiError, type ClientOptions } from '../../../src/client';

/**
 * The client over a scripted fetch: what it sends (keys, headers, bodies, cursors), how often,
 * and how long it waits. The real API is in test/integration/client/client.test.ts.
 */
describe('the typed client', () => {
  interface Sent {
    method: string;
    url: URL;
    headers: Headers;
    body: string;
  }

  /** A client whose fetch answers from `answers` in order (the last one repeats), recording each try. */
  function scripted(answers: (() => Response | Promise<Response>)[], options: Partial<ClientOptions> = {}) {
    const sent: Sent[] = [];
    const waits: number[] = [];
    const client = createClient({
      baseUrl: 'http://api.test/',
      apiKey: 'ork_test_key',
      fetch: async (request) => {
        sent.push({ method: request.method, url: new URL(request.url), headers: request.headers, body: await request.text() });
        return answers[Math.min(sent.length, answers.length) - 1]!();
      },
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0,
      now: () => new Date('2026-11-23T04:10:30.000Z'),
      ...options,
    });
    return { client, sent, waits };
  }
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  const failure = (status: number, code: string, reason: string | null, extra: Record<string, unknown> = {}) =>
    json(status, { error: { code, message: `${code} here`, details: reason ? { reason, ...extra } : extra, request_id: 'req_9', correlation_id: 'cor_9' } });
  const sent201 = json(201, { message_id: 'wamid.X', channel: 'whatsapp', to: '+919800000001', status: 'sent' });
  const message = { to: '+919800000001', template: { name: 'order_update', variables: ['Asha', 'A-1', 'Friday'] } };

  it('sends the key as a bearer token to baseUrl + the path, and answers the typed body', async () => {
    const { client, sent } = scripted([json(200, { ok: true })]);
    await expect(client.get('/api/v1/ping')).resolves.toEqual({ ok: true });
    expect(sent[0]!.url.href).toBe('http://api.test/api/v1/ping');
    expect(sent[0]!.headers.get('authorization')).toBe('Bearer ork_test_key');
  });

  it('the creates that honour Idempotency-Key are read from the document', () => {
    expect([...idempotentOperations].sort()).toEqual(expect.arrayContaining(['POST /api/v1/calls', 'POST /api/v1/messages', 'POST /api/v1/tickets']));
    expect(idempotentOperations).not.toContain('POST /api/v1/contacts');
  });

  it('gives such a create a fresh Idempotency-Key unless one is sent, and no key to other routes', async () => {
    const { client, sent } = scripted([sent201]);
    await client.post('/api/v1/messages', { body: message });
    await client.post('/api/v1/messages', { body: message });
    await client.post('/api/v1/messages', { body: message, params: { header: { 'Idempotency-Key': 'order-A-1' } } });
    await client.post('/api/v1/contacts', { body: { email: 'asha@example.com' } });
    const keys = sent.map((s) => s.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys.slice(2)).toEqual(['order-A-1', null]);
  });

  it('retries a 429 at the server’s next minute boundary with the same key and the same bytes', async () => {
    const limited = failure(429, 'rate_limited', 'rate_limited', { limit: 120, window_seconds: 60 });
    const { client, sent, waits } = scripted([() => withDate(limited(), 'Mon, 23 Nov 2026 04:10:48 GMT'), sent201]);
    await expect(client.post('/api/v1/messages', { body: message })).resolves.toMatchObject({ message_id: 'wamid.X' });
    expect(waits).toEqual([12_000]);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.headers.get('idempotency-key')).toBe(sent[0]!.headers.get('idempotency-key'));
    expect(sent[1]!.body).toBe(sent[0]!.body);
    expect(JSON.parse(sent[0]!.body)).toEqual(message);
  });

  it('requeues a call refused for call_concurrency after tens of seconds', async () => {
    const { client, waits, sent } = scripted([failure(429, 'rate_limited', 'call_concurrency', { limit: 10 }), json(201, { call_id: 'call_1' })]);
    await client.post('/api/v1/calls', { body: { to: '+919800000002' } });
    expect(waits).toEqual([30_000]);
    expect(sent).toHaveLength(2);
  });

  it('never retries a 412: one try, the typed error with its code and reason', async () => {
    const { client, sent, waits } = scripted([failure(412, 'failed_precondition', 'channel_not_connected')]);
    const err = await client.post('/api/v1/messages', { body: { ...message, sender_id: 'snd_other' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrchestratorApiError);
    expect(err).toMatchObject({ status: 412, code: 'failed_precondition', reason: 'channel_not_connected', message: 'failed_precondition here', requestId: 'req_9' });
    expect(sent).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('does not repeat a create after a 500; retries a read, then gives up after maxRetries', async () => {
    const broken = scripted([failure(500, 'internal', null)]);
    await expect(broken.client.post('/api/v1/messages', { body: message })).rejects.toMatchObject({ status: 500, code: 'internal' });
    expect(broken.sent).toHaveLength(1);

    const reads = scripted([failure(500, 'internal', null)], { retry: { maxRetries: 2 } });
    await expect(reads.client.get('/api/v1/channels')).rejects.toMatchObject({ status: 500 });
    expect(reads.sent).toHaveLength(3);
    expect(reads.waits).toEqual([250, 500]);
  });

  it('retries a create whose connection was refused (nothing reached the API), not one reset after sending', async () => {
    const refused = () => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));
    const reset = () => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } }));
    const first = scripted([refused, sent201]);
    await expect(first.client.post('/api/v1/messages', { body: message })).resolves.toMatchObject({ status: 'sent' });
    expect(first.sent).toHaveLength(2);
    const second = scripted([reset, sent201]);
    await expect(second.client.post('/api/v1/messages', { body: message })).rejects.toThrow('fetch failed');
    expect(second.sent).toHaveLength(1);
  });

  it('retry: false sends each request once', async () => {
    const { client, sent } = scripted([failure(502, 'provider_error', null), sent201], { retry: false });
    await expect(client.post('/api/v1/messages', { body: message })).rejects.toMatchObject({ status: 502, code: 'provider_error' });
    expect(sent).toHaveLength(1);
  });

  it('an aborted request stops waiting between tries', async () => {
    const sent: string[] = [];
    const client = createClient({
      baseUrl: 'http://api.test',
      apiKey: 'ork_test_key',
      retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
      fetch: async (request) => {
        sent.push(request.url);
        return failure(502, 'provider_error', null)();
      },
    });
    const controller = new AbortController();
    const started = Date.now();
    const request = client.get('/api/v1/channels', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(request).rejects.toThrow('caller gave up');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sent).toHaveLength(1);
  });

  it('walks a list page by page with next_cursor until a page has none, keeping the other query parameters', async () => {
    const page = (ids: string[], next: string | null) => json(200, { items: ids.map((conversation_id) => ({ conversation_id })), next_cursor: next });
    const { client, sent } = scripted([page(['con_1', 'con_2'], 'c1'), page(['con_3', 'con_4'], 'c2'), page(['con_5'], null)]);
    const seen: string[] = [];
    for await (const conversation of client.paginate('/api/v1/conversations', { params: { query: { limit: 2, agent_id: 'bot_1' } } })) {
      seen.push(conversation.conversation_id);
    }
    expect(seen).toEqual(['con_1', 'con_2', 'con_3', 'con_4', 'con_5']);
    expect(sent.map((s) => s.url.search)).toEqual(['?limit=2&agent_id=bot_1', '?limit=2&agent_id=bot_1&cursor=c1', '?limit=2&agent_id=bot_1&cursor=c2']);
  });

  it('stops paging at the first failure, with the typed error', async () => {
    const { client } = scripted([json(200, { items: [{ conversation_id: 'con_1' }], next_cursor: 'c1' }), failure(400, 'invalid_argument', null)], { retry: false });
    const seen: string[] = [];
    const walk = async () => {
      for await (const c of client.paginate('/api/v1/conversations')) seen.push(c.conversation_id);
    };
    await expect(walk()).rejects.toBeInstanceOf(OrchestratorApiError);
    expect(seen).toEqual(['con_1']);
  });

  it('types request bodies: a field the document does not have does not compile', async () => {
    const { client, sent } = scripted([json(201, { contact_id: 'cnt_1' })]);
    await client.post('/api/v1/contacts', {
      body: {
        email: 'asha@example.com',
        // @ts-expect-error `nickname` is not a field of the upsertContact body (tsc -p tsconfig.json checks this file).
        nickname: 'Ash',
      },
    });
    // The client sends what it is given; the compiler is what refuses the field.
    expect(JSON.parse(sent[0]!.body)).toEqual({ email: 'asha@example.com', nickname: 'Ash' });
  });
});

/** The response with a `Date` header (the server's clock). */
function withDate(response: Response, date: string): Response {
  const headers = new Headers(response.headers);
  headers.set('date', date);
  return new Response(response.body, { status: response.status, headers });
}
