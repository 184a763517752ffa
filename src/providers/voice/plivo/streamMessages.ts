import { z } from 'zod';
import { BASE64, type ReadFrame, type StreamFrame } from '../../../calls/line/streamProtocol';

/**
 * Plivo Audio Streaming's messages to the bridge (<Stream bidirectional="true">), one schema per
 * kind Plivo documents (start, media, dtmf, playedStream, clearedAudio; the checkpoint echo is
 * also documented as `played`): the fields the bridge reads are required with their types, the
 * others must have theirs when present, unknown fields pass. Plivo documents no `stop`: it ends
 * a stream by closing the socket (streamProtocol.ts).
 */
const text = z.string().max(256);
const sequenceNumber = z.number().int().nonnegative().optional();
const extraHeaders = z.string().max(1024).optional();

const start = z.looseObject({
  event: z.literal('start'),
  sequenceNumber,
  start: z.looseObject({
    callId: text,
    streamId: text,
    accountId: text.optional(),
    tracks: z.array(text).max(4).optional(),
    mediaFormat: z.looseObject({ encoding: text, sampleRate: z.number().int().positive() }),
  }),
  /** The <Stream extraHeaders> as `key=value` pairs: the bridge needs `callId`. */
  extra_headers: extraHeaders,
});
const media = z.looseObject({
  event: z.literal('media'),
  sequenceNumber,
  streamId: text,
  media: z.looseObject({
    track: text.optional(),
    /** Unix time in ms. */
    timestamp: z.string().regex(/^\d{1,15}$/),
    chunk: z.number().int().nonnegative().optional(),
    payload: z.string().regex(BASE64, 'not base64'),
  }),
  extra_headers: extraHeaders,
});
const dtmf = z.looseObject({ event: z.literal('dtmf'), sequenceNumber, streamId: text, dtmf: z.looseObject({ digit: z.string().regex(/^[0-9*#A-D]$/), track: text.optional() }) });
const played = z.looseObject({ event: z.enum(['playedStream', 'played']), sequenceNumber, streamId: text, name: text });
const cleared = z.looseObject({ event: z.literal('clearedAudio'), sequenceNumber, streamId: text });

export const plivoStreamMessageSchema = z.discriminatedUnion('event', [start, media, dtmf, played, cleared]);
export type PlivoStreamMessage = z.infer<typeof plivoStreamMessageSchema>;

/** Our call id from the stream's extra headers (`callId=<id without call_>`, pairs split by `;` or `,`). */
export function callIdFromExtraHeaders(extra: string | undefined): string | null {
  for (const pair of (extra ?? '').split(/[;,]/)) {
    const [key, value] = pair.split('=');
    if (key?.trim() === 'callId' && value && /^[A-Za-z0-9]{1,64}$/.test(value.trim())) return `call_${value.trim()}`;
  }
  return null;
}

/**
 * One stream's reader. Plivo stamps media with Unix ms, the bridge wants ms since the stream
 * began: the first frame's stamp, less the time since `start` arrived, is the stream's zero.
 */
export function plivoFrameReader(now: () => number = Date.now): (json: unknown) => ReadFrame {
  let startedAt: number | null = null;
  let zero: number | null = null;
  return (json) => {
    const parsed = plivoStreamMessageSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return { ok: false, violation: 'invalid_message', why: `${issue?.path.join('.') || '(message)'}: ${issue?.message ?? 'invalid'}` };
    }
    const message = parsed.data;
    let frame: StreamFrame;
    switch (message.event) {
      case 'start':
        startedAt ??= now();
        frame = { kind: 'start', streamId: message.start.streamId, callId: callIdFromExtraHeaders(message.extra_headers), format: { ...message.start.mediaFormat, channels: 1 } };
        break;
      case 'media': {
        const stamp = Number(message.media.timestamp);
        zero ??= stamp - (startedAt === null ? 0 : now() - startedAt);
        frame = { kind: 'media', streamId: message.streamId, payload: message.media.payload, streamMs: Math.max(0, stamp - zero) };
        break;
      }
      case 'playedStream':
      case 'played':
        frame = { kind: 'mark', streamId: message.streamId, name: message.name };
        break;
      default:
        frame = { kind: 'ignored', streamId: message.streamId, event: message.event };
    }
    return { ok: true, frame };
  };
}
