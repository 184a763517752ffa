import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createToolbox, type AgentToolContext } from '../../../src/agents';
import { BUSINESS_TOOL_LIMITS as L, businessToolSource } from '../../../src/businessTools';
import { verify } from '../../../src/webhooks/verify';
import { startTestApi, type TestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

interface Hit {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A business's HTTP tools on loopback: each path answers as the test says, every request recorded with its raw bytes. */
async function startToolServer(routes: Record<string, (req: Hit, res: ServerResponse) => void>): Promise<{ server: Server; url: (path: string) => string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      hits.push(hit);
      (routes[hit.path] ?? ((_h, r: ServerResponse) => r.writeHead(404).end()))(hit, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, hits, url: (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}` };
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const ORDER_PARAMETERS = {
  type: 'object',
  properties: { order_id: { type: 'string', description: 'The order number' }, detail: { type: 'string', enum: ['status', 'items'] } },
  required: ['order_id'],
  additionalProperties: false,
};

/**
 * Business HTTP tools (docs/agents.md "Business tools"): declared through the console's HTTP
 * routes, called by the agents' tool source against real HTTP servers on loopback (allowed
 * as the webhook tests allow it: WEBHOOK_ALLOW_PRIVATE_URLS is unset outside production), each
 * request signed so the receiver's own verify() accepts it, every failure an `ok: false` the
 * agent can talk about.
 */
describe('business HTTP tools', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  let admin: { Authorization: string };
  let tools: Awaited<ReturnType<typeof startToolServer>>;
  const secrets: Record<string, string> = {};
  let stopStreaming = false;

  const toolsPath = (workspaceId = ws.workspaceId) => `/console/v1/workspaces/${workspaceId}/tools`;
  const declare = (body: Record<string, unknown>, workspaceId?: string) => request(api.server).post(toolsPath(workspaceId)).set(admin).send(body);
  const context = (runKey: string): AgentToolContext => ({ tenantId: ws.workspaceId, agentId: 'bot_1', channel: 'whatsapp', conversationId: 'cnv_1', runKey, now: new Date() });

  beforeAll(async () => {
    api = await startTestApi();
    ws = await createTestWorkspace(api.db);
    admin = bearer(api.config.CONSOLE_TOKEN!);
    tools = await startToolServer({
      '/orders': (hit, res) => {
        // The business checks the request exactly as it checks our webhooks.
        const args = verify(hit.body, hit.headers, secrets.lookup_order!) as unknown as { order_id: string };
        if (args.order_id === 'R-9') json(res, 200, { status: 'refund over limit', hand_over: { reason: 'Refunds above 5000 need a person' } });
        else json(res, 200, { order_id: args.order_id, status: 'shipped', eta: '2 days' });
      },
      '/slow': () => undefined, // never answers
      '/huge': (_hit, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        // An answer without end: the read must stop at the cap, not wait for the end.
        const more = () => {
          if (stopStreaming || res.destroyed) return;
          if (res.write(chunk)) setImmediate(more);
          else res.once('drain', more);
        };
        more();
      },
      '/broken': (_hit, res) => json(res, 503, { error: 'order service down' }),
      '/html': (_hit, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'),
    });
  });
  afterAll(async () => {
    stopStreaming = true;
    tools?.server.closeAllConnections();
    await new Promise((resolve) => tools?.server.close(resolve));
    await api?.close();
  });

  it('declares a tool: 201 with its secret once, listed and read without it, deleted', async () => {
    const created = await declare({ name: 'lookup_order', description: 'Look up an order by its number.', parameters: ORDER_PARAMETERS, url: tools.url('/orders'), timeout_ms: 5_000 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'lookup_order',
      description: 'Look up an order by its number.',
      parameters: ORDER_PARAMETERS,
      url: tools.url('/orders'),
      timeout_ms: 5_000,
      created_at: expect.stringMatching(/\+00:00$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    secrets.lookup_order = created.body.secret as string;
    for (const [name, path, timeout] of [
      ['slow_tool', '/slow', L.minTimeoutMs],
      ['huge_tool', '/huge', undefined],
      ['broken_tool', '/broken', undefined],
      ['html_tool', '/html', undefined],
    ] as const) {
      const res = await declare({ name, description: `The ${name}.`, parameters: { type: 'object', properties: {} }, url: tools.url(path), ...(timeout ? { timeout_ms: timeout } : {}) });
      expect(res.status).toBe(201);
    }
    const list = await request(api.server).get(toolsPath()).set(admin);
    expect(list.status).toBe(200);
    expect(list.body.limit).toBe(L.maxToolsPerWorkspace);
    expect(list.body.items.map((t: { name: string }) => t.name)).toEqual(['broken_tool', 'html_tool', 'huge_tool', 'lookup_order', 'slow_tool']);
    expect(list.body.items.every((t: Record<string, unknown>) => !('secret' in t))).toBe(true);
    const one = await request(api.server).get(`${toolsPath()}/lookup_order`).set(admin);
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('secret');
    expect(one.body.timeout_ms).toBe(5_000);

    const extra = await declare({ name: 'to_delete', description: 'x', parameters: { type: 'object' }, url: tools.url('/x') });
    expect(extra.body.timeout_ms).toBe(L.defaultTimeoutMs);
    expect((await request(api.server).delete(`${toolsPath()}/to_delete`).set(admin)).body).toEqual({ name: 'to_delete', deleted: true });
    const gone = await request(api.server).delete(`${toolsPath()}/to_delete`).set(admin);
    expect({ status: gone.status, body: gone.body as unknown }).toEqual({ status: 404, body: envelope('not_found', 'Tool not found.') });
  });

  it('refuses a declaration it cannot use, with the reason', async () => {
    const base = { description: 'd', parameters: { type: 'object', properties: {} }, url: tools.url('/orders') };
    const refused = async (body: Record<string, unknown>, status: number, code: string, message: string, details: Record<string, unknown>) => {
      const res = await declare({ ...base, ...body });
      expect({ status: res.status, body: res.body as unknown }).toEqual({ status, body: envelope(code, message, details) });
    };
    await refused({ name: 'hand_over' }, 400, 'invalid_argument', "hand_over is a built-in tool's name; choose another.", { reason: 'tool_name_reserved', name: 'hand_over' });
    await refused({ name: 'find_contact' }, 400, 'invalid_argument', "find_contact is a built-in tool's name; choose another.", { reason: 'tool_name_reserved', name: 'find_contact' });
    await refused({ name: 'end_call' }, 400, 'invalid_argument', "end_call is a built-in tool's name; choose another.", { reason: 'tool_name_reserved', name: 'end_call' });
    await refused({ name: 'flat', parameters: { type: 'string' } }, 400, 'invalid_argument', 'parameters must be an object schema ("type": "object").', { reason: 'invalid_parameters_schema' });
    await refused(
      { name: 'flat', parameters: { type: 'object', properties: { a: { type: 'text' } } } },
      400,
      'invalid_argument',
      'parameters.properties.a.type "text" is not a JSON Schema type.',
      { reason: 'invalid_parameters_schema' },
    );
    await refused({ name: 'flat', parameters: { type: 'object', properties: {}, required: ['a'] } }, 400, 'invalid_argument', 'parameters.required names "a", which is not in parameters.properties.', {
      reason: 'invalid_parameters_schema',
    });
    await refused({ name: 'lookup_order' }, 409, 'conflict', 'The workspace already has a tool named lookup_order.', { reason: 'tool_name_taken', name: 'lookup_order' });
    const badName = await declare({ ...base, name: 'has space' });
    expect(badName.status).toBe(400);
    expect(badName.body.error.details.errors[0].loc).toEqual(['body', 'name']);
    const badUrl = await declare({ ...base, name: 'ftp_tool', url: 'ftp://example.com/x' });
    expect(badUrl.body.error.details.errors[0]).toMatchObject({ loc: ['body', 'url'], msg: 'expected an http or https URL' });
  });

  it('calls the tool: a signed POST of the arguments, its JSON answer and latency in a tool trail row', async () => {
    const [tool] = (await businessToolSource({ db: api.db, allowPrivateUrls: true })(context('x'))).filter((t) => t.name === 'lookup_order');
    expect(tool).toMatchObject({ name: 'lookup_order', description: 'Look up an order by its number.', parameters: ORDER_PARAMETERS });
    const before = tools.hits.length;
    const result = await tool!.run(context('turn-1:call-1'), { order_id: 'A-17', detail: 'status' });
    expect(result).toEqual({
      ok: true,
      output: { order_id: 'A-17', status: 'shipped', eta: '2 days' },
      trail: {
        kind: 'tool',
        text: expect.stringMatching(/^Ran lookup_order: answered 200 in \d+ ms$/),
        detail: {
          tool: 'lookup_order',
          ok: true,
          latency_ms: result.latencyMs,
          call_id: expect.stringMatching(/^tcall_[0-9a-f]{24}$/),
          status_code: 200,
          arguments: { order_id: 'A-17', detail: 'status' },
          result: '{"order_id":"A-17","status":"shipped","eta":"2 days"}',
        },
      },
      latencyMs: expect.any(Number),
    });
    const hit = tools.hits[before]!;
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['x-agent-tool']).toBe('lookup_order');
    expect(JSON.parse(hit.body.toString())).toEqual({ order_id: 'A-17', detail: 'status' });
    expect(hit.headers['webhook-id']).toBe((result.trail.detail as { call_id: string }).call_id);
    // A retried run (same runKey) is the same call id, so the business can deduplicate it.
    const retried = await tool!.run(context('turn-1:call-1'), { order_id: 'A-17' });
    expect(tools.hits[tools.hits.length - 1]!.headers['webhook-id']).toBe(hit.headers['webhook-id']);
    expect(retried.ok).toBe(true);
    // A wrong secret does not verify: the signature covers the bytes with this tool's secret.
    expect(() => verify(hit.body, hit.headers, 'whsec_' + Buffer.alloc(32, 1).toString('base64'))).toThrow('no webhook-signature matches this body and secret');
  });

  it('a tool answer can ask for a person: hand_over becomes the result\u2019s handOver', async () => {
    const box = createToolbox([businessToolSource({ db: api.db, allowPrivateUrls: true })]);
    const result = await box.run(context('turn-2:call-1'), 'lookup_order', { order_id: 'R-9' });
    expect(result).toMatchObject({
      ok: true,
      output: { status: 'refund over limit', hand_over: { reason: 'Refunds above 5000 need a person' } },
      handOver: { reason: 'Refunds above 5000 need a person' },
      trail: { kind: 'tool', text: expect.stringMatching(/asking for a person \(Refunds above 5000 need a person\)$/) },
    });
  });

  it('every failure is ok:false with words for the agent and the reason in the trail; none throws', async () => {
    const box = createToolbox([businessToolSource({ db: api.db, allowPrivateUrls: true })]);
    const hitsBefore = tools.hits.length;
    const badArgs = await box.run(context('a'), 'lookup_order', { detail: 'status' });
    expect(badArgs).toMatchObject({ ok: false, output: { error: 'The arguments for lookup_order do not fit: "order_id" is required.' }, trail: { kind: 'tool' } });
    expect((await box.run(context('a2'), 'lookup_order', { order_id: 'A', colour: 'red' })).output).toEqual({ error: 'The arguments for lookup_order do not fit: "colour" is not a parameter of this tool.' });
    expect((await box.run(context('a3'), 'lookup_order', { order_id: 7 })).output).toEqual({ error: 'The arguments for lookup_order do not fit: "order_id" must be string.' });
    expect((await box.run(context('a4'), 'lookup_order', { order_id: 'A', detail: 'price' })).output).toEqual({ error: 'The arguments for lookup_order do not fit: "detail" must be one of "status", "items".' });
    // Arguments refused never leave.
    expect(tools.hits.length).toBe(hitsBefore);

    const slow = await box.run(context('s'), 'slow_tool', {});
    expect(slow).toMatchObject({ ok: false, output: { error: 'slow_tool did not answer in time.' }, trail: { kind: 'tool', text: expect.stringMatching(/^slow_tool failed: no answer within 0.5 s \(\d+ ms\)$/) } });

    const huge = await box.run(context('h'), 'huge_tool', {});
    expect(huge).toMatchObject({ ok: false, output: { error: 'huge_tool answered with more than the agent can read.' }, trail: { detail: { error: `answer larger than ${L.maxResponseBytes} bytes`, status_code: 200 } } });

    const broken = await box.run(context('b'), 'broken_tool', {});
    expect(broken).toMatchObject({ ok: false, output: { error: 'broken_tool answered with an error (HTTP 503): order service down' }, trail: { detail: { error: 'answered 503', status_code: 503 } } });

    const stopped = new AbortController();
    stopped.abort();
    expect(await box.run(context('c'), 'lookup_order', { order_id: 'A-1' }, stopped.signal)).toMatchObject({
      ok: false,
      output: { error: 'lookup_order was stopped before it answered.' },
      trail: { kind: 'tool', detail: { error: 'stopped by the caller before an answer' } },
    });

    const html = await box.run(context('t'), 'html_tool', {});
    expect(html).toMatchObject({ ok: false, output: { error: 'html_tool gave an answer that is not JSON.' }, trail: { detail: { error: 'answer is not JSON' } } });
  });

  it('refuses loopback as the webhook policy does: at the call when private addresses are not allowed', async () => {
    const box = createToolbox([businessToolSource({ db: api.db, allowPrivateUrls: false })]);
    const before = tools.hits.length;
    const result = await box.run(context('p'), 'lookup_order', { order_id: 'A-1' });
    expect(result).toMatchObject({
      ok: false,
      output: { error: 'lookup_order could not be reached.' },
      trail: { kind: 'tool', detail: { error: '127.0.0.1 is a loopback address; private, loopback and link-local addresses are refused', status_code: null } },
    });
    expect(tools.hits.length).toBe(before);
  });
});

describe('business HTTP tools where private addresses are refused (WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
  let api: TestApi;
  afterAll(async () => {
    await api?.close();
  });

  it('refuses to declare a tool on a loopback or link-local URL', async () => {
    api = await startTestApi({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' } });
    const ws = await createTestWorkspace(api.db);
    const declare = (url: string) =>
      request(api.server)
        .post(`/console/v1/workspaces/${ws.workspaceId}/tools`)
        .set(bearer(api.config.CONSOLE_TOKEN!))
        .send({ name: 'lookup', description: 'd', parameters: { type: 'object', properties: {} }, url });
    const loopback = await declare('http://127.0.0.1:9/orders');
    expect({ status: loopback.status, body: loopback.body as unknown }).toEqual({
      status: 400,
      body: envelope('invalid_argument', 'Tool URLs may not point at private, loopback or link-local addresses; 127.0.0.1 is 127.0.0.1.', {
        reason: 'tool_url_private',
        host: '127.0.0.1',
        address: '127.0.0.1',
      }),
    });
    const metadata = await declare('http://169.254.169.254/latest');
    expect(metadata.body.error.details).toEqual({ reason: 'tool_url_private', host: '169.254.169.254', address: '169.254.169.254' });
    expect((await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/tools`).set(bearer(api.config.CONSOLE_TOKEN!))).body.items).toEqual([]);
  });
});
