import request from 'supertest';
import type { CommandStartedEvent } from 'mongodb';
import { KeyStore } from '../../../src/auth/keyStore';
import { generateApiKey } from '../../../src/auth/apiKeys';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, suspend } from '../../support/workspaces';

const MESSAGES: Record<string, string> = {
  missing_api_key: 'Send an API key as Authorization: Bearer <key> or X-Api-Key.',
  malformed_api_key: 'That API key is not in the expected format.',
  invalid_api_key: 'That API key is not valid.',
  revoked_api_key: 'That API key has been revoked.',
  expired_api_key: 'That API key was rolled and its grace period has ended.',
  wrong_environment: 'That is a live key; this deployment accepts test keys.',
};
const unauthenticated = (reason: string) => envelope('unauthenticated', MESSAGES[reason]!, { reason });

describe('API keys (api-core §5)', () => {
  const { api, ws } = useTestApi({ now: () => clock });
  let clock: Date;

  beforeAll(async () => {
    clock = new Date();
  });

  beforeEach(() => {
    clock = new Date();
  });

  const ping = () => request(api.server).get('/api/v1/ping');

  it('accepts the key as Authorization: Bearer', async () => {
    const res = await ping().set(bearer(ws.key));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, workspace_id: ws.workspaceId, environment: 'test', scopes: expect.arrayContaining(['calls:write']) });
  });

  it('accepts the key as X-Api-Key', async () => {
    expect((await ping().set('X-Api-Key', ws.key)).status).toBe(200);
  });

  it('refuses a request with no key: 401 missing_api_key', async () => {
    const res = await ping();
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthenticated('missing_api_key'));
  });

  it('refuses a malformed key without looking it up: 401 malformed_api_key', async () => {
    const finds: string[] = [];
    const listener = (e: CommandStartedEvent) => finds.push(e.commandName);
    api.mongo.on('commandStarted', listener);
    try {
      for (const bad of ['nope', 'ork_prod_' + 'a'.repeat(40), ws.key.slice(0, -1), `${ws.key}x`, 'ork_test_' + 'a'.repeat(39) + '!']) {
        const res = await ping().set(bearer(bad));
        expect(res.status).toBe(401);
        expect(res.body).toEqual(unauthenticated('malformed_api_key'));
      }
    } finally {
      api.mongo.off('commandStarted', listener);
    }
    expect(finds).toEqual([]);
  });

  it('refuses a well-formed unknown key: 401 invalid_api_key', async () => {
    const res = await ping().set(bearer(generateApiKey('test').plaintext));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthenticated('invalid_api_key'));
  });

  it('refuses a revoked key for good: 401 revoked_api_key', async () => {
    const extra = await ws.addKey(['agents:read']);
    expect((await ping().set(bearer(extra.key))).status).toBe(200);
    await new KeyStore(api.db).revoke(ws.workspaceId, extra.keyId);
    const res = await ping().set(bearer(extra.key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthenticated('revoked_api_key'));
  });

  it('keeps a rolled key working for 24 hours, then refuses it: 401 expired_api_key', async () => {
    const extra = await ws.addKey(['agents:read']);
    const rolled = await new KeyStore(api.db, () => clock).roll(ws.workspaceId, extra.keyId);
    expect(rolled).not.toBeNull();
    expect((await ping().set(bearer(extra.key))).status).toBe(200);
    expect((await ping().set(bearer(rolled!.plaintext))).status).toBe(200);
    expect(rolled!.key.scopes).toEqual(['agents:read']);

    clock = new Date(clock.getTime() + 24 * 3_600_000 - 1_000);
    expect((await ping().set(bearer(extra.key))).status).toBe(200);
    clock = new Date(clock.getTime() + 1_000);
    const res = await ping().set(bearer(extra.key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthenticated('expired_api_key'));
    expect((await ping().set(bearer(rolled!.plaintext))).status).toBe(200);
  });

  it('refuses a live key on a test deployment: 401 wrong_environment', async () => {
    const live = await ws.addKey(['agents:read'], 'live');
    const res = await ping().set(bearer(live.key));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(unauthenticated('wrong_environment'));
  });

  it('refuses every keyed route of a suspended workspace, /ping included: 403 workspace_suspended', async () => {
    const other = await createTestWorkspace(api.db);
    await suspend(api.db, other.workspaceId);
    for (const path of ['/api/v1/ping', '/api/v1/channels', '/api/v1/agents']) {
      const res = await request(api.server).get(path).set(bearer(other.key));
      expect(res.status).toBe(403);
      expect(res.body).toEqual(
        envelope('permission_denied', 'This workspace is suspended for billing; keys work again once billing is restored.', {
          reason: 'workspace_suspended',
        }),
      );
    }
    await suspend(api.db, other.workspaceId, false);
    expect((await ping().set(bearer(other.key))).status).toBe(200);
  });

  it('refuses a key without the route’s scope: 403 missing_scope naming it', async () => {
    const narrow = await ws.addKey(['calls:write']);
    const res = await request(api.server).get('/api/v1/agents').set(bearer(narrow.key));
    expect(res.status).toBe(403);
    expect(res.body).toEqual(
      envelope('permission_denied', 'This key lacks the agents:read scope this route requires.', {
        reason: 'missing_scope',
        required_scope: 'agents:read',
      }),
    );
  });

  describe('check order', () => {
    it('revoked comes before the environment and standing', async () => {
      const other = await createTestWorkspace(api.db);
      const live = await other.addKey([], 'live');
      await new KeyStore(api.db).revoke(other.workspaceId, live.keyId);
      await suspend(api.db, other.workspaceId);
      expect((await ping().set(bearer(live.key))).body.error.details.reason).toBe('revoked_api_key');
    });

    it('the environment comes before standing', async () => {
      const other = await createTestWorkspace(api.db);
      const live = await other.addKey([], 'live');
      await suspend(api.db, other.workspaceId);
      expect((await ping().set(bearer(live.key))).body.error.details.reason).toBe('wrong_environment');
    });

    it('standing comes before the scope', async () => {
      const other = await createTestWorkspace(api.db, { scopes: ['calls:write'] });
      await suspend(api.db, other.workspaceId);
      expect((await request(api.server).get('/api/v1/agents').set(bearer(other.key))).body.error.details.reason).toBe(
        'workspace_suspended',
      );
    });

    it('the rate limit comes before the scope', async () => {
      const other = await createTestWorkspace(api.db, { scopes: ['calls:write'] });
      for (let i = 0; i < 120; i++) expect((await ping().set(bearer(other.key))).status).toBe(200);
      const res = await request(api.server).get('/api/v1/agents').set(bearer(other.key));
      expect(res.status).toBe(429);
      expect(res.body.error.details.reason).toBe('rate_limited');
    });

    it('a malformed Bearer key is refused even when a good X-Api-Key is also sent', async () => {
      const res = await ping().set(bearer('nope')).set('X-Api-Key', ws.key);
      expect(res.body.error.details.reason).toBe('malformed_api_key');
    });
  });
});
