import request from 'supertest';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../src/events/types';
import { webhookEndpoints } from '../../../src/webhooks/endpoints';
import { startTestApi, type TestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';

/** Webhook endpoints in the console, with the production address rule (private URLs refused). */
describe('console webhook endpoints', () => {
  let api: TestApi;
  let admin: { Authorization: string };

  beforeAll(async () => {
    api = await startTestApi({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' } });
    admin = bearer(api.config.CONSOLE_TOKEN!);
  });

  afterAll(async () => {
    await api?.close();
  });

  const call = (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown) => {
    const req = request(api.server)[method](`/console/v1${path}`).set(admin);
    return body === undefined ? req : req.send(body as object);
  };
  // A public address that is never contacted: these endpoints are disabled and no event is emitted.
  const publicUrl = 'https://93.184.215.14/hooks/orders';

  async function workspace(): Promise<string> {
    return (await createTestWorkspace(api.db)).workspaceId;
  }

  it('lists the twenty-two subscribable types, without ping', async () => {
    const res = await call('get', '/event-types');
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([...SUBSCRIBABLE_EVENT_TYPES]);
    expect(res.body.items).toHaveLength(22);
    expect(res.body.items).not.toContain('ping');
  });

  it('creates an endpoint and shows its secret once', async () => {
    const ws = await workspace();
    const created = await call('post', `/workspaces/${ws}/webhooks`, {
      url: publicUrl,
      event_types: ['ticket.updated', 'call.ended', 'ticket.updated'],
      enabled: false,
      description: 'orders',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      webhook_id: expect.stringMatching(/^whk_[0-9a-f]{24}$/),
      url: publicUrl,
      event_types: ['call.ended', 'ticket.updated'],
      enabled: false,
      description: 'orders',
      previous_secret_expires_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      updated_at: created.body.created_at,
      success_rate: { hours: 24, attempts: 0, succeeded: 0, percent: null },
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret, ...shown } = created.body;
    const got = await call('get', `/workspaces/${ws}/webhooks/${created.body.webhook_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(shown);
    const listed = await call('get', `/workspaces/${ws}/webhooks`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ items: [shown] });
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(6));
  });

  it('defaults to every type (an empty list), enabled, no description', async () => {
    const ws = await workspace();
    const res = await call('post', `/workspaces/${ws}/webhooks`, { url: publicUrl, enabled: false });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ event_types: [], enabled: false, description: null });
    const stored = await webhookEndpoints(api.db).findOne({ _id: res.body.webhook_id });
    expect(stored!.event_types).toEqual([]);
  });

  it('refuses URLs that are not http or https, unknown types and ping, with the validation envelope', async () => {
    const ws = await workspace();
    for (const [body, loc, msg] of [
      [{ url: 'ftp://93.184.215.14/x' }, ['body', 'url'], 'expected an http or https URL'],
      [{ url: 'not a url' }, ['body', 'url'], 'expected an http or https URL'],
      [{ url: 'https://user:pw@93.184.215.14/x' }, ['body', 'url'], 'credentials in the URL are not supported; verify the signature instead'],
      [{ url: publicUrl, event_types: ['ping'] }, ['body', 'event_types', 0], expect.any(String)],
      [{ url: publicUrl, event_types: ['call.started', 'call.exploded'] }, ['body', 'event_types', 1], expect.any(String)],
    ] as const) {
      const res = await call('post', `/workspaces/${ws}/webhooks`, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc, msg, type: expect.any(String) }] }));
    }
  });

  it.each([
    ['http://127.0.0.1:8080/hook', '127.0.0.1', '127.0.0.1'],
    ['http://10.0.0.5/hook', '10.0.0.5', '10.0.0.5'],
    ['http://192.168.1.20/hook', '192.168.1.20', '192.168.1.20'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254', '169.254.169.254'],
    ['http://[::1]:3000/hook', '::1', '::1'],
    ['http://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1', '::ffff:7f00:1'],
    // Issue 32: IPv6 forms that carry a refused IPv4 address.
    ['http://[::127.0.0.1]/hook', '::7f00:1', '::7f00:1'],
    ['http://[64:ff9b::169.254.169.254]/latest/meta-data', '64:ff9b::a9fe:a9fe', '64:ff9b::a9fe:a9fe'],
    ['http://[2002:7f00:1::1]/hook', '2002:7f00:1::1', '2002:7f00:1::1'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
  ])('refuses the private address %s with 400 webhook_url_private', async (url, host, address) => {
    const ws = await workspace();
    const res = await call('post', `/workspaces/${ws}/webhooks`, { url });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      envelope('invalid_argument', `Webhook URLs may not point at private, loopback or link-local addresses; ${host} is ${address}.`, {
        reason: 'webhook_url_private',
        host,
        address,
      }),
    );
    expect(await webhookEndpoints(api.db).countDocuments({ tenant_id: ws })).toBe(0);
  });

  it('resolves host names: one that resolves to loopback is refused, one that does not resolve too', async () => {
    const ws = await workspace();
    const local = await call('post', `/workspaces/${ws}/webhooks`, { url: 'http://localhost:4000/hook' });
    expect(local.status).toBe(400);
    expect(local.body.error.details).toEqual({ reason: 'webhook_url_private', host: 'localhost', address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
    const nowhere = await call('post', `/workspaces/${ws}/webhooks`, { url: 'https://nothing-here.invalid/hook' });
    expect(nowhere.status).toBe(400);
    expect(nowhere.body).toEqual(
      envelope('invalid_argument', "The webhook URL's host nothing-here.invalid could not be resolved.", { reason: 'webhook_url_unresolvable', host: 'nothing-here.invalid' }),
    );
  });

  it('updates url, types and enabled; refuses a private URL and unknown fields', async () => {
    const ws = await workspace();
    const id = (await call('post', `/workspaces/${ws}/webhooks`, { url: publicUrl, enabled: false })).body.webhook_id;
    const updated = await call('patch', `/workspaces/${ws}/webhooks/${id}`, { url: 'https://93.184.215.14/v2', event_types: ['payment.paid'], description: null });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ webhook_id: id, url: 'https://93.184.215.14/v2', event_types: ['payment.paid'], enabled: false, description: null });
    expect(updated.body.secret).toBeUndefined();

    const cleared = await call('patch', `/workspaces/${ws}/webhooks/${id}`, { event_types: [] });
    expect(cleared.body.event_types).toEqual([]);

    const priv = await call('patch', `/workspaces/${ws}/webhooks/${id}`, { url: 'http://10.1.1.1/x' });
    expect(priv.status).toBe(400);
    expect(priv.body.error.details.reason).toBe('webhook_url_private');
    expect((await call('get', `/workspaces/${ws}/webhooks/${id}`)).body.url).toBe('https://93.184.215.14/v2');

    const unknown = await call('patch', `/workspaces/${ws}/webhooks/${id}`, { secret: 'whsec_mine' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('Request validation failed.');
  });

  it('rotates the secret: a new one shown once, the old one signing for 24 more hours', async () => {
    const ws = await workspace();
    const created = (await call('post', `/workspaces/${ws}/webhooks`, { url: publicUrl, enabled: false })).body;
    const before = Date.now();
    const rotated = await call('post', `/workspaces/${ws}/webhooks/${created.webhook_id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    const expires = Date.parse(rotated.body.previous_secret_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 1000);
    const stored = await webhookEndpoints(api.db).findOne({ _id: created.webhook_id });
    expect(stored).toMatchObject({ secret: rotated.body.secret, previous_secret: created.secret });
    expect((await call('get', `/workspaces/${ws}/webhooks/${created.webhook_id}`)).body.secret).toBeUndefined();
  });

  it('deletes an endpoint; then it is 404 everywhere', async () => {
    const ws = await workspace();
    const id = (await call('post', `/workspaces/${ws}/webhooks`, { url: publicUrl, enabled: false })).body.webhook_id;
    const deleted = await call('delete', `/workspaces/${ws}/webhooks/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ webhook_id: id, deleted: true });
    for (const [method, path] of [
      ['get', ''],
      ['patch', ''],
      ['delete', ''],
      ['post', '/rotate-secret'],
      ['post', '/test'],
      ['get', '/deliveries'],
    ] as const) {
      const res = await call(method, `/workspaces/${ws}/webhooks/${id}${path}`, method === 'patch' ? { enabled: true } : undefined);
      expect({ method, path, status: res.status, body: res.body }).toEqual({ method, path, status: 404, body: envelope('not_found', 'Webhook endpoint not found.') });
    }
  });

  it("answers another workspace's endpoint with 404, exactly like a missing one", async () => {
    const [mine, theirs] = [await workspace(), await workspace()];
    const id = (await call('post', `/workspaces/${theirs}/webhooks`, { url: publicUrl, enabled: false })).body.webhook_id;
    const res = await call('get', `/workspaces/${mine}/webhooks/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelope('not_found', 'Webhook endpoint not found.'));
    expect((await call('get', `/workspaces/${mine}/webhooks`)).body.items).toEqual([]);
    const replay = await call('post', `/workspaces/${mine}/webhooks/${id}/replay`, { event_id: 'evt_x' });
    expect(replay.status).toBe(404);
  });

  it('refuses test and replay on a disabled endpoint (412) and replay of an unknown event (404)', async () => {
    const ws = await workspace();
    const id = (await call('post', `/workspaces/${ws}/webhooks`, { url: publicUrl, enabled: false })).body.webhook_id;
    const test = await call('post', `/workspaces/${ws}/webhooks/${id}/test`);
    expect(test.status).toBe(412);
    expect(test.body).toEqual(envelope('failed_precondition', 'This webhook endpoint is disabled; enable it first.', { reason: 'webhook_disabled' }));
    const unknown = await call('post', `/workspaces/${ws}/webhooks/${id}/replay`, { event_id: 'evt_000000000000000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(envelope('not_found', 'Event not found.'));
    const missing = await call('post', `/workspaces/${ws}/webhooks/${id}/replay`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.errors[0].loc).toEqual(['body', 'event_id']);
  });

  it('answers an unknown delivery with 404 and an empty delivery list with no cursor', async () => {
    const ws = await workspace();
    const id = (await call('post', `/workspaces/${ws}/webhooks`, { url: publicUrl, enabled: false })).body.webhook_id;
    expect((await call('get', `/workspaces/${ws}/webhooks/${id}/deliveries`)).body).toEqual({ items: [], next_cursor: null });
    const res = await call('get', `/workspaces/${ws}/webhooks/${id}/deliveries/evt_x:${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelope('not_found', 'Delivery not found.'));
    const bad = await call('get', `/workspaces/${ws}/webhooks/${id}/deliveries?limit=500`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors[0].loc).toEqual(['query', 'limit']);
  });

  it('allows at most 20 endpoints per workspace (409 webhook_limit_reached)', async () => {
    const ws = await workspace();
    for (let i = 0; i < 20; i++) expect((await call('post', `/workspaces/${ws}/webhooks`, { url: `${publicUrl}/${i}`, enabled: false })).status).toBe(201);
    const res = await call('post', `/workspaces/${ws}/webhooks`, { url: publicUrl, enabled: false });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(envelope('conflict', 'A workspace can have at most 20 webhook endpoints.', { reason: 'webhook_limit_reached', limit: 20 }));
  });

  it('answers an unknown workspace with 404', async () => {
    const res = await call('post', '/workspaces/ws_missing/webhooks', { url: publicUrl });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelope('not_found', 'Workspace not found.'));
  });
});
