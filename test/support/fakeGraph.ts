import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in for the Graph API: records each request and answers from a queue (default: accepted). */
export class FakeGraph {
  readonly requests: { url: string; authorization: string | undefined; body: Record<string, unknown> }[] = [];
  readonly answers: { status: number; body: unknown; delayMs?: number }[] = [];
  /**
   * Runs before an accepted send is answered, given the message id it will answer with: the
   * real platform posts `sent` (and more) to the webhook as it accepts, so a status can come
   * before the sender has the answer.
   */
  beforeAnswer: ((messageId: string, body: Record<string, unknown>) => Promise<void>) | null = null;
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
        const body = this.requests.at(-1)!.body;
        const send = () => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
        const accepted = (answer.body as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
        const before = this.beforeAnswer;
        const reply = () => {
          if (before && typeof accepted === 'string') void before(accepted, body).then(send, (err: unknown) => res.destroy(err as Error));
          else send();
        };
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
