import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { useTestApi, type TestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';

/** One request with any method Node's client allows (supertest does not know QUERY). */
function rawRequest(api: TestApi, method: string, path: string, headers: Record<string, string> = {}) {
  const { port } = api.server.address() as AddressInfo;
  return new Promise<{ status: number; headers: Record<string, unknown>; body: unknown }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Bytes written straight to the socket: what a client sends that Node's parser refuses. */
function rawExchange(api: TestApi, bytes: string): Promise<string> {
  const { port } = api.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(bytes);
  });
}

function parseResponse(raw: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head, body] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head!.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body!) };
}

describe('requests at the edges (issue 12: methods, header limits, path parameters)', () => {
  const { api, ws } = useTestApi();

  describe('methods no route has', () => {
    it.each(['TRACE', 'QUERY'])('%s on a known path is 405 with Allow, as DELETE is', async (method) => {
      for (const [path, allow, headers] of [
        ['/api/v1/agents', 'HEAD, GET', bearer(ws.key)],
        ['/api/v1/calls', 'POST', bearer(ws.key)],
        ['/healthz', 'HEAD, GET', {}],
        ['/console/v1/workspaces', 'POST, HEAD, GET', bearer(api.config.CONSOLE_TOKEN!)],
      ] as const) {
        const res = await rawRequest(api, method, path, headers);
        expect({ path, status: res.status, allow: res.headers.allow }).toEqual({ path, status: 405, allow });
        expect(res.body).toEqual(envelope('invalid_argument', 'This method is not allowed on this path; see the Allow header.'));
      }
    });

    it('a literal segment owns its path: /calls/inbound is POST only, not also GET /calls/{call_id}', async () => {
      const path = `/console/v1/workspaces/${ws.workspaceId}/calls/inbound`;
      const console = bearer(api.config.CONSOLE_TOKEN!);
      const options = await request(api.server).options(path).set(console);
      expect({ status: options.status, allow: options.headers.allow }).toEqual({ status: 200, allow: 'POST' });
      const get = await request(api.server).get(path).set(console);
      expect({ status: get.status, allow: get.headers.allow }).toEqual({ status: 405, allow: 'POST' });
      expect(get.body).toEqual(envelope('invalid_argument', 'This method is not allowed on this path; see the Allow header.'));
      // The parameter route still owns every other value of its segment.
      const call = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/calls/call_unknown`).set(console);
      expect(call.status).toBe(404);
      const other = await request(api.server).options(`/console/v1/workspaces/${ws.workspaceId}/calls/call_unknown`).set(console);
      expect(other.headers.allow).toBe('HEAD, GET');
    });

    it('TRACE on an unknown path is the 404 envelope', async () => {
      const res = await rawRequest(api, 'TRACE', '/api/v1/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(envelope('not_found', 'No route matches this path.'));
    });
  });

  describe('request line and headers over 16 KB', () => {
    const tooLarge = envelope('invalid_argument', 'The request line and headers are larger than 16384 bytes.');

    it.each([
      ['a 20 KB header', `GET /api/v1/ping HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`],
      ['a 70 KB header', `GET /api/v1/ping HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(70_000)}\r\n\r\n`],
      ['a 20 KB request line', `GET /api/v1/ping?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ])('%s is answered 431 in the envelope, not reset', async (_what, bytes) => {
      const res = parseResponse(await rawExchange(api, bytes));
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual(tooLarge);
      expect(res.headers['x-request-id']).toBe((res.body as { error: { request_id: string } }).error.request_id);
    });

    it('a malformed request line is answered 400 in the envelope', async () => {
      const res = parseResponse(await rawExchange(api, 'NOT HTTP AT ALL\r\n\r\n'));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(envelope('invalid_argument', 'The request could not be parsed as HTTP.'));
    });

    it('a request just under the limit is served', async () => {
      const res = await request(api.server).get('/api/v1/ping').set(bearer(ws.key)).set('X-Filler', 'a'.repeat(15_000));
      expect(res.status).toBe(200);
    });
  });

  describe('path parameters', () => {
    async function commandsDuring(run: () => Promise<void>): Promise<string[]> {
      const seen: string[] = [];
      const listener = (e: CommandStartedEvent) => {
        const collection = (e.command as Record<string, unknown>)[e.commandName];
        if (typeof collection === 'string') seen.push(`${e.commandName} ${collection}`);
      };
      api.mongo.on('commandStarted', listener);
      try {
        await run();
      } finally {
        api.mongo.off('commandStarted', listener);
      }
      return seen;
    }

    it('a call_id longer than 64 characters is 404 Call not found. without reading calls', async () => {
      const id = `call_${'a'.repeat(60)}`;
      const seen = await commandsDuring(async () => {
        for (const res of [
          await request(api.server).get(`/api/v1/calls/${id}`).set(bearer(ws.key)),
          await request(api.server).post(`/api/v1/calls/${id}/hangup`).set(bearer(ws.key)),
        ]) {
          expect(res.status).toBe(404);
          expect(res.body).toEqual(envelope('not_found', 'Call not found.'));
        }
      });
      expect(seen.filter((c) => c.endsWith(' calls'))).toEqual([]);
    });

    it('a conversation_id longer than 64 characters is 404 Conversation not found. without reading conversations', async () => {
      const seen = await commandsDuring(async () => {
        const res = await request(api.server).get(`/api/v1/conversations/${'c'.repeat(65)}/messages`).set(bearer(ws.key));
        expect(res.status).toBe(404);
        expect(res.body).toEqual(envelope('not_found', 'Conversation not found.'));
      });
      expect(seen.filter((c) => c.endsWith(' conversations'))).toEqual([]);
    });

    it('a workspace_id longer than 64 characters is 404 Workspace not found. without reading workspaces', async () => {
      const seen = await commandsDuring(async () => {
        const res = await request(api.server).get(`/console/v1/workspaces/${'w'.repeat(65)}/keys`).set(bearer(api.config.CONSOLE_TOKEN!));
        expect(res.status).toBe(404);
        expect(res.body).toEqual(envelope('not_found', 'Workspace not found.'));
      });
      expect(seen.filter((c) => c.endsWith(' workspaces'))).toEqual([]);
    });

    it('a console path parameter that is not an id answers the validation envelope at its place', async () => {
      const res = await request(api.server)
        .put(`/console/v1/workspaces/${ws.workspaceId}/simulator/whatsapp/not-a-phone`)
        .set(bearer(api.config.CONSOLE_TOKEN!))
        .send({});
      expect(res.status).toBe(400);
      expect(res.body).toEqual(
        envelope('invalid_argument', 'Request validation failed.', {
          errors: [{ loc: ['path', 'recipient'], msg: 'expected + and digits', type: 'invalid_format' }],
        }),
      );
    });
  });
});
