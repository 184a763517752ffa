import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A `messages` webhook as the platform posts it (one entry, one change of `value`), signed with `appSecret` as `X-Hub-Signature-256`. */
export function signedMessagesWebhook(value: Record<string, unknown>, appSecret: string): { raw: string; signature: string } {
  const raw = JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'WABA1', changes: [{ field: 'messages', value }] }] });
  return { raw, signature: `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}` };
}

/**
 * A stand-in for the Graph API: records each request and answers from a queue (default: accepted),
 * and builds the status webhooks the real platform posts for an accepted message.
 */
export class FakeGraph {
  /** Each request, with the message id it was (or is being) answered with when accepted. */
  readonly requests: { url: string; authorization: string | undefined; body: Record<string, unknown>; messageId?: string }[] = [];
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
        // A read mark is not a message (the platform answers it `success`): only sends get an id.
        const accepted = body.status === 'read' ? undefined : (answer.body as { messages?: { id?: unknown }[] } | null)?.messages?.[0]?.id;
        if (typeof accepted === 'string') this.requests.at(-1)!.messageId = accepted;
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

  /**
   * The messages webhook the platform posts for a status of an accepted message, as Meta's
   * status webhook reference shows it (docs/decisions/messaging.md, "Unknown outcomes resolved
   * from the provider"): `biz_opaque_callback_data` echoed exactly as the send gave it, and only
   * when it did. Signed with `appSecret`, as `X-Hub-Signature-256`.
   */
  statusWebhook(
    messageId: string,
    status: 'sent' | 'delivered' | 'read',
    options: { appSecret: string; phoneNumberId?: string; displayPhoneNumber?: string; at?: number },
  ): { raw: string; signature: string } {
    const request = this.requests.find((r) => r.messageId === messageId);
    if (!request) throw new Error(`the fake Graph API accepted no message ${messageId}`);
    const callback = request.body.biz_opaque_callback_data;
    return signedMessagesWebhook(
      {
        messaging_product: 'whatsapp',
        metadata: { display_phone_number: options.displayPhoneNumber ?? '15550001001', phone_number_id: options.phoneNumberId ?? '1001' },
        statuses: [
          {
            id: messageId,
            status,
            timestamp: String(Math.floor((options.at ?? Date.now()) / 1000)),
            recipient_id: String(request.body.to),
            ...(typeof callback === 'string' ? { biz_opaque_callback_data: callback } : {}),
          },
        ],
      },
      options.appSecret,
    );
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
