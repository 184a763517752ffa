import type { IncomingMessage } from 'node:http';

/**
 * A telephony provider's media-stream protocol, as the media bridge needs it: the port a
 * provider adapter implements (src/providers/voice/<provider>/streamProtocol.ts) and the media
 * process is handed by its root (src/main/media.ts, MEDIA_LINES). The bridge reads every frame
 * through it into the neutral frames below and writes the agent's audio, its marks and its
 * barge-in clears through it, so src/media never names a provider's messages
 * (docs/media.md, "A provider's stream protocol").
 */
export interface StreamProtocol {
  /**
   * Whether a stream handshake is this provider's, for the call and secret its path names:
   * null when it is; else why not (`signature`: the provider's signature on the handshake is
   * missing or wrong; `secret`: the path's secret is not the call's).
   */
  admit(req: IncomingMessage, stream: { callId: string; secret: string }): 'signature' | 'secret' | null;
  /** A reader for one stream's text frames (some providers' frames need the stream's own state, e.g. its clock). */
  reader(): StreamFrameReader;
  /** The outbound frames: agent audio (8 kHz mu-law, base64), a mark, and a clear of the audio not yet played. */
  media(streamId: string, payload: string): string;
  mark(streamId: string, name: string): string;
  clear(streamId: string): string;
  /**
   * A stream whose socket closed without a `stop` frame: true when the provider ended it (a
   * provider that ends streams by closing them, with a closing handshake of its own), false
   * when the connection was lost (the call then ends `setup_error`). `code` is the WebSocket
   * close code (1005: none given; 1006: no closing handshake at all).
   */
  closedByProvider(code: number): boolean;
}

/** One stream's frame reader: a JSON text frame (already parsed) as a neutral frame, or why it is not one. */
export type StreamFrameReader = (json: unknown) => ReadFrame;

export type ReadFrame = { ok: true; frame: StreamFrame } | { ok: false; violation: StreamViolation; why: string };

/** The audio format a stream announces; the bridge speaks 8 kHz mono mu-law. */
export interface StreamAudioFormat {
  encoding: string;
  sampleRate: number;
  channels: number;
}

/**
 * What a provider's stream says, in neutral terms. `streamId` names the provider's stream; a
 * stream's frames after its `start` must carry the same one. `callId` on `start` is the call the
 * provider says the stream is for (our id, as the answer gave it); `streamMs` on `media` is the
 * frame's time since the stream began. `mark` echoes a mark the bridge sent once the audio
 * before it has played. `ignored`: a message of the protocol the bridge has no use for (DTMF, a
 * clear's acknowledgement), still checked and kept in order.
 */
export type StreamFrame =
  | { kind: 'connected' }
  | { kind: 'start'; streamId: string; callId: string | null; format: StreamAudioFormat | null }
  | { kind: 'media'; streamId: string; payload: string; streamMs: number }
  | { kind: 'mark'; streamId: string; name: string }
  | { kind: 'ignored'; streamId: string; event: string }
  | { kind: 'stop'; streamId: string };

/**
 * Why a frame ends its stream, with the WebSocket close code it is ended with (RFC 6455 §7.4.1):
 * 1003 a binary frame (the providers send only text), 1007 a text that is not one of the
 * provider's messages, 1008 a message out of its place (before `start`, a second `start`,
 * another stream's id, a call that is not the path's), 1009 a frame over the socket's limit.
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

/** Base64 of whole bytes; a 20 ms frame is 160 bytes, but no provider documents a size, so the socket's limit bounds it. */
export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Where a stream is in its order: `connected` (optional, first), one `start` naming the path's
 * call, then frames of that stream until `stop`, after which nothing.
 */
export class StreamOrder {
  #streamId: string | null = null;
  #stopped = false;
  #seen = 0;

  constructor(private readonly callId: string) {}

  /** Null when `frame` may come now (and takes its place), else why not. */
  admit(frame: StreamFrame): { violation: StreamViolation; why: string } | null {
    this.#seen += 1;
    if (this.#stopped) return { violation: 'out_of_order', why: `${frame.kind} after stop` };
    switch (frame.kind) {
      case 'connected':
        return this.#seen === 1 ? null : { violation: 'out_of_order', why: 'connected after the first message' };
      case 'start':
        if (this.#streamId !== null) return { violation: 'out_of_order', why: 'a second start' };
        if (frame.callId !== this.callId) return { violation: 'call_mismatch', why: 'the call the start names is not the call of the stream URL' };
        this.#streamId = frame.streamId;
        return null;
      default:
        if (this.#streamId === null) return { violation: 'out_of_order', why: `${frame.kind} before start` };
        if (frame.streamId !== this.#streamId) return { violation: 'out_of_order', why: `${frame.kind} of another stream` };
        if (frame.kind === 'stop') this.#stopped = true;
        return null;
    }
  }
}
