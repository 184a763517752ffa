import type WebSocket from 'ws';
import type { StreamViolation } from './streamProtocol';

/** A WebSocket message's text, whichever shape `ws` delivered it in. */
export function messageText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

export type DecodedFrame = { ok: true; json: unknown; text: string } | { ok: false; violation: StreamViolation; why: string };

/** A stream frame as JSON: every provider's stream speaks JSON text, so a binary frame or a text that is not JSON ends it. */
export function decodeFrame(data: WebSocket.RawData, isBinary: boolean): DecodedFrame {
  if (isBinary) return { ok: false, violation: 'binary', why: 'a binary frame' };
  const text = messageText(data);
  try {
    return { ok: true, json: JSON.parse(text), text };
  } catch {
    return { ok: false, violation: 'not_json', why: 'not JSON' };
  }
}
