import request from 'supertest';
import type { CommandStartedEvent } from 'mongodb';
import { hashApiKey } from '../../../src/auth/apiKeys';
import { CREDENTIAL_CACHE_MS, CredentialCache } from '../../../src/auth/credentialCache';
import { KeyStore } from '../../../src/auth/keyStore';
import { collections } from '../../../src/db/collections';
import { REFRESH_AFTER } from '../../../src/db/tenantReadCache';
import { startTestApi, useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * Keys and workspaces are cached for CREDENTIAL_CACHE_MS: a change written by another API
 * process (here: straight to the database) is seen within that bound; one made through this
 * process (KeyStore, the console) at once.
 */
describe('the credential cache (src/auth/credentialCache.ts)', () => {
  const { api } = useTestApi({ credentialCache: new CredentialCache(CREDENTIAL_CACHE_MS, () => monotonic) });
  let monotonic = 0;

  const ping = (key: string) => request(api.server).get('/api/v1/ping').set(bearer(key));
  const reason = async (key: string) => (await ping(key)).body.error?.details?.reason ?? 'ok';

  /** Finds on the two credential collections while `body` runs. */
  const lookups = async (body: () => Promise<void>): Promise<string[]> => {
    const seen: string[] = [];
    const listener = (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && ['api_keys', 'workspaces'].includes(e.command.find)) seen.push(e.command.find);
    };
    api.mongo.on('commandStarted', listener);
    try {
      await body();
    } finally {
      api.mongo.off('commandStarted', listener);
    }
    return seen;
  };

  it('reads a key and its workspace once per bound, not once per request', async () => {
    const ws = await createTestWorkspace(api.db);
    expect(await lookups(async () => void (await ping(ws.key)))).toEqual(['api_keys', 'workspaces']);
    expect(await lookups(async () => void (await Promise.all([ping(ws.key), ping(ws.key), ping(ws.key)])))).toEqual([]);
    monotonic += CREDENTIAL_CACHE_MS;
    expect(await lookups(async () => void (await ping(ws.key)))).toEqual(['api_keys', 'workspaces']);
  });

  it('refuses a key revoked by another process within the bound', async () => {
    const ws = await createTestWorkspace(api.db);
    expect((await ping(ws.key)).status).toBe(200);
    await collections(api.db).apiKeys.updateOne({ _id: hashApiKey(ws.key) }, { $set: { revoked_at: new Date() } });
    monotonic += CREDENTIAL_CACHE_MS - 1;
    expect((await ping(ws.key)).status).toBe(200);
    monotonic += 1;
    expect(await reason(ws.key)).toBe('revoked_api_key');
  });

  it('past REFRESH_AFTER of the bound, serves the cached key and reads it again in the background', async () => {
    const ws = await createTestWorkspace(api.db);
    expect((await ping(ws.key)).status).toBe(200);
    await collections(api.db).apiKeys.updateOne({ _id: hashApiKey(ws.key) }, { $set: { revoked_at: new Date() } });
    monotonic += CREDENTIAL_CACHE_MS * REFRESH_AFTER;
    expect((await ping(ws.key)).status).toBe(200);
    // The clock stands still: only the background read can bring the revocation in.
    // A deadline with room for a loaded machine: the read runs in the background, nothing waits on it.
    const deadline = Date.now() + 30_000;
    while ((await reason(ws.key)) === 'ok' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await reason(ws.key)).toBe('revoked_api_key');
  });

  it('refuses a workspace suspended by another process within the bound, and serves it again at once when restored', async () => {
    const ws = await createTestWorkspace(api.db);
    expect((await ping(ws.key)).status).toBe(200);
    const { workspaces } = collections(api.db);
    await workspaces.updateOne({ _id: ws.workspaceId }, { $set: { suspended: true } });
    monotonic += CREDENTIAL_CACHE_MS;
    expect(await reason(ws.key)).toBe('workspace_suspended');
    await workspaces.updateOne({ _id: ws.workspaceId }, { $set: { suspended: false } });
    expect((await ping(ws.key)).status).toBe(200);
  });

  it('applies a revocation or suspension made through this process at once', async () => {
    const ws = await createTestWorkspace(api.db);
    const other = await ws.addKey(['agents:read']);
    expect((await ping(other.key)).status).toBe(200);
    await new KeyStore(api.db).revoke(ws.workspaceId, other.keyId);
    expect(await reason(other.key)).toBe('revoked_api_key');

    expect((await ping(ws.key)).status).toBe(200);
    const patched = await request(api.server)
      .patch(`/console/v1/workspaces/${ws.workspaceId}`)
      .set(bearer(api.config.CONSOLE_TOKEN!))
      .send({ suspended: true });
    expect(patched.status).toBe(200);
    expect(await reason(ws.key)).toBe('workspace_suspended');
  });

  it('checks a cached rolled key’s grace period against the clock on every request', async () => {
    let clock = new Date();
    const timed = await startTestApi({ now: () => clock, credentialCache: new CredentialCache(CREDENTIAL_CACHE_MS, () => monotonic) });
    try {
      const ws = await createTestWorkspace(timed.db);
      expect((await request(timed.server).get('/api/v1/ping').set(bearer(ws.key))).status).toBe(200);
      await new KeyStore(timed.db, () => clock).roll(ws.workspaceId, ws.keyId);
      expect((await request(timed.server).get('/api/v1/ping').set(bearer(ws.key))).status).toBe(200);
      clock = new Date(clock.getTime() + 24 * 3_600_000);
      const res = await request(timed.server).get('/api/v1/ping').set(bearer(ws.key));
      expect(res.body.error.details.reason).toBe('expired_api_key');
    } finally {
      await timed.close();
    }
  });
});

describe('the credential cache on the real clock', () => {
  it(`refuses a key revoked by another process within ${CREDENTIAL_CACHE_MS} ms`, async () => {
    const api = await startTestApi();
    try {
      const ws = await createTestWorkspace(api.db);
      // The cache's clock (performance.now) at the answer: the key's read began before it.
      expect((await request(api.server).get('/api/v1/ping').set(bearer(ws.key))).status).toBe(200);
      const cachedBy = performance.now();
      await collections(api.db).apiKeys.updateOne({ _id: hashApiKey(ws.key) }, { $set: { revoked_at: new Date() } });
      // Each request's send time, not its answer's: a loaded machine may take long to answer,
      // but a 200 means the cache checked its bound after the send and found it unexpired.
      let sentAt = performance.now();
      let lastServedSentAt = -Infinity;
      let answer = await request(api.server).get('/api/v1/ping').set(bearer(ws.key));
      while (answer.status === 200) {
        lastServedSentAt = sentAt;
        await new Promise((resolve) => setTimeout(resolve, 100));
        sentAt = performance.now();
        answer = await request(api.server).get('/api/v1/ping').set(bearer(ws.key));
      }
      expect(answer.body.error.details.reason).toBe('revoked_api_key');
      expect(lastServedSentAt).toBeLessThan(cachedBy + CREDENTIAL_CACHE_MS);
    } finally {
      await api.close();
    }
  });
});
