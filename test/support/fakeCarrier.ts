import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake network made to the app (a status callback, an answer URL), with the app's answer. */
export interface FakeCallback {
  url: string;
  params: Record<string, string>;
  status: number;
  body: string;
}

/**
 * What the fake telephony networks (FakeTwilio, FakePlivo) share: the REST API on a loopback
 * port of its own, the calls placed, the callbacks made, and the work still running (ringing,
 * talking, calling back), which `stop` lets finish after ending each call's open stream.
 */
export abstract class FakeCarrier<Call extends { to: string; stream?: { open: boolean } }, Script> {
  readonly calls = new Map<string, Call>();
  readonly callbacks: FakeCallback[] = [];
  /** Where the app is really listening, set once it is (the public origin is rewritten to it). */
  localOrigin: string | null = null;
  protected readonly scripts = new Map<string, Script>();
  protected stopped = false;
  private readonly pending = new Set<Promise<unknown>>();
  private server!: Server;

  constructor(readonly publicOrigin = 'https://voice.example.test') {}

  script(to: string, script: Script): void {
    this.scripts.set(to, script);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.calls.values()].flatMap((call) => (call.stream?.open ? [this.closeStreamOnStop(call)] : [])));
    await Promise.allSettled([...this.pending]);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The requests the network made to one path of the app (`/webhooks/twilio/status`, …). */
  callbacksTo(path: string): FakeCallback[] {
    return this.callbacks.filter((c) => new URL(c.url).pathname === path);
  }

  callsTo(to: string): Call[] {
    return [...this.calls.values()].filter((c) => c.to === to);
  }

  /** Runs `work` beside the request that started it; `stop` waits for it. */
  protected track(work: Promise<unknown>): void {
    const p = work.catch(() => undefined).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** One request to the fake's REST API. */
  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;

  /** How a call's stream still open when the fake stops is ended. */
  protected abstract closeStreamOnStop(call: Call): Promise<unknown>;
}
