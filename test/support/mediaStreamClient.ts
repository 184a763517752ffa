import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { messageText } from '../../src/calls/line/streamFrames';
import { untilAgentQuiet } from './agentQuiet';
import { FRAME_BYTES, MULAW_SILENCE } from './speechAudio';

/**
 * Twilio's side of a bidirectional media stream (<Connect><Stream>), as Twilio speaks it:
 * `connected`, `start` (with the TwiML's custom parameters), a `media` frame every 20 ms for
 * as long as the stream lasts (8 kHz mu-law, 160 bytes; silence when the person says
 * nothing), `mark` echoed once the audio sent before it has played, `stop` when the call
 * ends. It plays what `say` is given at real-time pace and keeps what the bridge sends back.
 */
export interface ReceivedAudio {
  bytes: number;
  /** When each `media` message arrived (epoch ms) and its size. */
  frames: { atMs: number; bytes: number }[];
  clears: number;
  marks: string[];
}

/** Epoch ms with sub-millisecond resolution, comparable across this process's clocks. */
const now = () => performance.timeOrigin + performance.now();

export interface MediaStreamHooks {
  /** Each frame as it is sent (the benchmark stamps and times frames). */
  onSend?: (frame: Buffer, atMs: number) => void;
  /** Each `media` payload from the bridge as it arrives. */
  onAudio?: (audio: Buffer, atMs: number) => void;
}

export class MediaStreamClient {
  readonly streamSid = `MZ${randomBytes(16).toString('hex')}`;
  readonly callSid = `CA${randomBytes(16).toString('hex')}`;
  readonly received: ReceivedAudio = { bytes: 0, frames: [], clears: 0, marks: [] };
  /** Frames sent, and when (epoch ms). */
  readonly sent: { atMs: number; bytes: number; voiced: boolean }[] = [];
  readonly closed: Promise<void>;
  /** Audio waiting to be spoken, a frame at a time; silence when empty. */
  #queue: { audio: Buffer; offset: number; done: () => void }[] = [];
  #sequence = 0;
  #chunk = 0;
  #startedAt = 0;
  #timer: NodeJS.Timeout | null = null;
  /** When the bridge's audio sent so far finishes playing on this "phone" (epoch ms). */
  #playedUntil = 0;
  #pendingMarks: NodeJS.Timeout[] = [];
  /** Frames are sent on the stream clock; this process's lag shows as a late frame, never a lost one. */
  #nextFrameAt = 0;

  private constructor(
    private readonly socket: WebSocket,
    private readonly hooks: MediaStreamHooks,
  ) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('message', (data) => this.#onMessage(JSON.parse(messageText(data))));
    socket.once('close', () => this.#stopClock());
  }

  /** `headers`: the handshake's (Twilio signs it: `X-Twilio-Signature`). */
  static async connect(url: string, customParameters: Record<string, string>, hooks: MediaStreamHooks = {}, headers: Record<string, string> = {}): Promise<MediaStreamClient> {
    const socket = new WebSocket(url, { headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const client = new MediaStreamClient(socket, hooks);
    client.#begin(customParameters);
    return client;
  }

  #send(message: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ ...message, sequenceNumber: String(++this.#sequence) }));
  }

  #begin(customParameters: Record<string, string>): void {
    this.socket.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    this.#send({
      event: 'start',
      streamSid: this.streamSid,
      start: {
        accountSid: 'AC00000000000000000000000000000000',
        streamSid: this.streamSid,
        callSid: this.callSid,
        tracks: ['inbound'],
        customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    this.#startedAt = Date.now();
    this.#nextFrameAt = this.#startedAt;
    this.#tick();
  }

  /** One frame per 20 ms of stream time, caught up if this process fell behind. */
  #tick(): void {
    const now = Date.now();
    while (this.#nextFrameAt <= now && this.socket.readyState === WebSocket.OPEN) {
      this.#sendFrame();
      this.#nextFrameAt += 20;
    }
    if (this.socket.readyState === WebSocket.OPEN) this.#timer = setTimeout(() => this.#tick(), Math.max(1, this.#nextFrameAt - Date.now()));
  }

  #sendFrame(): void {
    const frame = Buffer.alloc(FRAME_BYTES, MULAW_SILENCE);
    const current = this.#queue[0];
    let voiced = false;
    if (current) {
      current.audio.copy(frame, 0, current.offset, current.offset + FRAME_BYTES);
      current.offset += FRAME_BYTES;
      voiced = true;
      if (current.offset >= current.audio.length) {
        this.#queue.shift();
        current.done();
      }
    }
    const timestamp = this.#chunk * 20;
    this.#chunk += 1;
    const atMs = now();
    this.#send({ event: 'media', streamSid: this.streamSid, media: { track: 'inbound', chunk: String(this.#chunk), timestamp: String(timestamp), payload: frame.toString('base64') } });
    this.sent.push({ atMs, bytes: FRAME_BYTES, voiced });
    this.hooks.onSend?.(frame, atMs);
  }

