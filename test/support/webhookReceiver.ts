import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What the receiver answers to one request: a status, `hang` to never answer, or a status given later (held until then). */
export type Answer = number | 'hang' | Promise<number>;

export interface WebhookReceiver {
  url: (path?: string) => string;
  received: Received[];
  /** Requests carrying this webhook-id, in arrival order. */
  forEvent(eventId: string): Received[];
  /** Resolves once `count` requests matching `match` have arrived. */
  waitFor(match: (r: Received) => boolean, count?: number, timeoutMs?: number): Promise<Received[]>;
  answer: (request: Received, index: number) => Answer;
  close(): Promise<void>;
}

/** A local HTTP receiver on 127.0.0.1 that records every request's raw bytes and answers as scripted. */
export async function startWebhookReceiver(answer: (request: Received, index: number) => Answer = () => 200): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const waiters: (() => void)[] = [];
  const receiver: WebhookReceiver = {
    url: (path = '/hook') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    forEvent: (eventId) => received.filter((r) => r.headers['webhook-id'] === eventId),
    answer,
    waitFor(match, count = 1, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hits = received.filter(match);
          if (hits.length >= count) {
            clearTimeout(timer);
            resolve(hits);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => reject(new Error(`receiver: ${received.filter(match).length} of ${count} requests after ${timeoutMs} ms`)), timeoutMs);
        if (!check()) {
          const waiter = () => {
            if (check()) waiters.splice(waiters.indexOf(waiter), 1);
          };
          waiters.push(waiter);
        }
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record: Received = { at: Date.now(), path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(record);
      const reply = receiver.answer(record, received.length - 1);
      for (const waiter of [...waiters]) waiter();
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      const send = (status: number) => void res.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 200 && status < 300 ? 'ok' : `status ${status}`);
      if (typeof reply === 'number') return send(reply);
      hanging.add(res);
      void reply.then((status) => {
        hanging.delete(res);
        if (!res.destroyed) send(status);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return receiver;
}
