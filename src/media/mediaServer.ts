import { createServer, type Server } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { Registry } from 'prom-client';
import twilio from 'twilio';
import { WebSocketServer } from 'ws';
import { MediaSession, type MediaBridgeDeps } from './mediaSession';
import { MEDIA_STREAM_PATH } from './streamMessages';

export { MEDIA_STREAM_PATH };

export interface MediaServer {
  server: Server;
  /** Sessions bridged right now. */
  sessions: ReadonlySet<MediaSession>;
  /** Stops taking streams, ends every live one (their calls end as `setup_error`), then closes. */
  close(): Promise<void>;
}

/**
 * Who may open a stream: Twilio signs the WebSocket handshake (`X-Twilio-Signature`, HMAC of
 * the stream URL as the TwiML gave it, with the account's auth token), as its webhooks.
 */
export interface StreamAuth {
  authToken: string;
  /** The `<Stream url>` exactly as the TwiML names it (TWILIO_MEDIA_STREAM_URL). */
  streamUrl: string;
}

function signedByTwilio(req: IncomingMessage, auth: StreamAuth): boolean {
  const signature = req.headers['x-twilio-signature'];
  return typeof signature === 'string' && twilio.validateRequest(auth.authToken, signature, auth.streamUrl, {});
}

/**
 * The media process's HTTP server: the media-stream WebSocket, /healthz (200 while it takes
 * streams) and /metrics (Prometheus). Each stream gets a MediaSession of its own.
 */
export function createMediaServer(deps: MediaBridgeDeps & { registry: Registry; streamAuth?: StreamAuth | null }): MediaServer {
  const sessions = new Set<MediaSession>();
  let closing = false;
  const streams = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      deps.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': deps.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else if (path === '/healthz') {
      res.writeHead(closing ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: closing ? 'stopping' : 'ok', sessions: sessions.size }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"not_found"}');
    }
  });
  server.on('upgrade', (req, socket, head) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MEDIA_STREAM_PATH || closing) {
      socket.end(`HTTP/1.1 ${closing ? '503 Service Unavailable' : '404 Not Found'}\r\nConnection: close\r\n\r\n`);
      return;
    }
    if (deps.streamAuth && !signedByTwilio(req, deps.streamAuth)) {
      // Anyone who can reach this port and knows a call id could otherwise speak for a call.
      deps.metrics.streamsRefused.inc();
      deps.logger.warn({ address: req.socket.remoteAddress }, 'media stream handshake without a valid X-Twilio-Signature: refused');
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    streams.handleUpgrade(req, socket, head, (ws) => {
      const session = new MediaSession(ws, deps);
      sessions.add(session);
      void session.ended.then(() => sessions.delete(session));
    });
  });
  return {
    server,
    sessions,
    async close() {
      closing = true;
      await Promise.all([...sessions].map((session) => session.end('shutdown')));
      streams.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
