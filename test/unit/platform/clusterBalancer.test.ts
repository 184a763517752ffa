import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect } from 'node:net';
import { startBalancer } from '../../../src/local/cluster/balancer';
import { freePort } from '../../../src/local/net';

/** An upstream that answers every request with its name, and every upgrade with `101` then an echo. */
async function upstream(name: string): Promise<{ server: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(200, { 'content-type': 'text/plain', 'x-upstream': name }).end(name);
    });
  });
  server.on('upgrade', (req, socket: Socket) => {
    seen.push(`upgrade ${req.url}`);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: test\r\nconnection: Upgrade\r\nx-upstream: ${name}\r\n\r\n`);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('the cluster balancer (src/local/cluster/balancer.ts)', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await close(server);
    }
  });

  it('takes the API processes in turn, passes the body, and skips one that refuses the connection', async () => {
    const [a, b] = [await upstream('a'), await upstream('b')];
    const gone = await freePort();
    servers.push(a.server, b.server);
    const port = await freePort();
    servers.push(await startBalancer({ port, api: [{ host: '127.0.0.1', port: a.port }, { host: '127.0.0.1', port: gone }, { host: '127.0.0.1', port: b.port }], media: [] }));
    const answers: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/calls`, { method: 'POST', body: `n${i}` });
      expect(res.status).toBe(200);
      answers.push(await res.text());
    }
    // The dead middle one is skipped: its turns go to the next in line, and no request is lost.
    expect(answers).toEqual(['a', 'b', 'b', 'a', 'b', 'b']);
    expect([...a.seen, ...b.seen].sort()).toEqual([0, 1, 2, 3, 4, 5].map((i) => `POST /api/v1/calls n${i}`));
  });

  it('answers 502 upstream_unavailable when no process takes the connection', async () => {
    const port = await freePort();
    servers.push(await startBalancer({ port, api: [{ host: '127.0.0.1', port: await freePort() }], media: [] }));
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ error: { code: 'upstream_unavailable', message: 'no server is answering' } });
  });

  it('sends media streams (WebSocket upgrades on /media-stream/) to the media processes and joins the sockets', async () => {
    const [api, media] = [await upstream('api'), await upstream('media')];
    servers.push(api.server, media.server);
    const port = await freePort();
    servers.push(await startBalancer({ port, api: [{ host: '127.0.0.1', port: api.port }], media: [{ host: '127.0.0.1', port: media.port }] }));
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.write('GET /media-stream/call_abc/secret HTTP/1.1\r\nhost: x\r\nupgrade: test\r\nconnection: Upgrade\r\n\r\n');
    const deadline = Date.now() + 5_000;
    while (!received.includes('\r\n\r\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    socket.write('hello');
    while (!received.endsWith('hello') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(received).toContain('x-upstream: media');
    expect(received.endsWith('hello')).toBe(true);
    expect(media.seen).toEqual(['upgrade /media-stream/call_abc/secret']);
    expect(api.seen).toEqual([]);
  });
});
