import { request, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { MEDIA_STREAM_PATH } from '../../calls/line/streamUrl';

/**
 * The cluster's one address (node's own http and net; no package): media streams
 * (`/media-stream/…`, WebSockets) go to the media processes, everything else to the API
 * processes, each pool taken in turn. An upstream that refuses the connection (killed, or
 * restarting) is skipped and the next one tried: the request never reached it, so trying
 * another cannot do anything twice. Once an upstream has the request, its failure is the
 * client's answer (502), never retried here: a POST it may have acted on is the client's
 * to retry, with its Idempotency-Key. A production load balancer does the same
 * (docs/deploy.md).
 */

export interface Upstream {
  host: string;
  port: number;
}

export interface BalancerOptions {
  port: number;
  api: Upstream[];
  media: Upstream[];
}

/** Errors that mean the upstream never took the request. */
const NOT_TAKEN = new Set(['ECONNREFUSED', 'EHOSTUNREACH']);

function pool(upstreams: Upstream[]) {
  let next = 0;
  /** Every upstream once, starting at the next in turn. */
  return () => {
    const start = next;
    next = (next + 1) % upstreams.length;
    return upstreams.map((_, i) => upstreams[(start + i) % upstreams.length]!);
  };
}

function isMedia(url: string | undefined): boolean {
  return (url ?? '').startsWith(`${MEDIA_STREAM_PATH}/`);
}

function forwardedHeaders(req: IncomingMessage): IncomingMessage['headers'] {
  const remote = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  return { ...req.headers, 'x-forwarded-for': prior ? `${String(prior)}, ${remote}` : remote };
}

export function startBalancer(options: BalancerOptions): Promise<Server> {
  const apiOrder = pool(options.api);
  const mediaOrder = pool(options.media);

  const proxy = (req: IncomingMessage, res: ServerResponse) => {
    const order = isMedia(req.url) ? mediaOrder() : apiOrder();
    // The body is buffered only while no upstream has taken it: held until one accepts the connection.
    const tryNext = (i: number) => {
      const target = order[i];
      if (!target) {
        res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"code":"upstream_unavailable","message":"no server is answering"}}');
        return;
      }
      const upstream = request({ host: target.host, port: target.port, method: req.method, path: req.url, headers: forwardedHeaders(req) });
      let connected = false;
      upstream.once('socket', (socket: Socket) => {
        const onConnect = () => {
          connected = true;
          req.pipe(upstream);
        };
        if (socket.connecting) socket.once('connect', onConnect);
        else onConnect();
      });
      upstream.once('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
        answer.once('error', () => res.destroy());
      });
      upstream.once('error', (err: NodeJS.ErrnoException) => {
        if (!connected && NOT_TAKEN.has(err.code ?? '')) return tryNext(i + 1);
        if (res.headersSent) return res.destroy();
        res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":{"code":"upstream_failed","message":"the server failed while answering"}}');
      });
      res.once('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
    };
    tryNext(0);
  };

  const server = createServer(proxy);
  // WebSockets (the media streams, the console's live views): the upgrade request is written
  // to the upstream as it came, then the two sockets are joined.
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const order = isMedia(req.url) ? mediaOrder() : apiOrder();
    client.on('error', () => client.destroy());
    const tryNext = (i: number) => {
      const target = order[i];
      if (!target) {
        client.end('HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      const upstream = connect({ host: target.host, port: target.port });
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        const headers = forwardedHeaders(req);
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (const [name, value] of Object.entries(headers)) {
          for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) lines.push(`${name}: ${one}`);
        }
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        if (!connected && NOT_TAKEN.has(err.code ?? '')) return tryNext(i + 1);
        client.destroy();
      });
      upstream.once('close', () => client.destroy());
      client.once('close', () => upstream.destroy());
    };
    tryNext(0);
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve(server));
  });
}
