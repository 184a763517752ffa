import type WebSocket from 'ws';
import { z } from 'zod';

export { MEDIA_STREAM_PATH } from '../calls/line/streamUrl';

/**
 * Twilio Media Streams' messages to the bridge (<Connect><Stream>, bidirectional), one schema
 * per kind Twilio documents (connected, start, media, dtmf, mark, stop). The fields the bridge
 * or the Agents SDK's transport read are required with their types; the others, when present,
 * must have theirs. Unknown fields pass (Twilio may add some).
 */
const text = z.string().max(256);
const sequenceNumber = z.string().regex(/^\d{1,12}$/).optional();
/** Base64 of whole bytes; a 20 ms frame is 160 bytes, but Twilio documents no size, so the socket's limit bounds it. */
const base64 = z.string().regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'not base64');

const connected = z.looseObject({ event: z.literal('connected'), protocol: text, version: text });
const start = z.looseObject({
  event: z.literal('start'),
  sequenceNumber,
  streamSid: text,
  start: z.looseObject({
    streamSid: text,
    accountSid: text.optional(),
    callSid: text.optional(),
    tracks: z.array(text).max(4).optional(),
    /** The <Parameter> names the TwiML gave: the bridge needs `callId`. */
    customParameters: z.record(text, z.string().max(1024)),
    mediaFormat: z.looseObject({ encoding: text, sampleRate: z.number().int().positive(), channels: z.number().int().positive() }).optional(),
  }),
});
const media = z.looseObject({
  event: z.literal('media'),
  sequenceNumber,
  streamSid: text,
  media: z.looseObject({
    track: text.optional(),
    chunk: z.string().regex(/^\d{1,12}$/).optional(),
    /** Ms since the stream started. */
    timestamp: z.string().regex(/^\d{1,12}$/),
    payload: base64,
  }),
});
const dtmf = z.looseObject({
  event: z.literal('dtmf'),
  sequenceNumber,
  streamSid: text,
  dtmf: z.looseObject({ track: text.optional(), digit: z.string().regex(/^[0-9*#A-D]$/) }),
});
const mark = z.looseObject({ event: z.literal('mark'), sequenceNumber, streamSid: text, mark: z.looseObject({ name: text }) });
const stop = z.looseObject({
  event: z.literal('stop'),
  sequenceNumber,
  streamSid: text,
  stop: z.looseObject({ accountSid: text.optional(), callSid: text.optional() }).optional(),
});

export const streamMessageSchema = z.discriminatedUnion('event', [connected, start, media, dtmf, mark, stop]);
export type StreamMessage = z.infer<typeof streamMessageSchema>;
export type StreamEvent = StreamMessage['event'];

/** A WebSocket message's text, whichever shape `ws` delivered it in. */
export function messageText(data: WebSocket.RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/**
 * Why a frame ends its stream, with the WebSocket close code it is ended with (RFC 6455 §7.4.1):
 * 1003 a binary frame (Twilio sends only text), 1007 a text that is not one of Twilio's
 * messages, 1008 a message out of its place (before `start`, a second `start`, another
 * stream's id, a `callId` that is not the path's), 1009 a frame over the socket's limit.
 */
export type StreamViolation = 'binary' | 'not_json' | 'invalid_message' | 'out_of_order' | 'call_mismatch' | 'oversized';

export const VIOLATION_CLOSE_CODE: Record<StreamViolation, number> = {
  binary: 1003,
  not_json: 1007,
  invalid_message: 1007,
  out_of_order: 1008,
  call_mismatch: 1008,
  oversized: 1009,
};

export type ParsedFrame = { ok: true; message: StreamMessage; text: string } | { ok: false; violation: StreamViolation; why: string };

/** One frame as a Twilio message, or why it is not one. */
export function parseStreamFrame(data: WebSocket.RawData, isBinary: boolean): ParsedFrame {
  if (isBinary) return { ok: false, violation: 'binary', why: 'a binary frame' };
  const raw = messageText(data);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, violation: 'not_json', why: 'not JSON' };
  }
  const parsed = streamMessageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, violation: 'invalid_message', why: `${issue?.path.join('.') || '(message)'}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, message: parsed.data, text: raw };
}

/**
 * Where a stream is in Twilio's order: `connected` (optional, first), one `start` naming the
 * path's call, then media, dtmf and marks of that stream until `stop`, after which nothing.
 */
export class StreamOrder {
  #streamSid: string | null = null;
  #stopped = false;
  #seen = 0;

  constructor(private readonly callId: string) {}

  /** Null when `message` may come now (and takes its place), else why not. */
  admit(message: StreamMessage): { violation: StreamViolation; why: string } | null {
    this.#seen += 1;
    if (this.#stopped) return { violation: 'out_of_order', why: `${message.event} after stop` };
    switch (message.event) {
      case 'connected':
        return this.#seen === 1 ? null : { violation: 'out_of_order', why: 'connected after the first message' };
      case 'start':
        if (this.#streamSid !== null) return { violation: 'out_of_order', why: 'a second start' };
        if (message.start.streamSid !== message.streamSid) return { violation: 'invalid_message', why: 'start names two stream ids' };
        if (message.start.customParameters.callId !== this.callId) return { violation: 'call_mismatch', why: 'the callId parameter is not the call of the stream URL' };
        this.#streamSid = message.streamSid;
        return null;
      default:
        if (this.#streamSid === null) return { violation: 'out_of_order', why: `${message.event} before start` };
        if (message.streamSid !== this.#streamSid) return { violation: 'out_of_order', why: `${message.event} of another stream` };
        if (message.event === 'stop') this.#stopped = true;
        return null;
    }
  }
}
