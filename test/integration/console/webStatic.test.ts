import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';

/** The built web console served at /console/: types, caching, the single-page fallback, and what it must not serve. */
describe('the web console files (/console/)', () => {
  const root = mkdtempSync(join(tmpdir(), 'console-web-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(root, 'assets', 'index-abc123.css'), 'body{}');
  writeFileSync(join(tmpdir(), 'console-web-secret.txt'), 'outside');
  const { api } = useTestApi({ consoleWebDir: root });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serves index.html at /console/ with its type, revalidation and a strict content security policy', async () => {
    const res = await request(api.server).get('/console/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(res.text).toBe('<!doctype html><title>console</title>');
  });

  it('redirects /console to /console/', async () => {
    const res = await request(api.server).get('/console?x=1');
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe('/console/?x=1');
  });

  it('serves hashed assets with their types, cached for a year as immutable, and answers 304 to a revalidation', async () => {
    const js = await request(api.server).get('/console/assets/index-abc123.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.text).toBe('console.log(1)');
    const css = await request(api.server).get('/console/assets/index-abc123.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const again = await request(api.server).get('/console/').set('If-Modified-Since', js.headers['last-modified']!);
    expect(again.status).toBe(304);
    const head = await request(api.server).head('/console/assets/index-abc123.js');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('14');
  });

  it('answers index.html for any page of the app (the fallback), but 404 for a missing file', async () => {
    for (const page of ['/console/w/ws_1/campaigns', '/console/w/ws_1/calls/call_123', '/console/workspaces']) {
      const res = await request(api.server).get(page);
      expect({ page, status: res.status, type: res.headers['content-type'], cache: res.headers['cache-control'] }).toEqual({
        page,
        status: 200,
        type: 'text/html; charset=utf-8',
        cache: 'no-cache',
      });
    }
    const missing = await request(api.server).get('/console/assets/gone-123.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(envelope('not_found', 'No route matches this path.'));
  });

  it('never serves a file outside its folder', async () => {
    for (const path of ['/console/../console-web-secret.txt', '/console/%2e%2e/console-web-secret.txt', '/console/assets/%2e%2e%2f%2e%2e%2fconsole-web-secret.txt', '/console/%00']) {
      const res = await request(api.server).get(path);
      expect({ path, status: res.status, text: res.text.includes('outside') }).toEqual({ path, status: 404, text: false });
    }
  });

  it('leaves the console API and the log-in to their routers', async () => {
    const apiRes = await request(api.server).get('/console/v1/workspaces').set(bearer(api.config.CONSOLE_TOKEN!));
    expect(apiRes.status).toBe(200);
    expect(apiRes.headers['content-type']).toBe('application/json; charset=utf-8');
    const session = await request(api.server).get('/console/session');
    expect(session.status).toBe(401);
    const unknown = await request(api.server).get('/console/v1/nothing-here').set(bearer(api.config.CONSOLE_TOKEN!));
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('is read-only: other methods are 405 with Allow', async () => {
    const res = await request(api.server).post('/console/w/x/campaigns').send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body).toEqual(envelope('invalid_argument', 'This method is not allowed on this path; see the Allow header.'));
  });
});

describe('the web console, not built', () => {
  const empty = mkdtempSync(join(tmpdir(), 'console-web-empty-'));
  const { api } = useTestApi({ consoleWebDir: empty });
  afterAll(() => rmSync(empty, { recursive: true, force: true }));

  it('says how to build it', async () => {
    const res = await request(api.server).get('/console/');
    expect(res.status).toBe(404);
    expect(res.body).toEqual(envelope('not_found', 'The web console is not built; run `npm run build:web`.', { reason: 'console_web_not_built' }));
  });
});