  #stopClock(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    for (const mark of this.#pendingMarks) clearTimeout(mark);
  }

  #onMessage(message: Record<string, any>): void {
    const at = now();
    if (message.event === 'media') {
      const audio = Buffer.from(message.media.payload, 'base64');
      this.received.bytes += audio.length;
      this.received.frames.push({ atMs: at, bytes: audio.length });
      this.#playedUntil = Math.max(at, this.#playedUntil) + audio.length / 8;
      this.hooks.onAudio?.(audio, at);
    } else if (message.event === 'mark') {
      const name = message.mark.name as string;
      // Twilio answers a mark when the audio before it has played.
      const timer = setTimeout(() => this.#echoMark(name), Math.max(0, this.#playedUntil - at));
      this.#pendingMarks.push(timer);
    } else if (message.event === 'clear') {
      this.received.clears += 1;
      this.#playedUntil = at;
    }
  }

  #echoMark(name: string): void {
    this.received.marks.push(name);
    this.#send({ event: 'mark', streamSid: this.streamSid, mark: { name } });
  }

  /** Speaks `audio` (8 kHz mu-law) from the next frame on; resolves when its last frame is sent. */
  say(audio: Buffer): Promise<void> {
    return new Promise((resolve) => this.#queue.push({ audio, offset: 0, done: resolve }));
  }

  /** Resolves once the bridge has sent audio and then nothing for `quietMs` (the agent finished a turn), quiet counted as agentQuiet.ts says. */
  agentFinished(quietMs = 600, timeoutMs = 30_000): Promise<void> {
    return untilAgentQuiet(() => ({ frames: this.received.frames.length, playedUntil: Math.max(this.received.frames.at(-1)?.atMs ?? 0, this.#playedUntil) }), quietMs, timeoutMs);
  }

  /** Twilio ends the stream (the call ended or moved): `stop`, then the socket closes. */
  async stop(): Promise<void> {
    this.#stopClock();
    this.#send({ event: 'stop', streamSid: this.streamSid, stop: { accountSid: 'AC00000000000000000000000000000000', callSid: this.callSid } });
    this.socket.close();
    await this.closed;
  }

  /** Sends a frame that is not Twilio's (a hostile peer's); resolves with the code the bridge closes the stream with. */
  async sendRaw(data: string | Buffer): Promise<number> {
    const closed = new Promise<number>((resolve) => this.socket.once('close', (code) => resolve(code)));
    this.socket.send(data, { binary: Buffer.isBuffer(data) });
    return closed;
  }

  /** The connection breaks: no `stop`, the socket just goes. */
  async drop(): Promise<void> {
    this.#stopClock();
    this.socket.terminate();
    await this.closed;
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Ms since the stream started. */
  get streamMs(): number {
    return Date.now() - this.#startedAt;
  }
}
