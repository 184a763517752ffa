import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in for the Graph API: records each request and answers from a queue (default: accepted). */
export class FakeGraph {
  readonly requests: { url: string; authorization: string | undefined; body: Record<string, unknown> }[] = [];
  readonly answers: { status: number; body: unknown; delayMs?: number }[] = [];
  private server!: Server;
  private count = 0;

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests.push({ url: req.url!, authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        const answer = this.answers.shift() ?? {
          status: 200,
          body: { messaging_product: 'whatsapp', contacts: [{ input: 'x', wa_id: 'x' }], messages: [{ id: `wamid.CLOUD${++this.count}` }] },
        };
        const reply = () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
        if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v21.0`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
