import request from 'supertest';
import type { CounterStore } from '../../../src/rateLimit/counterStore';
import { startTestApi, useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, suspend } from '../../support/workspaces';

const RATE_LIMITED = envelope('rate_limited', 'Rate limit of 120 requests per minute reached; retry at the next minute.', {
  reason: 'rate_limited',
  limit: 120,
  window_seconds: 60,
});

describe('the per-key rate limit (api-core §8)', () => {
  const { api } = useTestApi({ now: () => clock });
  let clock: Date;

  beforeAll(async () => {
    clock = new Date('2026-11-21T12:00:05.000Z');
  });

  const get = (path: string, key: string) => request(api.server).get(path).set(bearer(key));

  it('allows 120 requests a minute with the headers on each, then answers 429 without them', async () => {
    clock = new Date('2026-11-21T12:00:05.000Z');
    const ws = await createTestWorkspace(api.db);
    for (let i = 1; i <= 120; i++) {
      const res = await get('/api/v1/ping', ws.key);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('120');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(120 - i));
    }
    const refused = await get('/api/v1/ping', ws.key);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(RATE_LIMITED);
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
      expect(refused.headers[header]).toBeUndefined();
    }
  });

  it('admits exactly 120 of 150 parallel requests, each with its own remaining count', async () => {
    clock = new Date('2026-11-21T12:07:05.000Z');
    const ws = await createTestWorkspace(api.db);
    const answers = await Promise.all(Array.from({ length: 150 }, () => get('/api/v1/ping', ws.key)));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok).toHaveLength(120);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(30);
    const remaining = ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 120 }, (_, i) => i));
  });

  it('fixes the window to the clock minute: 240 requests across a boundary succeed', async () => {
    const ws = await createTestWorkspace(api.db);
    clock = new Date('2026-11-21T12:10:59.000Z');
    for (let i = 0; i < 120; i++) expect((await get('/api/v1/ping', ws.key)).status).toBe(200);
    expect((await get('/api/v1/ping', ws.key)).status).toBe(429);
    clock = new Date('2026-11-21T12:11:00.000Z');
    for (let i = 0; i < 120; i++) expect((await get('/api/v1/ping', ws.key)).status).toBe(200);
    expect((await get('/api/v1/ping', ws.key)).status).toBe(429);
  });

  it('gives separate keys separate budgets, even in one workspace', async () => {
    clock = new Date('2026-11-21T12:20:00.000Z');
    const ws = await createTestWorkspace(api.db);
    const second = await ws.addKey(['agents:read']);
    for (let i = 0; i < 120; i++) await get('/api/v1/ping', ws.key);
    expect((await get('/api/v1/ping', ws.key)).status).toBe(429);
    const res = await get('/api/v1/ping', second.key);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('119');
  });

  it('counts nothing for requests refused for the key or the workspace’s standing', async () => {
    clock = new Date('2026-11-21T12:30:00.000Z');
    const ws = await createTestWorkspace(api.db);
    await suspend(api.db, ws.workspaceId);
    for (let i = 0; i < 5; i++) expect((await get('/api/v1/ping', ws.key)).status).toBe(403);
    await suspend(api.db, ws.workspaceId, false);
    expect((await get('/api/v1/ping', ws.key)).headers['x-ratelimit-remaining']).toBe('119');
  });

  it('counts authenticated requests that then fail (scope 403, validation 400), and /ping and /channels', async () => {
    clock = new Date('2026-11-21T12:40:00.000Z');
    const ws = await createTestWorkspace(api.db);
    const narrow = await ws.addKey(['calls:write']);
    expect((await get('/api/v1/agents', narrow.key)).status).toBe(403);
    const afterScope = await get('/api/v1/channels', narrow.key);
    expect(afterScope.status).toBe(200);
    expect(afterScope.headers['x-ratelimit-remaining']).toBe('118');

    expect((await get('/api/v1/agents?limit=0', ws.key)).status).toBe(400);
    expect((await get('/api/v1/ping', ws.key)).headers['x-ratelimit-remaining']).toBe('118');
  });
});

describe('when the counter store is unreachable', () => {
  it('fails open: requests pass, with nothing counted', async () => {
    const failing: CounterStore = { increment: () => Promise.reject(new Error('connection refused')) };
    const api = await startTestApi({ rateLimitStore: failing });
    try {
      const ws = await createTestWorkspace(api.db);
      for (let i = 0; i < 130; i++) {
        const res = await request(api.server).get('/api/v1/ping').set(bearer(ws.key));
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBe('120');
        expect(res.headers['x-ratelimit-remaining']).toBe('120');
      }
    } finally {
      await api.close();
    }
  });
});
