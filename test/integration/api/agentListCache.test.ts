import request from 'supertest';
import type { CommandStartedEvent } from 'mongodb';
import { collections } from '../../../src/db/collections';
import { REFRESH_AFTER, TENANT_READ_CACHE_MS, TenantReadCache } from '../../../src/db/tenantReadCache';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * GET /agents pages are cached for TENANT_READ_CACHE_MS: a change written by another API
 * process (here: straight to the database) shows within that bound; one made through this
 * process's console at once.
 */
describe('the agent list cache (src/db/tenantReadCache.ts)', () => {
  let monotonic = 0;
  const { api } = useTestApi({ listCache: new TenantReadCache<unknown>(TENANT_READ_CACHE_MS, () => monotonic) });

  const agents = (key: string, query: Record<string, string | number> = {}) => request(api.server).get('/api/v1/agents').query(query).set(bearer(key));
  const names = async (key: string) => ((await agents(key)).body.items as { name: string }[]).map((a) => a.name);
  const consoleCall = (method: 'post' | 'patch', path: string, body: object) =>
    request(api.server)[method](`/console/v1${path}`).set(bearer(api.config.CONSOLE_TOKEN!)).send(body);

  /** Finds on the agents and numbers collections while `body` runs. */
  const listReads = async (body: () => Promise<void>): Promise<string[]> => {
    const seen: string[] = [];
    const listener = (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && ['agents', 'phone_numbers'].includes(e.command.find)) seen.push(e.command.find);
    };
    api.mongo.on('commandStarted', listener);
    try {
      await body();
    } finally {
      api.mongo.off('commandStarted', listener);
    }
    return seen;
  };

  it('reads a page once per bound, parallel requests sharing the read, each page on its own', async () => {
    const ws = await createTestWorkspace(api.db);
    expect(await listReads(async () => void (await Promise.all([agents(ws.key), agents(ws.key), agents(ws.key)])))).toEqual(['agents', 'phone_numbers']);
    expect(await listReads(async () => void (await agents(ws.key)))).toEqual([]);
    expect(await listReads(async () => void (await agents(ws.key, { limit: 5 })))).toEqual(['agents', 'phone_numbers']);
    monotonic += TENANT_READ_CACHE_MS;
    expect(await listReads(async () => void (await agents(ws.key)))).toEqual(['agents', 'phone_numbers']);
  });

  it('shows an agent written by another process within the bound', async () => {
    const ws = await createTestWorkspace(api.db);
    expect(await names(ws.key)).toEqual(['Demo assistant']);
    await collections(api.db).agents.insertOne({ _id: 'bot_cache_other_process', tenant_id: ws.workspaceId, name: 'Later', max_call_minutes: 3, created_at: new Date() });
    monotonic += TENANT_READ_CACHE_MS - 1;
    expect(await names(ws.key)).toEqual(['Demo assistant']);
    monotonic += 1;
    expect(await names(ws.key)).toEqual(['Demo assistant', 'Later']);
  });

  it('past REFRESH_AFTER of the bound, answers from the cache and reads the page again in the background', async () => {
    const ws = await createTestWorkspace(api.db);
    expect(await names(ws.key)).toEqual(['Demo assistant']);
    await collections(api.db).agents.insertOne({ _id: 'bot_cache_refreshed', tenant_id: ws.workspaceId, name: 'Refreshed', max_call_minutes: 3, created_at: new Date() });
    monotonic += TENANT_READ_CACHE_MS * REFRESH_AFTER;
    expect(await names(ws.key)).toEqual(['Demo assistant']);
    // The clock stands still: only the background read can bring the new agent in.
    // A deadline with room for a loaded machine: the read runs in the background, nothing waits on it.
    const deadline = Date.now() + 30_000;
    while ((await names(ws.key)).length === 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await names(ws.key)).toEqual(['Demo assistant', 'Refreshed']);
    // The refreshed answer counts from its own read: past the first read's bound it is still served.
    await collections(api.db).agents.deleteOne({ _id: 'bot_cache_refreshed' });
    monotonic += TENANT_READ_CACHE_MS - 1;
    expect(await names(ws.key)).toEqual(['Demo assistant', 'Refreshed']);
  });

  it('shows agents and deployments changed through this process’s console at once', async () => {
    const ws = await createTestWorkspace(api.db);
    expect((await agents(ws.key)).status).toBe(200);
    const created = await consoleCall('post', `/workspaces/${ws.workspaceId}/agents`, { name: 'Collections', max_call_minutes: 4 });
    expect(created.status).toBe(201);
    expect(await names(ws.key)).toEqual(['Demo assistant', 'Collections']);

    const number = await consoleCall('post', `/workspaces/${ws.workspaceId}/numbers`, { number: '+912240007777', agent_id: created.body.agent_id });
    expect(number.status).toBe(201);
    const numbersOf = async () => ((await agents(ws.key)).body.items as { numbers: string[] }[]).map((a) => a.numbers);
    expect(await numbersOf()).toEqual([[ws.phoneNumber], ['+912240007777']]);

    expect((await consoleCall('patch', `/workspaces/${ws.workspaceId}/numbers/912240007777`, { agent_id: null })).status).toBe(200);
    expect(await numbersOf()).toEqual([[ws.phoneNumber], []]);
  });

  it('keeps no failed read: the next request reads again', async () => {
    const ws = await createTestWorkspace(api.db);
    let calls = 0;
    const cache = new TenantReadCache<string>(TENANT_READ_CACHE_MS, () => monotonic);
    await expect(cache.read(ws.workspaceId, 'page', () => (calls++, Promise.reject(new Error('down'))))).rejects.toThrow('down');
    expect(await cache.read(ws.workspaceId, 'page', () => (calls++, Promise.resolve('up')))).toBe('up');
    expect(await cache.read(ws.workspaceId, 'page', () => (calls++, Promise.resolve('again')))).toBe('up');
    expect(calls).toBe(2);
  });
});
