import type WebSocket from 'ws';
import { z } from 'zod';
import { BASE64, type ReadFrame, type StreamFrame, type StreamViolation } from '../../../calls/line/streamProtocol';
import { decodeFrame } from '../../../calls/line/streamFrames';

/**
 * Twilio Media Streams' messages to the bridge (<Connect><Stream>, bidirectional), one schema
 * per kind Twilio documents (connected, start, media, dtmf, mark, stop). The fields the bridge
 * or the Agents SDK's transport read are required with their types; the others, when present,
 * must have theirs. Unknown fields pass (Twilio may add some).
 */
const text = z.string().max(256);
const sequenceNumber = z.string().regex(/^\d{1,12}$/).optional();
const base64 = z.string().regex(BASE64, 'not base64');

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

export type ParsedFrame = { ok: true; message: StreamMessage; text: string } | { ok: false; violation: StreamViolation; why: string };

/** One frame as a Twilio message, or why it is not one. */
export function parseStreamFrame(data: WebSocket.RawData, isBinary: boolean): ParsedFrame {
  const decoded = decodeFrame(data, isBinary);
  if (!decoded.ok) return decoded;
  const parsed = readTwilioMessage(decoded.json);
  return parsed.ok ? { ok: true, message: parsed.message, text: decoded.text } : parsed;
}

function readTwilioMessage(json: unknown): { ok: true; message: StreamMessage } | { ok: false; violation: StreamViolation; why: string } {
  const parsed = streamMessageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, violation: 'invalid_message', why: `${issue?.path.join('.') || '(message)'}: ${issue?.message ?? 'invalid'}` };
  }
  if (parsed.data.event === 'start' && parsed.data.start.streamSid !== parsed.data.streamSid) return { ok: false, violation: 'invalid_message', why: 'start names two stream ids' };
  return { ok: true, message: parsed.data };
}

/** A Twilio message in the bridge's neutral terms (src/calls/line/streamProtocol.ts). */
export function toStreamFrame(message: StreamMessage): StreamFrame {
  switch (message.event) {
    case 'connected':
      return { kind: 'connected' };
    case 'start':
      return { kind: 'start', streamId: message.streamSid, callId: message.start.customParameters.callId ?? null, format: message.start.mediaFormat ?? null };
    case 'media':
      return { kind: 'media', streamId: message.streamSid, payload: message.media.payload, streamMs: Number(message.media.timestamp) };
    case 'mark':
      return { kind: 'mark', streamId: message.streamSid, name: message.mark.name };
    case 'dtmf':
      return { kind: 'ignored', streamId: message.streamSid, event: 'dtmf' };
    case 'stop':
      return { kind: 'stop', streamId: message.streamSid };
  }
}

/** A parsed JSON frame as Twilio's message, in neutral terms. */
export function readTwilioFrame(json: unknown): ReadFrame {
  const read = readTwilioMessage(json);
  return read.ok ? { ok: true, frame: toStreamFrame(read.message) } : read;
}
