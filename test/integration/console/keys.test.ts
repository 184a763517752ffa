import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { KEY_USE_WRITE_INTERVAL_MS } from '../../../src/auth/keyUses';
import { useTestApi } from '../../support/app';
import { eventually } from '../../support/messaging';
import { bearer, envelope } from '../../support/http';

/**
 * Keys as issue 35 (item 8) asks: a name, no key without a scope, no key of an environment the
 * deployment does not serve, and when each key was last used (written at most once a minute per
 * key and process), through the console's HTTP API.
 */
describe('console API keys: names, the rules of issuing, last use', () => {
  let clock = Date.parse('2026-11-27T10:00:00Z');
  const { api, ws } = useTestApi({ now: () => new Date(clock) });
  const admin = () => bearer(api.config.CONSOLE_TOKEN!);
  const create = (body: unknown) => request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/keys`).set(admin()).send(body as object);
  const list = async () => (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/keys`).set(admin())).body.items as Record<string, unknown>[];

  it('names a key, and shows the name in the list; a roll keeps it', async () => {
    const created = await create({ name: '  Billing system  ', scopes: ['calls:write'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Billing system', scopes: ['calls:write'], environment: 'test', last_used_at: null });
    const rolled = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/keys/${created.body.key_id}/roll`).set(admin()).send({});
    expect(rolled.status).toBe(201);
    expect(rolled.body.name).toBe('Billing system');
    expect((await list()).filter((k) => k.name === 'Billing system')).toHaveLength(2);
  });

  it('refuses a key without a name, or with a blank one or control characters, at body.name', async () => {
    for (const body of [{ scopes: ['calls:write'] }, { name: '   ', scopes: ['calls:write'] }, { name: 'a\u0007b', scopes: ['calls:write'] }, { name: 'x'.repeat(101), scopes: ['calls:write'] }]) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_argument');
      expect(res.body.error.message).toBe('Request validation failed.');
      expect(res.body.error.details.errors.map((e: { loc: unknown }) => e.loc)).toEqual([['body', 'name']]);
    }
  });

  it('refuses a key with no scopes, saying why', async () => {
    const before = (await list()).length;
    const res = await create({ name: 'Nothing', scopes: [] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      envelope('invalid_argument', 'A key needs at least one scope: with none it could call nothing. Choose what it may do, e.g. calls:write.', {
        reason: 'key_scopes_required',
        loc: ['body', 'scopes'],
      }),
    );
    expect(await list()).toHaveLength(before);
  });

  it('refuses a live key on a test deployment, saying why; a test key is made', async () => {
    expect(api.config.API_ENVIRONMENT).toBe('test');
    const before = (await list()).length;
    const res = await create({ name: 'Production', scopes: ['calls:write'], environment: 'live' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      envelope(
        'invalid_argument',
        'This deployment runs in test mode (API_ENVIRONMENT=test) and accepts only test keys, so a live key made here would be refused on every request. Create live keys on a live deployment.',
        { reason: 'key_environment_not_served', loc: ['body', 'environment'], environment: 'live', deployment_environment: 'test' },
      ),
    );
    expect(await list()).toHaveLength(before);
    expect((await create({ name: 'Staging', scopes: ['calls:write'], environment: 'test' })).status).toBe(201);
  });

  it('shows when a key was last used, written at most once a minute per key', async () => {
    const made = await create({ name: 'Reporting', scopes: ['agents:read'] });
    const key: string = made.body.api_key;
    const lastUsed = async () => (await list()).find((k) => k.key_id === made.body.key_id)!.last_used_at;
    const writes: CommandStartedEvent[] = [];
    const watch = (e: CommandStartedEvent) => {
      if (e.commandName === 'update' && (e.command as { update?: string }).update === 'api_key_uses') writes.push(e);
    };
    api.mongo.on('commandStarted', watch);
    try {
      const use = async () => expect((await request(api.server).get('/api/v1/agents').set(bearer(key))).status).toBe(200);
      const first = clock;
      await use();
      await eventually(async () => (await lastUsed()) === '2026-11-27T10:00:00.000000+00:00', 'the first use to be recorded', 30_000);
      // Used again within the minute: nothing written.
      clock = first + KEY_USE_WRITE_INTERVAL_MS - 1;
      await use();
      await use();
      // A minute after the last write: written again.
      clock = first + KEY_USE_WRITE_INTERVAL_MS;
      await use();
      await eventually(async () => (await lastUsed()) === '2026-11-27T10:01:00.000000+00:00', 'the use a minute later to be recorded', 30_000);
      expect(writes.filter((e) => JSON.stringify(e.command).includes(made.body.key_id))).toHaveLength(2);
    } finally {
      api.mongo.off('commandStarted', watch);
    }
  });
});
