import request from 'supertest';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';

describe('the console API (/console/v1)', () => {
  const { api } = useTestApi();
  let admin: { Authorization: string };

  beforeAll(async () => {
    admin = bearer(api.config.CONSOLE_TOKEN!);
  });

  const post = (path: string, body: unknown) => request(api.server).post(`/console/v1${path}`).set(admin).send(body as object);
  const patch = (path: string, body: unknown) => request(api.server).patch(`/console/v1${path}`).set(admin).send(body as object);
  const get = (path: string) => request(api.server).get(`/console/v1${path}`).set(admin);
  const publicGet = (path: string, key: string) => request(api.server).get(`/api/v1${path}`).set(bearer(key));

  async function demo(): Promise<{ workspace_id: string; api_key: string }> {
    const res = await post('/workspaces', { name: 'Acme', demo: true });
    expect(res.status).toBe(201);
    return res.body;
  }

  it('refuses a missing or wrong admin token', async () => {
    for (const headers of [{}, bearer('not-the-token')]) {
      const res = await request(api.server).get('/console/v1/workspaces').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(
        envelope('unauthenticated', 'Send the console token as Authorization: Bearer <token>.', { reason: 'invalid_console_token' }),
      );
    }
  });

  describe('workspaces', () => {
    it('creates a plain workspace with its country’s calling code enabled', async () => {
      const res = await post('/workspaces', { name: 'Dubai shop', country: 'ae' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        workspace_id: expect.stringMatching(/^ws_[0-9a-f]{24}$/),
        name: 'Dubai shop',
        country: 'AE',
        timezone: 'UTC',
        suspended: false,
        calling_country_codes: ['971'],
        demo: false,
      });
      expect(res.body.api_key).toBeUndefined();
      expect((await get(`/workspaces/${res.body.workspace_id}`)).body).toEqual(res.body);
    });

    it('creates a demo workspace set up like the seeded one, with a working key', async () => {
      const ws = await demo();
      expect(ws.api_key).toMatch(/^ork_test_[A-Za-z0-9]{40}$/);
      expect((await publicGet('/ping', ws.api_key)).body.workspace_id).toBe(ws.workspace_id);
      const channels = (await publicGet('/channels', ws.api_key)).body;
      expect(channels.message_channels).toEqual(['whatsapp']);
      expect(channels.senders).toHaveLength(1);
      expect(channels.numbers).toEqual([{ number: expect.stringMatching(/^\+9180\d{8}$/), agent_id: expect.stringMatching(/^bot_/) }]);
      const templates = (await get(`/workspaces/${ws.workspace_id}/templates`)).body.items;
      expect(templates.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['order_update', 'appointment_reminder', 'payment_due']));
    });

    it('refuses an unknown country or time zone with the validation envelope', async () => {
      const res = await post('/workspaces', { name: 'x', country: 'ZZ', timezone: 'Mars/Olympus' });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('Request validation failed.');
      expect(res.body.error.details.errors.map((e: { loc: string[] }) => e.loc)).toEqual([
        ['body', 'country'],
        ['body', 'timezone'],
      ]);
    });

    it('changes only the settings named, and suspension takes effect on keys at once', async () => {
      const ws = await demo();
      const res = await patch(`/workspaces/${ws.workspace_id}`, { suspended: true, plan: { prepaid_credits: 0 }, installed_apps: [] });
      expect(res.status).toBe(200);
      expect(res.body.suspended).toBe(true);
      expect(res.body.plan).toMatchObject({ prepaid_credits: 0, conversations_included: 100_000, chat_channel: true });
      expect(res.body.installed_apps).toEqual([]);
      expect((await publicGet('/ping', ws.api_key)).body.error.details.reason).toBe('workspace_suspended');
      await patch(`/workspaces/${ws.workspace_id}`, { suspended: false });
      expect((await publicGet('/ping', ws.api_key)).status).toBe(200);
    });

    it('refuses unknown settings rather than ignoring them', async () => {
      const ws = await demo();
      const res = await patch(`/workspaces/${ws.workspace_id}`, { plan: { unlimited: true } });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors[0].loc).toEqual(['body', 'plan']);
    });

    it('answers an unknown workspace with 404', async () => {
      const res = await get('/workspaces/ws_missing');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelope('not_found', 'Workspace not found.'));
    });
  });

  describe('keys', () => {
    it('creates a key with fixed scopes, lists keys without secrets, rolls with grace, revokes for good', async () => {
      const ws = await demo();
      const created = await post(`/workspaces/${ws.workspace_id}/keys`, { name: 'Calls', scopes: ['calls:write'] });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ key_id: expect.stringMatching(/^key_/), scopes: ['calls:write'], environment: 'test', revoked_at: null, expires_at: null });
      const key: string = created.body.api_key;
      expect((await publicGet('/ping', key)).status).toBe(200);
      expect((await publicGet('/agents', key)).body.error.details).toEqual({ reason: 'missing_scope', required_scope: 'agents:read' });

      const listed = (await get(`/workspaces/${ws.workspace_id}/keys`)).body.items;
      expect(listed).toHaveLength(2);
      expect(JSON.stringify(listed)).not.toContain(key.slice(9));

      const rolled = await post(`/workspaces/${ws.workspace_id}/keys/${created.body.key_id}/roll`, {});
      expect(rolled.status).toBe(201);
      expect(rolled.body.scopes).toEqual(['calls:write']);
      expect(rolled.body.previous.expires_at).not.toBeNull();
      expect((await publicGet('/ping', key)).status).toBe(200);
      expect((await publicGet('/ping', rolled.body.api_key)).status).toBe(200);
      const again = await post(`/workspaces/${ws.workspace_id}/keys/${created.body.key_id}/roll`, {});
      expect(again.status).toBe(409);
      expect(again.body.error.details.reason).toBe('key_not_rollable');

      const revoked = await post(`/workspaces/${ws.workspace_id}/keys/${rolled.body.key_id}/revoke`, {});
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).not.toBeNull();
      expect((await publicGet('/ping', rolled.body.api_key)).body.error.details.reason).toBe('revoked_api_key');
    });

    it('refuses an unknown scope', async () => {
      const ws = await demo();
      const res = await post(`/workspaces/${ws.workspace_id}/keys`, { name: 'Admin', scopes: ['calls:admin'] });
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors[0].loc).toEqual(['body', 'scopes', 0]);
    });
  });

  describe('agents and numbers', () => {
    it('deploys and undeploys an agent on a number, and refuses another workspace’s agent or number', async () => {
      const ws = await demo();
      const other = await demo();
      const agent = await post(`/workspaces/${ws.workspace_id}/agents`, { name: 'Collections', max_call_minutes: 4 });
      expect(agent.status).toBe(201);
      const number = await post(`/workspaces/${ws.workspace_id}/numbers`, { number: '+912240001111', agent_id: agent.body.agent_id });
      expect(number.status).toBe(201);
      expect(number.body).toMatchObject({ number: '+912240001111', agent_id: agent.body.agent_id, active: true });

      const channels = (await publicGet('/channels', ws.api_key)).body;
      expect(channels.numbers).toContainEqual({ number: '+912240001111', agent_id: agent.body.agent_id });

      const undeployed = await patch(`/workspaces/${ws.workspace_id}/numbers/912240001111`, { agent_id: null });
      expect(undeployed.body.agent_id).toBeNull();

      const taken = await post(`/workspaces/${other.workspace_id}/numbers`, { number: '+912240001111' });
      expect(taken.status).toBe(409);
      const foreignAgent = await patch(`/workspaces/${other.workspace_id}/numbers/${channels.numbers[0].number.slice(1)}`, {
        agent_id: agent.body.agent_id,
      });
      expect(foreignAgent.status).toBe(404);
      const foreignNumber = await patch(`/workspaces/${other.workspace_id}/numbers/912240001111`, { active: false });
      expect(foreignNumber.status).toBe(404);
    });
  });

  describe('senders and templates', () => {
    it('keeps one default sender, and tracks template approval', async () => {
      const ws = await demo();
      const second = await post(`/workspaces/${ws.workspace_id}/senders`, { phone: '+919811112222', display_name: 'Support', is_default: true });
      expect(second.status).toBe(201);
      const senders = (await get(`/workspaces/${ws.workspace_id}/senders`)).body.items;
      expect(senders.filter((s: { is_default: boolean }) => s.is_default).map((s: { sender_id: string }) => s.sender_id)).toEqual([second.body.sender_id]);

      const template = await post(`/workspaces/${ws.workspace_id}/templates`, { name: 'refund_done', language: 'en', body: 'Refund {{1}} sent.', status: 'pending' });
      expect(template.status).toBe(201);
      expect(template.body).toMatchObject({ name: 'refund_done', status: 'pending', header: null, buttons: [] });
      const dup = await post(`/workspaces/${ws.workspace_id}/templates`, { name: 'refund_done', language: 'en', body: 'x' });
      expect(dup.status).toBe(409);
      const approved = await patch(`/workspaces/${ws.workspace_id}/templates/${template.body.template_id}`, { status: 'approved' });
      expect(approved.body.status).toBe('approved');
    });
  });

  describe('request bodies', () => {
    it('answers malformed JSON with the validation envelope', async () => {
      const res = await request(api.server).post('/console/v1/workspaces').set(admin).set('Content-Type', 'application/json').send('{"name": ');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [{ loc: ['body'], msg: expect.stringMatching(/^Body is not valid JSON: /), type: 'json_invalid' }],
        }),
      );
    });

    it('answers a non-JSON content type with 415', async () => {
      const res = await request(api.server).post('/console/v1/workspaces').set(admin).set('Content-Type', 'text/plain').send('name=x');
      expect(res.status).toBe(415);
      expect(res.body).toEqual(envelope('invalid_argument', 'Send the request body as application/json.'));
    });

    it('answers a body over 4 MiB with 413, without reading it all', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(4 * 1024 * 1024) });
      const res = await request(api.server).post('/console/v1/workspaces').set(admin).set('Content-Type', 'application/json').send(big);
      expect(res.status).toBe(413);
      expect(res.body).toEqual(envelope('invalid_argument', 'Request body is larger than 4194304 bytes.'));
    });
  });
});
