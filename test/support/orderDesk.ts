import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from 'mongodb';
import { createBusinessTool } from '../../src/businessTools';
import { verify } from '../../src/webhooks/verify';

/**
 * A business's order-status endpoint on loopback, for its declared HTTP tool: it verifies each
 * request exactly as docs/agents.md tells a business to (the webhook signature with the tool's
 * secret; the body is the arguments) and answers the order's status; a request it cannot
 * verify is refused with 401 and kept in `refused`.
 */
export class OrderDesk {
  /** The tool's signing secret, known once the tool is declared. */
  secret = '';
  readonly received: { tool: string | undefined; callId: string; args: unknown }[] = [];
  readonly refused: string[] = [];
  /** Orders the desk will not handle itself: its answer for them carries a top-level `hand_over` with this reason. */
  readonly handOver = new Map<string, string>();
  private server!: Server;

  static status(orderId: unknown): string {
    return `Order ${String(orderId)} was delivered on Monday 23 November.`;
  }

  /** Starts listening; answers the URL to declare. */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          const args = verify(Buffer.concat(chunks), req.headers, this.secret) as unknown as { order_id?: unknown };
          this.received.push({ tool: req.headers['x-agent-tool'] as string | undefined, callId: String(req.headers['webhook-id']), args });
          const reason = this.handOver.get(String(args.order_id));
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: OrderDesk.status(args.order_id), ...(reason ? { hand_over: { reason } } : {}) }));
        } catch (err) {
          this.refused.push(err instanceof Error ? err.message : String(err));
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'bad signature' }));
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/agent/order-status`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The order tool's parameters, as the business declares them. */
export const ORDER_TOOL_PARAMETERS = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } as const;

/** The name the desk is declared under. */
export const ORDER_TOOL_NAME = 'order_status';

/** A started desk, declared as the workspace's enabled `order_status` tool (its secret given to the desk). */
export async function declaredOrderDesk(db: Db, tenantId: string): Promise<OrderDesk> {
  const desk = new OrderDesk();
  const url = await desk.start();
  const declared = await createBusinessTool(
    db,
    tenantId,
    { name: ORDER_TOOL_NAME, description: "Look up where a customer's order is by its order number.", parameters: { ...ORDER_TOOL_PARAMETERS }, url, timeout_ms: 5_000 },
    true,
    new Date(),
  );
  desk.secret = declared.secret;
  return desk;
}
