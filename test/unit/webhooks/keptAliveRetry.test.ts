import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sendWebhook } from '../../../src/webhooks/send';

/**
 * A receiver that closes a kept-alive connection as our next request goes out on it (its idle
 * timeout, which a busy worker sees late): seen in bench:agents as a business tool call that
 * never reached the order service ("socket hang up", 4 tool calls of 1,500).
 */
describe('sendWebhook on a kept-alive connection the receiver closed', () => {
  let server: Server;
  let url: string;
  const requestsBySocket = new Map<Socket, number>();
  const answered: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const nth = (requestsBySocket.get(req.socket) ?? 0) + 1;
      requestsBySocket.set(req.socket, nth);
      // The second request on a connection finds it closed: nothing is answered on it.
      if (nth === 2) {
        req.socket.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        answered.push(`${String(req.headers['webhook-id'])} ${Buffer.concat(chunks).toString('utf8')}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the request once more on a new connection, within its deadline, with the same id', async () => {
    const send = (id: string, body: string) => sendWebhook({ url, body: Buffer.from(body), headers: { 'webhook-id': id }, timeoutMs: 5_000, allowPrivate: true });
    const first = await send('tcall_1', '{"order_id":"1"}');
    expect(first).toMatchObject({ statusCode: 200, error: null, responseBody: '{"ok":true}' });
    // The kept-alive connection carries this one, and the receiver drops it.
    const second = await send('tcall_2', '{"order_id":"2"}');
    expect(second).toMatchObject({ statusCode: 200, error: null, responseBody: '{"ok":true}' });
    expect(answered).toEqual(['tcall_1 {"order_id":"1"}', 'tcall_2 {"order_id":"2"}']);
    // Two connections: the one the receiver closed, and the retry's own.
    expect(requestsBySocket.size).toBe(2);
  });

  it('does not send again when a new connection is closed: that receiver did not take it', async () => {
    // A fresh server whose every request finds its connection closed.
    const closing = createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    let connections = 0;
    closing.on('connection', () => connections++);
    try {
      const sent = await sendWebhook({ url: `http://127.0.0.1:${(closing.address() as AddressInfo).port}/x`, body: Buffer.from('{}'), headers: {}, timeoutMs: 5_000, allowPrivate: true });
      expect(sent).toMatchObject({ statusCode: null, error: 'ECONNRESET: socket hang up' });
      expect(connections).toBe(1);
    } finally {
      closing.closeAllConnections();
      await new Promise((resolve) => closing.close(resolve));
    }
  });
});
