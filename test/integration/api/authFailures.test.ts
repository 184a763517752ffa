import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { generateApiKey } from '../../../src/auth/apiKeys';
import { useTestApi, type TestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';

const LIMIT = 5;

/** One request from a chosen loopback address: each address is a source of its own. */
function from(api: TestApi, source: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const { port } = api.server.address() as AddressInfo;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: source,
        agent: false,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * `n` GETs of `path` from `source`, written in one synchronous loop once all `n` connections
 * are open: they reach the API (in this process) in one turn of its event loop, before any
 * timer of it can fire, however slowly a loaded machine opens the connections.
 */
async function together(api: TestApi, source: string, n: number, path: string, headers: () => Record<string, string>) {
  const { port } = api.server.address() as AddressInfo;
  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress: source });
      socket.once('connect', () => resolve(socket));
      socket.once('error', reject);
    });
  const sockets = await Promise.all(Array.from({ length: n }, open));
  const answers = sockets.map(
    (socket) =>
      new Promise<string>((resolve, reject) => {
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.once('end', () => resolve(text));
        socket.once('error', reject);
      }),
  );
  for (const socket of sockets) {
    const lines = Object.entries(headers()).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${lines.join('')}\r\n`);
  }
  return (await Promise.all(answers)).map((raw) => {
    const [head, body] = [raw.slice(0, raw.indexOf('\r\n\r\n')), raw.slice(raw.indexOf('\r\n\r\n') + 4)];
    const [statusLine, ...headerLines] = head.split('\r\n');
    const parsed = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    return { status: Number(statusLine!.split(' ')[1]), headers: parsed as Record<string, string | undefined>, body: body ? JSON.parse(body) : undefined };
  });
}

/** The 429 a limited address gets: the spec's envelope, `rate_limited`, with Retry-After. */
function expectLimited(res: { status: number; headers: Record<string, unknown>; body: any }) {
  expect(res.status).toBe(429);
  const seconds = res.body.error.details.retry_after_seconds;
  expect(res.body).toEqual(
    envelope('rate_limited', `Too many failed authentication attempts from this address; retry in ${seconds} s.`, {
      reason: 'auth_failures',
      limit: LIMIT,
      window_seconds: 60,
      retry_after_seconds: seconds,
    }),
  );
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(res.headers['retry-after']).toBe(String(seconds));
}

describe('failed authentication attempts per address (issue 24)', () => {
  const { api, ws } = useTestApi({ env: { AUTH_FAILURE_LIMIT: String(LIMIT), AUTH_FAILURE_WINDOW_SECONDS: '60' } });

  it('API keys: a guesser gets 429 with Retry-After past the budget; the real key still works from its address and others', async () => {
    const guesser = '127.0.0.2';
    expect((await from(api, guesser, 'GET', '/api/v1/ping', bearer(ws.key))).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) {
      const res = await from(api, guesser, 'GET', '/api/v1/ping', bearer(generateApiKey('test').plaintext));
      expect(res.body.error.details.reason).toBe('invalid_api_key');
    }
    expectLimited(await from(api, guesser, 'GET', '/api/v1/ping', bearer(generateApiKey('test').plaintext)));
    // Malformed guesses too; they are not even looked at.
    expectLimited(await from(api, guesser, 'GET', '/api/v1/ping', bearer('nope')));
    // The key that worked from this address still does.
    expect((await from(api, guesser, 'GET', '/api/v1/ping', bearer(ws.key))).status).toBe(200);
    expect((await from(api, guesser, 'GET', '/api/v1/ping', { 'X-Api-Key': ws.key })).status).toBe(200);
    // Issue 32: a key new to the limited address (just issued, in no cache) is checked and works there;
    // the guesser is still refused.
    const other = await ws.addKey([]);
    expect((await from(api, guesser, 'GET', '/api/v1/ping', bearer(other.key))).status).toBe(200);
    expectLimited(await from(api, guesser, 'GET', '/api/v1/ping', bearer(generateApiKey('test').plaintext)));
    // Another address is untouched: its guesses are answered 401, real keys 200.
    const neighbour = '127.0.0.3';
    expect((await from(api, neighbour, 'GET', '/api/v1/ping', bearer(generateApiKey('test').plaintext))).body.error.details.reason).toBe('invalid_api_key');
    expect((await from(api, neighbour, 'GET', '/api/v1/ping', bearer(other.key))).status).toBe(200);
    expect((await from(api, neighbour, 'GET', '/api/v1/ping', bearer(ws.key))).status).toBe(200);
  });

  it('the console token and the console log-in: the same budget, the real token still works', async () => {
    const guesser = '127.0.0.4';
    const token = api.config.CONSOLE_TOKEN!;
    expect((await from(api, guesser, 'GET', '/console/v1/workspaces', bearer(token))).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) {
      const res = await from(api, guesser, 'GET', '/console/v1/workspaces', bearer(`wrong-token-${i}-0123456789`));
      expect(res.status).toBe(401);
      expect(res.body.error.details.reason).toBe('invalid_console_token');
    }
    expectLimited(await from(api, guesser, 'GET', '/console/v1/workspaces', bearer('wrong-token-x-0123456789')));
    expectLimited(await from(api, guesser, 'POST', '/console/session', {}, { token: 'wrong-token-y-0123456789' }));
    expect((await from(api, guesser, 'GET', '/console/v1/workspaces', bearer(token))).status).toBe(200);
    expect((await from(api, guesser, 'POST', '/console/session', {}, { token })).status).toBe(201);
    const neighbour = '127.0.0.5';
    expect((await from(api, neighbour, 'POST', '/console/session', {}, { token: 'wrong-token-z-0123456789' })).status).toBe(401);
    expect((await from(api, neighbour, 'GET', '/console/v1/workspaces', bearer(token))).status).toBe(200);
  });

  it('a limited address: a freshly issued key works in the middle of a burst of guesses, which cost the database ten reads a second, at most 20 waiting', async () => {
    const guesser = '127.0.0.7';
    for (let i = 0; i < LIMIT; i++) expect((await from(api, guesser, 'GET', '/api/v1/ping', bearer(generateApiKey('test').plaintext))).status).toBe(401);
    const reads: number[] = [];
    const onCommand = (event: { commandName: string; command: Record<string, unknown> }) => {
      if (event.commandName === 'find' && event.command.find === 'api_keys') reads.push(performance.now());
    };
    api.mongo.on('commandStarted', onCommand);
    const guess = () => from(api, guesser, 'GET', '/api/v1/ping', bearer(generateApiKey('test').plaintext));
    try {
      const fresh = await ws.addKey([]);
      // Ten guesses at once, the real key, five more guesses: each waits its turn for one read.
      const before = Array.from({ length: 10 }, guess);
      const real = from(api, guesser, 'GET', '/api/v1/ping', bearer(fresh.key));
      const after = Array.from({ length: 5 }, guess);
      for (const res of await Promise.all([...before, ...after])) expectLimited(res);
      expect((await real).status).toBe(200);
      expect(reads).toHaveLength(16);
      // Turns 100 ms apart: 15 gaps take 1.5 s (less a little: a read starts a moment after its turn).
      expect(reads[15]! - reads[0]!).toBeGreaterThanOrEqual(1_400);

      // A flood: past 20 waiting, a guess is refused at once, without a read. Sent as one write
      // each, together: sent one by one, a loaded machine spread them past a turn, and a waiting
      // guess that got its turn made room for one more read (22).
      reads.length = 0;
      for (const res of await together(api, guesser, 30, '/api/v1/ping', () => bearer(generateApiKey('test').plaintext))) expectLimited(res);
      expect(reads.length).toBeLessThanOrEqual(21);
      // Known from here now, the real key skips the line.
      expect((await from(api, guesser, 'GET', '/api/v1/ping', bearer(fresh.key))).status).toBe(200);
    } finally {
      api.mongo.off('commandStarted', onCommand);
    }
  });

  it('counts only credentials that fail: requests with none stay 401 missing_api_key', async () => {
    const source = '127.0.0.6';
    for (let i = 0; i < LIMIT * 2; i++) {
      const res = await from(api, source, 'GET', '/api/v1/ping');
      expect(res.body).toEqual(envelope('unauthenticated', 'Send an API key as Authorization: Bearer <key> or X-Api-Key.', { reason: 'missing_api_key' }));
    }
    expect((await from(api, source, 'GET', '/api/v1/ping', bearer(generateApiKey('test').plaintext))).status).toBe(401);
  });
});
