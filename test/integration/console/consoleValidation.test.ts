import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { fromRoot } from '../../../src/local/paths';
import { useTestApi } from '../../support/app';
import { testServers } from '../../support/env';
import { bearer, envelope } from '../../support/http';

/** The console validated like the public API (issue 11 point 3, issue 12 points 6 and 7). */
describe('console request validation and description', () => {
  const { api, ws } = useTestApi();
  let admin: { Authorization: string };
  let webhookId: string;

  beforeAll(async () => {
    admin = bearer(api.config.CONSOLE_TOKEN!);
    const created = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/webhooks`)
      .set(admin)
      .send({ url: 'http://127.0.0.1:9/hooks' });
    expect(created.status).toBe(201);
    webhookId = created.body.webhook_id;
  });

  const updateRoutes = () =>
    [
      ['PATCH', `/workspaces/${ws.workspaceId}`],
      ['PATCH', `/workspaces/${ws.workspaceId}/ticket-settings`],
      ['PUT', `/workspaces/${ws.workspaceId}/simulator/calls/%2B919811122233`],
      ['PUT', `/workspaces/${ws.workspaceId}/simulator/whatsapp/%2B919811122233`],
      ['PATCH', `/workspaces/${ws.workspaceId}/webhooks/${webhookId}`],
    ] as const;

  const send = (method: 'PATCH' | 'PUT', path: string) =>
    method === 'PATCH' ? request(api.server).patch(`/console/v1${path}`).set(admin) : request(api.server).put(`/console/v1${path}`).set(admin);

  it('refuses a null body on every update route: 400, not an empty change', async () => {
    for (const [method, path] of updateRoutes()) {
      const res = await send(method, path).set('Content-Type', 'application/json').send('null');
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [{ loc: ['body'], msg: 'Invalid input: expected object, received null', type: 'invalid_type' }],
        }),
      );
    }
  });

  it('refuses scripted answers keyed by anything but a capture field key: 400 at the key, nothing stored (fuzzing found a 500)', async () => {
    for (const key of ['a.b', '$set', 'Rating']) {
      const res = await send('PUT', `/workspaces/${ws.workspaceId}/simulator/calls/%2B919811122244`).send({ answers: { [key]: 'seven' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['body', 'answers', key], msg: 'Invalid key in record', type: 'invalid_key' }] }),
      );
    }
    const listed = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/simulator/calls`).set(admin);
    expect(listed.body.items.map((i: { destination: string }) => i.destination)).not.toContain('+919811122244');
  });

  it('refuses an empty body on every update route: 400', async () => {
    for (const [method, path] of updateRoutes()) {
      const res = await send(method, path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [{ loc: ['body'], msg: 'Invalid input: expected object, received undefined', type: 'invalid_type' }],
        }),
      );
    }
  });

  it('still takes {} as "change nothing" on an update route', async () => {
    const res = await send('PATCH', `/workspaces/${ws.workspaceId}`).send({});
    expect(res.status).toBe(200);
    expect(res.body.workspace_id).toBe(ws.workspaceId);
  });

  it('answers a key roll 201, as docs/console.md says (it creates a key)', async () => {
    const res = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/keys/${ws.keyId}/roll`).set(admin);
    expect(res.status).toBe(201);
    expect(res.body.api_key).toMatch(/^ork_test_/);
    expect(res.body.previous.key_id).toBe(ws.keyId);
  });

  describe('GET /console/v1/openapi.json', () => {
    it('is behind the console token', async () => {
      const res = await request(api.server).get('/console/v1/openapi.json');
      expect(res.status).toBe(401);
      expect(res.body).toEqual(envelope('unauthenticated', 'Send the console token as Authorization: Bearer <token>.', { reason: 'invalid_console_token' }));
    });

    it('describes every console route and is a valid OpenAPI 3.1 document', async () => {
      const res = await request(api.server).get('/console/v1/openapi.json').set(admin);
      expect(res.status).toBe(200);
      const doc = res.body;
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.components.securitySchemes).toEqual({
        consoleToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
        consoleSession: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'console_session' }),
      });
      expect(doc.paths['/console/v1/workspaces/{workspace_id}/keys/{key_id}/roll'].post.responses['201']).toBeDefined();
      const patchWorkspace = doc.paths['/console/v1/workspaces/{workspace_id}'].patch;
      expect(patchWorkspace.parameters).toEqual([{ name: 'workspace_id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 64 } }]);
      expect(patchWorkspace.requestBody.content['application/json'].schema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(doc.paths['/console/v1/workspaces/{workspace_id}/simulator/whatsapp/{recipient}'].put.parameters[1]).toEqual({
        name: 'recipient',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^\\+?\\d{6,19}$' },
      });
      // Every path of the router is in the document.
      expect(Object.keys(doc.paths).length).toBeGreaterThanOrEqual(30);

      const file = join(testServers.runDir(), 'console-openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const check = spawnSync(process.execPath, [fromRoot('scripts/validate-openapi.cjs'), file], { encoding: 'utf8' });
      expect(check.stderr).toBe('');
      expect(check.stdout).toMatch(/^valid OpenAPI 3\.1\.0: \d+ paths$/m);
      expect(check.status).toBe(0);
    });
  });
});
