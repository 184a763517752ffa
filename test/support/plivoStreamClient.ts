import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { messageText } from '../../src/calls/line/streamFrames';
import { untilAgentQuiet } from './agentQuiet';
import { FRAME_BYTES, MULAW_SILENCE } from './speechAudio';

/**
 * Plivo's side of a bidirectional audio stream (<Stream bidirectional="true">), as Plivo's
 * Audio Streaming documents it: `start` once (callId, streamId, accountId, tracks, mediaFormat,
 * and the element's `extra_headers`), a `media` frame every 20 ms (8 kHz mu-law, 160 bytes,
 * `timestamp` in Unix ms, `chunk` counting, silence when the person says nothing), `playedStream`
 * once the audio sent before a `checkpoint` has played, `clearedAudio` after a `clearAudio`. No
 * `stop`: Plivo closes the socket (with a closing handshake) when the call ends or moves. Audio
 * from the bridge must be `playAudio` in the stream's format (audio/x-mulaw at 8000): anything
 * else is counted as a protocol error.
 */
export interface PlivoReceived {
  bytes: number;
  frames: { atMs: number; bytes: number }[];
  clears: number;
  checkpoints: string[];
  /** Messages Plivo would not take (wrong event, wrong audio format, another stream's id). */
  errors: string[];
}

const now = () => performance.timeOrigin + performance.now();

export class PlivoStreamClient {
  readonly streamId = randomUUID();
  readonly received: PlivoReceived = { bytes: 0, frames: [], clears: 0, checkpoints: [], errors: [] };
  readonly sent: { atMs: number; voiced: boolean }[] = [];
  readonly closed: Promise<number>;
  #queue: { audio: Buffer; offset: number; done: () => void }[] = [];
  #sequence = 0;
  #chunk = 0;
  #timer: NodeJS.Timeout | null = null;
  #playedUntil = 0;
  #pending: NodeJS.Timeout[] = [];
  #nextFrameAt = 0;

  private constructor(private readonly socket: WebSocket) {
    this.closed = new Promise((resolve) => socket.once('close', (code) => resolve(code)));
    socket.on('message', (data) => this.#onMessage(JSON.parse(messageText(data)) as Record<string, any>));
    socket.once('close', () => this.#stopClock());
  }

  static async connect(url: string, call: { callUuid: string; accountId: string; extraHeaders: string }, headers: Record<string, string> = {}): Promise<PlivoStreamClient> {
    const socket = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_req, res) => reject(new Error(`stream refused: ${res.statusCode}`)));
      socket.once('error', reject);
    });
    const client = new PlivoStreamClient(socket);
    client.#send({
      event: 'start',
      start: { callId: call.callUuid, streamId: client.streamId, accountId: call.accountId, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } },
      extra_headers: call.extraHeaders,
    });
    client.#nextFrameAt = Date.now();
    client.#tick();
    return client;
  }

  #send(message: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ ...message, sequenceNumber: ++this.#sequence }));
  }

  #tick(): void {
    const at = Date.now();
    while (this.#nextFrameAt <= at && this.socket.readyState === WebSocket.OPEN) {
      this.#sendFrame();
      this.#nextFrameAt += 20;
    }
    if (this.socket.readyState === WebSocket.OPEN) this.#timer = setTimeout(() => this.#tick(), Math.max(1, this.#nextFrameAt - Date.now()));
  }

  #sendFrame(): void {
    const frame = Buffer.alloc(FRAME_BYTES, MULAW_SILENCE);
    const current = this.#queue[0];
    if (current) {
      current.audio.copy(frame, 0, current.offset, current.offset + FRAME_BYTES);
      current.offset += FRAME_BYTES;
      if (current.offset >= current.audio.length) {
        this.#queue.shift();
        current.done();
      }
    }
    this.#chunk += 1;
    this.#send({ event: 'media', streamId: this.streamId, media: { track: 'inbound', timestamp: String(Date.now()), chunk: this.#chunk, payload: frame.toString('base64') } });
    this.sent.push({ atMs: now(), voiced: Boolean(current) });
  }

  #stopClock(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const timer of this.#pending) clearTimeout(timer);
  }

  #onMessage(message: Record<string, any>): void {
    const at = now();
    if (message.event === 'playAudio') {
      if (message.media?.contentType !== 'audio/x-mulaw' || message.media?.sampleRate !== 8000) {
        this.received.errors.push(`playAudio in ${message.media?.contentType} at ${message.media?.sampleRate}`);
        return;
      }
      const audio = Buffer.from(message.media.payload, 'base64');
      this.received.bytes += audio.length;
      this.received.frames.push({ atMs: at, bytes: audio.length });
      this.#playedUntil = Math.max(at, this.#playedUntil) + audio.length / 8;
    } else if (message.event === 'checkpoint') {
      if (message.streamId !== this.streamId) return void this.received.errors.push('checkpoint of another stream');
      const name = message.name as string;
      // Plivo answers a checkpoint once the audio queued before it has played.
      this.#pending.push(setTimeout(() => this.#played(name), Math.max(0, this.#playedUntil - at)));
    } else if (message.event === 'clearAudio') {
      if (message.streamId !== this.streamId) return void this.received.errors.push('clearAudio of another stream');
      this.received.clears += 1;
      this.#playedUntil = at;
      this.#send({ event: 'clearedAudio', streamId: this.streamId });
    } else {
      this.received.errors.push(`unknown event ${String(message.event)}`);
    }
  }

  #played(name: string): void {
    this.received.checkpoints.push(name);
    this.#send({ event: 'playedStream', streamId: this.streamId, name });
  }

  say(audio: Buffer): Promise<void> {
    return new Promise((resolve) => this.#queue.push({ audio, offset: 0, done: resolve }));
  }

  /** Resolves once the bridge has sent audio and then nothing for `quietMs` (the agent finished a turn), quiet counted as agentQuiet.ts says. */
  agentFinished(quietMs = 600, timeoutMs = 30_000): Promise<void> {
    return untilAgentQuiet(() => ({ frames: this.received.frames.length, playedUntil: Math.max(this.received.frames.at(-1)?.atMs ?? 0, this.#playedUntil) }), quietMs, timeoutMs);
  }

  /** Plivo ends the stream (the call ended or moved): it closes the socket with a closing handshake. */
  async end(): Promise<void> {
    this.#stopClock();
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(1000);
    await this.closed;
  }

  /** The connection breaks: no closing handshake, the socket just goes. */
  async drop(): Promise<void> {
    this.#stopClock();
    this.socket.terminate();
    await this.closed;
  }

  /** Sends a frame that is not Plivo's; resolves with the code the bridge closes the stream with. */
  async sendRaw(data: string | Buffer): Promise<number> {
    this.#stopClock();
    this.socket.send(data, { binary: Buffer.isBuffer(data) });
    return this.closed;
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }
}
