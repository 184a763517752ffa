import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
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
 * The media process's HTTP server: the media-stream WebSocket, /healthz (200 while it takes
 * streams) and /metrics (Prometheus). Each stream gets a MediaSession of its own.
 */
export function createMediaServer(deps: MediaBridgeDeps & { registry: Registry }): MediaServer {
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
