import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { errorEnvelope, fromStatus } from './errors';

/** Node's limit on a request line plus headers (its default, stated here so the docs and tests can name it). */
export const MAX_HEADER_BYTES = 16 * 1024;

/** How long a refused connection may keep sending before it is cut: long enough to read the rest of what it sent. */
const DRAIN_MS = 2_000;

const PARSE_FAILURES: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes.` },
  HPE_REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.' },
};

/**
 * A request Node's parser refuses never reaches Koa: answer it here, in the envelope
 * (api-core §7 rule 2), and read what the client is still sending before closing, so it
 * gets the answer instead of a reset.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const known = PARSE_FAILURES[err.code ?? ''];
  const status = known?.status ?? 400;
  const ids = { requestId: `req_${randomBytes(12).toString('hex')}`, correlationId: `cor_${randomBytes(12).toString('hex')}` };
  const body = JSON.stringify(errorEnvelope(fromStatus(status, known?.message ?? 'The request could not be parsed as HTTP.'), ids));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${ids.requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  socket.resume();
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}

/** The HTTP server for the app: its header limit stated, parse failures answered in the envelope. */
export function createApiServer(app: { callback(): RequestListener }): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app.callback());
  server.on('clientError', answerClientError);
  return server;
}
