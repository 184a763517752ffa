import request from 'supertest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../../../src/local/paths';
import { testServers } from '../../support/env';
import { collections } from '../../../src/db/collections';
import { newId } from '../../../src/domain/ids';
import { publicRoutes } from '../../../api/v1';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;

describe('discovery routes', () => {
  const { api, ws } = useTestApi();

  describe('GET /api/v1/channels', () => {
    it('lists whatsapp, voice, the connected senders with sender_id, and the numbers', async () => {
      const res = await request(api.server).get('/api/v1/channels').set(bearer(ws.key));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message_channels: ['whatsapp'],
        call_channels: ['voice'],
        senders: [{ sender_id: ws.senderId, channel: 'whatsapp', phone: expect.stringMatching(/^\+919\d{9}$/), display_name: 'Demo business', is_default: true }],
        numbers: [{ number: ws.phoneNumber, agent_id: ws.agentId }],
      });
    });

    it('leaves out whatsapp when the plan lacks the chat channel', async () => {
      const other = await createTestWorkspace(api.db);
      await collections(api.db).workspaces.updateOne({ _id: other.workspaceId }, { $set: { 'plan.chat_channel': false } });
      const res = await request(api.server).get('/api/v1/channels').set(bearer(other.key));
      expect(res.body.message_channels).toEqual([]);
      expect(res.body.senders).toEqual([]);
    });

    it('never shows another workspace’s senders', async () => {
      const other = await createTestWorkspace(api.db);
      const res = await request(api.server).get('/api/v1/channels').set(bearer(other.key));
      expect(res.body.senders.map((s: { sender_id: string }) => s.sender_id)).toEqual([other.senderId]);
    });
  });

  describe('GET /api/v1/agents', () => {
    let many: TestWorkspace;

    beforeAll(async () => {
      many = await createTestWorkspace(api.db);
      const base = Date.parse('2026-01-01T00:00:00Z');
      // 30 more agents, five sharing each creation time, so the cursor's tie-break matters.
      await collections(api.db).agents.insertMany(
        Array.from({ length: 30 }, (_, i) => ({
          _id: newId('bot'),
          tenant_id: many.workspaceId,
          name: `Agent ${i}`,
          max_call_minutes: 3,
          created_at: new Date(base + Math.floor(i / 5) * 1000),
        })),
      );
    });

    it('returns a page envelope with each agent and its numbers', async () => {
      const res = await request(api.server).get('/api/v1/agents').set(bearer(ws.key));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        items: [{ agent_id: ws.agentId, name: 'Demo assistant', max_call_minutes: 5, numbers: [ws.phoneNumber], created_at: expect.stringMatching(TIMESTAMP) }],
        next_cursor: null,
      });
    });

    it('walks every agent exactly once, next_cursor only on full pages', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const res: request.Response = await request(api.server)
          .get('/api/v1/agents')
          .query({ limit: 7, ...(cursor ? { cursor } : {}) })
          .set(bearer(many.key));
        expect(res.status).toBe(200);
        sizes.push(res.body.items.length);
        seen.push(...res.body.items.map((a: { agent_id: string }) => a.agent_id));
        cursor = res.body.next_cursor;
        if (res.body.items.length < 7) expect(cursor).toBeNull();
      } while (cursor);
      expect(sizes).toEqual([7, 7, 7, 7, 3]);
      expect(new Set(seen).size).toBe(31);
    });

    it('refuses a limit outside 1 to 100 with the validation envelope', async () => {
      for (const limit of ['0', '101', 'x']) {
        const res = await request(api.server).get('/api/v1/agents').query({ limit }).set(bearer(ws.key));
        expect(res.status).toBe(400);
        expect(res.body).toEqual(
          envelope('invalid_argument', 'Request validation failed.', {
            errors: [{ loc: ['query', 'limit'], msg: expect.any(String), type: expect.any(String) }],
          }),
        );
        expect(res.body.error.details.reason).toBeUndefined();
      }
    });

    it('refuses a damaged cursor, and a cursor from another workspace, with 400', async () => {
      const first = await request(api.server).get('/api/v1/agents').query({ limit: 2 }).set(bearer(many.key));
      const cursor: string = first.body.next_cursor;
      const damaged = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
      const invalid = envelope('invalid_argument', 'Request validation failed.', {
        errors: [{ loc: ['query', 'cursor'], msg: 'Cursor is not valid; pass back a next_cursor unmodified.', type: 'cursor_invalid' }],
      });
      for (const [key, c] of [
        [many.key, damaged],
        [many.key, 'garbage'],
        [ws.key, cursor],
      ] as const) {
        const res = await request(api.server).get('/api/v1/agents').query({ cursor: c }).set(bearer(key));
        expect(res.status).toBe(400);
        expect(res.body).toEqual(invalid);
      }
    });
  });

  describe('GET /api/v1/openapi.json', () => {
    it('needs no key, is not rate limited, and is a valid OpenAPI 3.1 document', async () => {
      let res!: request.Response;
      for (let i = 0; i < 125; i++) {
        res = await request(api.server).get('/api/v1/openapi.json');
        expect(res.status).toBe(200);
      }
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      expect(res.body.openapi).toBe('3.1.0');
      // swagger-parser is ES modules only, which jest's runtime cannot load: run it in Node.
      const file = join(testServers.runDir(), 'openapi.json');
      writeFileSync(file, JSON.stringify(res.body));
      const check = spawnSync(process.execPath, [fromRoot('scripts/validate-openapi.cjs'), file], { encoding: 'utf8' });
      expect(check.stderr).toBe('');
      expect(check.stdout).toMatch(/^valid OpenAPI 3\.1\.0: \d+ paths$/m);
      expect(check.status).toBe(0);
    });

    it('lists every public route, with both auth headers and every error response on keyed ones', async () => {
      const doc = (await request(api.server).get('/api/v1/openapi.json')).body;
      const routes = publicRoutes({ db: api.db } as never);
      for (const route of routes) {
        const op = doc.paths[route.path]?.[route.method];
        expect({ path: route.path, present: Boolean(op) }).toEqual({ path: route.path, present: true });
        if (!route.auth) continue;
        const headers = op.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name);
        expect(headers).toEqual(expect.arrayContaining(['Authorization', 'X-Api-Key']));
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '429', '500']));
        expect(op.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
      }
      expect(doc.paths['/api/v1/agents'].get['x-required-scope']).toBe('agents:read');
      expect(doc.paths['/api/v1/agents'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
        expect.arrayContaining(['limit', 'cursor']),
      );
    });
  });

  describe('conventions', () => {
    it('sends no cross-origin headers, even when asked', async () => {
      const res = await request(api.server).get('/api/v1/ping').set(bearer(ws.key)).set('Origin', 'https://example.com');
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      const preflight = await request(api.server).options('/api/v1/ping').set('Origin', 'https://example.com');
      expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    });

    it('answers an unknown /api/v1 path with the 404 envelope', async () => {
      const res = await request(api.server).get('/api/v1/messages/list').set(bearer(ws.key));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelope('not_found', 'No route matches this path.'));
    });

    it('answers a wrong method with 405 invalid_argument keeping Allow', async () => {
      const res = await request(api.server).delete('/api/v1/agents').set(bearer(ws.key));
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('HEAD, GET');
      expect(res.body).toEqual(envelope('invalid_argument', 'This method is not allowed on this path; see the Allow header.'));
    });
  });
});
