import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { WebSocketServer } from 'ws';
import { MediaSession, type MediaBridgeDeps } from './mediaSession';
import { admitStream } from './streamAdmission';
import { MEDIA_STREAM_PATH } from '../calls/line/streamUrl';

export { MEDIA_STREAM_PATH };

export interface MediaServer {
  server: Server;
  /** Sessions bridged right now. */
  sessions: ReadonlySet<MediaSession>;
  /** Stops taking streams, ends every live one (their calls end as `setup_error`), then closes. */
  close(): Promise<void>;
}

/**
 * The largest frame a stream may send. The providers' are a few hundred bytes (a 20 ms frame is
 * 160 bytes of audio, base64 in JSON); a larger one is refused by `ws` itself with 1009.
 */
export const STREAM_MAX_FRAME_BYTES = 64 * 1024;

const STATUS_LINE: Record<number, string> = { 403: '403 Forbidden', 404: '404 Not Found', 409: '409 Conflict', 503: '503 Service Unavailable' };

/**
 * The media process's HTTP server: the media-stream WebSocket, /healthz (200 while it takes
 * streams) and /metrics (Prometheus). Each stream admitted (streamAdmission.ts) gets a
 * MediaSession of its own; a refused one is answered before the WebSocket opens.
 */
export function createMediaServer(deps: MediaBridgeDeps & { registry: Registry }): MediaServer {
  const sessions = new Set<MediaSession>();
  let closing = false;
  const streams = new WebSocketServer({ noServer: true, maxPayload: STREAM_MAX_FRAME_BYTES });
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
    // Until `ws` takes the socket it is ours: a peer that resets it mid-handshake must not throw.
    socket.on('error', (err) => deps.logger.debug({ err }, 'media stream handshake socket error'));
    const refuse = (status: number) => socket.end(`HTTP/1.1 ${STATUS_LINE[status]}\r\nConnection: close\r\n\r\n`);
    if (closing) return refuse(503);
    admitStream(deps.db, req, deps.streamProtocol, new Date()).then(
      (admission) => {
        if (!admission.ok) {
          deps.metrics.streamsRefused.inc({ reason: admission.reason });
          deps.logger.warn({ address: req.socket.remoteAddress, callId: admission.callId, reason: admission.reason }, `media stream refused (${admission.status})`);
          return refuse(admission.status);
        }
        if (closing || socket.destroyed) return refuse(503);
        streams.handleUpgrade(req, socket, head, (ws) => {
          const session = new MediaSession(ws, deps, admission.callId);
          sessions.add(session);
          void session.ended.then(() => sessions.delete(session));
        });
      },
      (err: unknown) => {
        deps.metrics.streamsRefused.inc({ reason: 'unavailable' });
        deps.logger.error({ err }, 'media stream handshake could not be checked: refused (503)');
        refuse(503);
      },
    );
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
