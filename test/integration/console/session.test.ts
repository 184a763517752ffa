import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';

/** The web console's log-in (POST/GET/DELETE /console/session) and the console API's cookie authentication with its CSRF defence. */
describe('console sessions', () => {
  const { api } = useTestApi();
  const origin = () => `http://${hostOf()}`;
  const hostOf = () => {
    const address = api.server.address() as { port: number };
    return `127.0.0.1:${address.port}`;
  };

  async function login(): Promise<{ cookie: string; csrf: string; setCookie: string }> {
    const res = await request(api.server).post('/console/session').set('Origin', origin()).send({ token: api.config.CONSOLE_TOKEN });
    expect(res.status).toBe(201);
    const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]!;
    return { cookie: setCookie.split(';')[0]!, csrf: res.body.csrf_token, setCookie };
  }

  it('trades the console token for an HttpOnly, SameSite=Strict cookie holding an opaque id, stored hashed and never the token', async () => {
    const res = await request(api.server).post('/console/session').send({ token: api.config.CONSOLE_TOKEN });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_at: expect.any(String) });
    const hours = (Date.parse(res.body.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    const [setCookie] = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    expect(setCookie).toMatch(/^console_session=[A-Za-z0-9_-]{43}; Path=\/console; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    // Plain HTTP here, so not Secure (browsers would drop a Secure cookie on http://127.0.0.1).
    expect(setCookie).not.toContain('Secure');
    const id = setCookie!.split(';')[0]!.split('=')[1]!;
    expect(id).not.toContain(api.config.CONSOLE_TOKEN);
    const stored = await api.db.collection('console_sessions').find({}).toArray();
    const serialized = JSON.stringify(stored);
    expect(serialized).not.toContain(id);
    expect(serialized).not.toContain(api.config.CONSOLE_TOKEN);
  });

  it('marks the cookie Secure when the request came over TLS, and only then', async () => {
    // Behind no proxy (app.proxy is off) only the socket says TLS; a forwarded header does not.
    const forwarded = await request(api.server).post('/console/session').set('X-Forwarded-Proto', 'https').send({ token: api.config.CONSOLE_TOKEN });
    expect(([] as string[]).concat(forwarded.headers['set-cookie'] ?? [])[0]).not.toContain('Secure');

    const dir = mkdtempSync(join(tmpdir(), 'console-tls-'));
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1']);
    expect(made.status).toBe(0);
    const listener = api.server.listeners('request')[0] as RequestListener;
    const tls = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, listener);
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const res = await request(tls).post('/console/session').disableTLSCerts().send({ token: api.config.CONSOLE_TOKEN });
      expect(res.status).toBe(201);
      expect(([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await new Promise((resolve) => tls.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a wrong token, a missing one, and a log-in posted from another origin', async () => {
    const wrong = await request(api.server).post('/console/session').send({ token: 'not-the-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(envelope('unauthenticated', 'That is not the console token.', { reason: 'invalid_console_token' }));
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const missing = await request(api.server).post('/console/session').send({});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'token'], msg: expect.any(String), type: 'invalid_type' }] }));

    const foreign = await request(api.server).post('/console/session').set('Origin', 'https://evil.example').send({ token: api.config.CONSOLE_TOKEN });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual(envelope('permission_denied', 'A console session only accepts changes from its own origin.', { reason: 'origin_mismatch' }));
    expect(foreign.headers['set-cookie']).toBeUndefined();
  });

  it('GET /console/session gives the CSRF token to a request with the cookie, and 401 without', async () => {
    const { cookie, csrf } = await login();
    const res = await request(api.server).get('/console/session').set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ csrf_token: csrf, expires_at: expect.any(String) });

    for (const sent of [{}, { Cookie: 'console_session=forged' }]) {
      const none = await request(api.server).get('/console/session').set(sent);
      expect(none.status).toBe(401);
      expect(none.body).toEqual(envelope('unauthenticated', 'The console session has ended; log in again.', { reason: 'session_expired' }));
    }
  });

  it('the console API accepts the cookie for reads, without a CSRF token', async () => {
    const { cookie } = await login();
    const res = await request(api.server).get('/console/v1/workspaces').set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual(expect.any(Array));
  });

  it('a change by cookie needs its own Origin and the CSRF token, compared exactly', async () => {
    const { cookie, csrf } = await login();
    const create = (headers: Record<string, string>) =>
      request(api.server).post('/console/v1/workspaces').set({ Cookie: cookie, ...headers }).send({ name: 'Cookie Co' });

    const noOrigin = await create({ 'X-CSRF-Token': csrf });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body).toEqual(envelope('permission_denied', 'A console session only accepts changes from its own origin.', { reason: 'origin_mismatch' }));

    const foreign = await create({ Origin: 'http://evil.example', 'X-CSRF-Token': csrf });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.details).toEqual({ reason: 'origin_mismatch' });

    for (const token of [undefined, '', `${csrf}x`, csrf.slice(1), 'A'.repeat(csrf.length)]) {
      const res = await create({ Origin: origin(), ...(token === undefined ? {} : { 'X-CSRF-Token': token }) });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(envelope('permission_denied', "Send the session's CSRF token as X-CSRF-Token.", { reason: 'csrf_token_invalid' }));
    }
    expect(await api.db.collection('workspaces').countDocuments({ name: 'Cookie Co' })).toBe(0);

    const ok = await create({ Origin: origin(), 'X-CSRF-Token': csrf });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toBe('Cookie Co');
  });

  it("one session's CSRF token does not serve another session", async () => {
    const first = await login();
    const second = await login();
    expect(second.csrf).not.toBe(first.csrf);
    const res = await request(api.server)
      .post('/console/v1/workspaces')
      .set({ Cookie: first.cookie, Origin: origin(), 'X-CSRF-Token': second.csrf })
      .send({ name: 'Crossed' });
    expect(res.status).toBe(403);
    expect(res.body.error.details).toEqual({ reason: 'csrf_token_invalid' });
  });

  it('the Bearer token still works, and an Authorization header is judged alone (a cookie does not rescue a wrong token)', async () => {
    const { cookie } = await login();
    expect((await request(api.server).get('/console/v1/workspaces').set(bearer(api.config.CONSOLE_TOKEN!))).status).toBe(200);
    const res = await request(api.server).get('/console/v1/workspaces').set({ ...bearer('wrong'), Cookie: cookie });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(envelope('unauthenticated', 'Send the console token as Authorization: Bearer <token>.', { reason: 'invalid_console_token' }));
  });

  it('an unknown or expired session cookie is 401 session_expired', async () => {
    const { cookie } = await login();
    await api.db.collection('console_sessions').updateMany({}, { $set: { expires_at: new Date(Date.now() - 1000) } });
    const res = await request(api.server).get('/console/v1/workspaces').set('Cookie', cookie);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(envelope('unauthenticated', 'The console session has ended; log in again.', { reason: 'session_expired' }));
  });

  it('logout needs the CSRF defence, then ends the session server-side and clears the cookie', async () => {
    const { cookie, csrf } = await login();
    const forged = await request(api.server).delete('/console/session').set({ Cookie: cookie, Origin: origin() });
    expect(forged.status).toBe(403);
    expect(forged.body.error.details).toEqual({ reason: 'csrf_token_invalid' });

    const out = await request(api.server).delete('/console/session').set({ Cookie: cookie, Origin: origin(), 'X-CSRF-Token': csrf });
    expect(out.status).toBe(204);
    expect(([] as string[]).concat(out.headers['set-cookie'] ?? [])[0]).toBe('console_session=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict');

    // The old cookie, replayed, opens nothing.
    const after = await request(api.server).get('/console/v1/workspaces').set('Cookie', cookie);
    expect(after.status).toBe(401);
    expect(after.body.error.details).toEqual({ reason: 'session_expired' });
  });

  it('other methods on /console/session are 405 with Allow', async () => {
    const res = await request(api.server).put('/console/session').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, HEAD, GET, DELETE');
  });
});
