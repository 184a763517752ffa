import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay in front of a server (Temporal's gRPC port, say) that a test can stall: once
 * `stall()` is called, nothing more the clients send is passed on (the connections stay open,
 * so a call in flight hangs as it would on a frozen network), and answers still come back.
 */
export class StallingProxy {
  private server!: Server;
  private readonly clients = new Set<Socket>();
  private stalled = false;

  constructor(private readonly upstream: { host: string; port: number }) {}

  async start(): Promise<string> {
    this.server = createServer((client) => {
      const server = connect(this.upstream.port, this.upstream.host);
      this.clients.add(client);
      client.on('data', (chunk: Buffer) => {
        if (!this.stalled) server.write(chunk);
      });
      server.pipe(client);
      const close = () => {
        this.clients.delete(client);
        client.destroy();
        server.destroy();
      };
      client.on('close', close).on('error', close);
      server.on('close', close).on('error', close);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stall(): void {
    this.stalled = true;
  }

  stop(): Promise<void> {
    for (const client of this.clients) client.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
