import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { messageText } from '../../src/calls/line/streamFrames';
import { FRAME_BYTES, mulawRms } from './speechAudio';

/**
 * A realtime speech model on loopback that speaks the OpenAI Realtime WebSocket protocol the
 * Agents SDK uses (GA event names): it takes `session.update`, hears the caller's audio
 * (`input_audio_buffer.append`) with an energy voice detector on the real samples, reports
 * `input_audio_buffer.speech_started` / `speech_stopped`, "transcribes" each utterance with
 * the script's next line, and answers with real audio (`response.output_audio.delta`, 20 ms
 * mu-law frames at real-time pace), its transcript, and function calls (`end_call`,
 * `transfer_to_human`, or any tool with arguments: `response.function_call_arguments.done` and
 * a `function_call` output item) as a model does; it takes the client's `function_call_output`
 * items, and answers a `response.create` carrying instructions (a hold line) out of the script's order.
 */

/** One model turn: words spoken (as audio) and then, maybe, a tool called. */
export interface ModelTurn {
  /** Audio (8 kHz mu-law) and the transcript the model reports for it. */
  say?: { audio: Buffer; transcript: string };
  /** A line tool without arguments, or any function tool with its arguments. */
  call?: 'end_call' | 'transfer_to_human' | { name: string; arguments: Record<string, unknown> };
}

export interface ModelScript {
  /** The model's turns in order: the first answers the bridge's opening `response.create`, each next one a caller utterance. */
  turns: ModelTurn[];
  /** What the model "hears" in each caller utterance, in order (its input transcription). */
  heard: string[];
  /** Audio bytes a second sent while speaking, for this session (a hosted model speaks faster than the line plays); else the server's. */
  bytesPerSecond?: number;
  /** The answer to a `response.create` that carries its own instructions (a hold line); it takes no place among `turns`. */
  instructed?: ModelTurn;
}

export interface FakeRealtimeOptions {
  /** The bearer token it accepts; anything else is refused with 401 at the handshake. */
  apiKey: string;
  /** The script for a session, chosen from its instructions (the call's purpose, say). */
  scriptFor: (instructions: string) => ModelScript;
  /** Audio bytes a second sent while speaking; 8000 is real time. */
  bytesPerSecond?: number;
  /** Off: no voice detection, so the caller never interrupts (the benchmark's audio both ways at once). */
  detectSpeech?: boolean;
  /** Each caller audio chunk as it arrives (the benchmark times frames through the bridge). */
  onAppend?: (session: FakeModelSession, audio: Buffer, atMs: number) => void;
  /** Each audio delta as it is sent. */
  onDelta?: (session: FakeModelSession, audio: Buffer, atMs: number) => void;
}

const VOICED_RMS = 300;
const START_FRAMES = 3;
const SILENCE_TO_STOP_MS = 500;

export class FakeModelSession {
  readonly id = `sess_${randomBytes(6).toString('hex')}`;
  /** Every client event's type, in order. */
  readonly received: string[] = [];
  /** The `session` of every `session.update`. */
  readonly sessionUpdates: Record<string, any>[] = [];
  appendedBytes = 0;
  /** Tool outputs the client sent back (`function_call_output` items). */
  readonly toolOutputs: { call_id: string; output: string }[] = [];
  /** Function calls this model made: the call id, the tool's name and its arguments (JSON text). */
  readonly functionCalls: { call_id: string; name: string; arguments: string }[] = [];
  /** The `response` of every `response.create` that carried one (instructions, tool choice). */
  readonly instructedResponses: Record<string, any>[] = [];
  instructions = '';
  script: ModelScript | null = null;
  #turn = 0;
  #heard = 0;
  readonly #items = new Map<string, Record<string, any>>();
  // Voice detector state, on the input buffer's clock (ms of audio appended).
  #bufferMs = 0;
  #pending = Buffer.alloc(0);
  #voicedRun = 0;
  #speech: { itemId: string; lastVoicedMs: number } | null = null;
  #response: { id: string; timer: NodeJS.Timeout | null; finish: (status: 'completed' | 'cancelled') => void } | null = null;
  closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: FakeRealtimeOptions,
  ) {
    socket.on('message', (data) => this.#onEvent(JSON.parse(messageText(data))));
    socket.on('close', () => {
      this.closed = true;
      this.#response?.finish('cancelled');
    });
    this.#send({ type: 'session.created', session: { id: this.id, object: 'realtime.session', type: 'realtime', model: 'fake-realtime' } });
  }

  #send(event: Record<string, unknown>): void {
    if (this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify({ event_id: `event_${randomBytes(6).toString('hex')}`, ...event }));
  }

  #onEvent(event: Record<string, any>): void {
    this.received.push(event.type);
    switch (event.type) {
      case 'session.update': {
        this.sessionUpdates.push(event.session);
        if (typeof event.session?.instructions === 'string') {
          this.instructions = event.session.instructions;
          this.script ??= this.options.scriptFor(this.instructions);
        }
        this.#send({ type: 'session.updated', session: { id: this.id, ...event.session } });
        break;
      }
      case 'input_audio_buffer.append': {
        const audio = Buffer.from(event.audio, 'base64');
        this.appendedBytes += audio.length;
        this.options.onAppend?.(this, audio, performance.timeOrigin + performance.now());
        if (this.options.detectSpeech !== false) this.#hear(audio);
        break;
      }
      case 'response.create':
        if (event.response?.instructions) this.instructedResponses.push(event.response);
        this.#respond(event.response?.instructions ? this.script?.instructed : undefined);
        break;
      case 'response.cancel':
        this.#response?.finish('cancelled');
        break;
      case 'conversation.item.create': {
        const item = { id: event.item.id ?? `item_${randomBytes(6).toString('hex')}`, ...event.item };
        this.#items.set(item.id, item);
        if (item.type === 'function_call_output') this.toolOutputs.push({ call_id: item.call_id, output: item.output });
        this.#send({ type: 'conversation.item.added', item, previous_item_id: null });
        this.#send({ type: 'conversation.item.done', item, previous_item_id: null });
        break;
      }
      case 'conversation.item.retrieve': {
        const item = this.#items.get(event.item_id);
        if (item) this.#send({ type: 'conversation.item.retrieved', item });
        break;
      }
      case 'conversation.item.truncate':
        this.#send({ type: 'conversation.item.truncated', item_id: event.item_id, content_index: event.content_index, audio_end_ms: event.audio_end_ms });
        break;
      default:
        break;
    }
  }

  /** The voice detector: 20 ms frames; speech after 60 ms voiced, over after 500 ms unvoiced. */
  #hear(audio: Buffer): void {
    this.#pending = Buffer.concat([this.#pending, audio]);
    while (this.#pending.length >= FRAME_BYTES) {
      const frame = this.#pending.subarray(0, FRAME_BYTES);
      this.#pending = this.#pending.subarray(FRAME_BYTES);
      this.#bufferMs += 20;
      const voiced = mulawRms(frame) > VOICED_RMS;
      if (voiced) {
        this.#voicedRun += 1;
        if (this.#speech) this.#speech.lastVoicedMs = this.#bufferMs;
        else if (this.#voicedRun >= START_FRAMES) this.#speechStarted();
      } else {
        this.#voicedRun = 0;
        if (this.#speech && this.#bufferMs - this.#speech.lastVoicedMs >= SILENCE_TO_STOP_MS) this.#speechStopped();
      }
    }
  }

  #speechStarted(): void {
    const itemId = `item_${randomBytes(6).toString('hex')}`;
    this.#speech = { itemId, lastVoicedMs: this.#bufferMs };
    this.#send({ type: 'input_audio_buffer.speech_started', item_id: itemId, audio_start_ms: this.#bufferMs - START_FRAMES * 20 });
    // Server VAD with interrupt_response: the caller talking over the model cancels its answer.
    this.#response?.finish('cancelled');
  }

  #speechStopped(): void {
    const { itemId, lastVoicedMs } = this.#speech!;
    this.#speech = null;
    this.#send({ type: 'input_audio_buffer.speech_stopped', item_id: itemId, audio_end_ms: lastVoicedMs });
    this.#send({ type: 'input_audio_buffer.committed', item_id: itemId, previous_item_id: null });
    const transcript = this.script?.heard[this.#heard++] ?? '';
    const item = { id: itemId, type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] };
    this.#items.set(itemId, { ...item, content: [{ type: 'input_audio', transcript }] });
    this.#send({ type: 'conversation.item.added', item, previous_item_id: null });
    this.#send({ type: 'conversation.item.done', item, previous_item_id: null });
    // Transcription finishes a little after the turn, as a real model's does.
    setTimeout(() => {
      this.#send({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript });
      const turnDetection = this.sessionUpdates.at(-1)?.audio?.input?.turn_detection;
      if (turnDetection?.create_response !== false) this.#respond();
    }, 150);
  }

  /** Answers with the script's next turn, or with `instructed` (an answer outside the script's order). */
  #respond(instructed?: ModelTurn): void {
    if (this.closed) return;
    // One answer at a time: a new one cuts the one still speaking.
    this.#response?.finish('cancelled');
    const turn = instructed ?? this.script?.turns[this.#turn++];
    const responseId = `resp_${randomBytes(6).toString('hex')}`;
    const output: Record<string, any>[] = [];
    this.#send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
    const done = (status: 'completed' | 'cancelled') => {
      if (this.#response?.id !== responseId) return;
      if (this.#response.timer) clearTimeout(this.#response.timer);
      this.#response = null;
      this.#send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status, output, usage: { input_tokens: 10, output_tokens: 20 } } });
    };
    this.#response = { id: responseId, timer: null, finish: done };
    const callTool = () => {
      if (!turn?.call) return;
      const name = typeof turn.call === 'string' ? turn.call : turn.call.name;
      const args = JSON.stringify(typeof turn.call === 'string' ? {} : turn.call.arguments);
      const item = { id: `item_${randomBytes(6).toString('hex')}`, type: 'function_call', status: 'in_progress', name, call_id: `call_${randomBytes(6).toString('hex')}`, arguments: '' };
      this.functionCalls.push({ call_id: item.call_id, name, arguments: args });
      const outputIndex = output.length;
      this.#send({ type: 'response.output_item.added', response_id: responseId, output_index: outputIndex, item });
      this.#send({ type: 'response.function_call_arguments.delta', response_id: responseId, item_id: item.id, output_index: outputIndex, call_id: item.call_id, delta: args });
      this.#send({ type: 'response.function_call_arguments.done', response_id: responseId, item_id: item.id, output_index: outputIndex, call_id: item.call_id, arguments: args });
      const finished = { ...item, status: 'completed', arguments: args };
      output.push(finished);
      this.#items.set(item.id, finished);
      this.#send({ type: 'response.output_item.done', response_id: responseId, output_index: outputIndex, item: finished });
    };
    if (!turn?.say) {
      callTool();
      done('completed');
      return;
    }
    const { audio, transcript } = turn.say;
    const itemId = `item_${randomBytes(6).toString('hex')}`;
    const base = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
    const item = { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] as Record<string, any>[] };
    this.#send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item });
    this.#send({ type: 'conversation.item.added', item, previous_item_id: null });
    this.#send({ type: 'response.content_part.added', ...base, part: { type: 'audio', transcript: '' } });
    const words = transcript.split(' ');
    const frames = Math.ceil(audio.length / FRAME_BYTES);
    const intervalMs = (FRAME_BYTES / (this.script?.bytesPerSecond ?? this.options.bytesPerSecond ?? 8000)) * 1000;
    let sent = 0;
    let streamedWords = 0;
    const finishAudio = (status: 'completed' | 'cancelled') => {
      // A cancelled answer's transcript is the words generated with its audio so far, as the API's.
      const said = status === 'completed' ? transcript : words.slice(0, streamedWords).join(' ');
      const spoken = { ...item, status: 'completed', content: [{ type: 'output_audio', transcript: said }] };
      output.push(spoken);
      this.#items.set(itemId, spoken);
      this.#send({ type: 'response.output_audio.done', ...base });
      this.#send({ type: 'response.output_audio_transcript.done', ...base, transcript: said });
      this.#send({ type: 'response.content_part.done', ...base, part: { type: 'audio', transcript: said } });
      this.#send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: spoken });
      this.#send({ type: 'conversation.item.done', item: spoken, previous_item_id: null });
      if (status === 'completed') callTool();
      done(status);
    };
    this.#response.finish = (status) => {
      if (this.#response?.id !== responseId) return;
      if (this.#response.timer) clearTimeout(this.#response.timer);
      this.#response.timer = null;
      finishAudio(status);
    };
    const tick = () => {
      const chunk = audio.subarray(sent * FRAME_BYTES, (sent + 1) * FRAME_BYTES);
      this.options.onDelta?.(this, chunk, performance.timeOrigin + performance.now());
      this.#send({ type: 'response.output_audio.delta', ...base, delta: chunk.toString('base64') });
      // The transcript streams alongside, a word every so often.
      const word = Math.floor((sent * words.length) / frames);
      if (word !== Math.floor(((sent - 1) * words.length) / frames) && words[word]) {
        this.#send({ type: 'response.output_audio_transcript.delta', ...base, delta: `${word ? ' ' : ''}${words[word]}` });
        streamedWords = word + 1;
      }
      sent += 1;
      if (sent >= frames) this.#response?.finish('completed');
    };
    // Paced by the clock, catching up when this process fell behind, as a sender of real-time audio does.
    const began = performance.now();
    const pace = () => {
      const due = Math.min(frames, Math.floor((performance.now() - began) / intervalMs) + 1);
      while (sent < due && this.#response?.id === responseId) tick();
      if (this.#response?.id === responseId && sent < frames) this.#response.timer = setTimeout(pace, Math.max(1, began + sent * intervalMs - performance.now()));
    };
    pace();
  }
}

export interface FakeRealtime {
  /** ws://127.0.0.1:<port>/v1/realtime */
  url: string;
  sessions: FakeModelSession[];
  /** Handshakes refused (a wrong key). */
  refused: number;
  close(): Promise<void>;
}

export async function startFakeRealtime(options: FakeRealtimeOptions): Promise<FakeRealtime> {
  const sessions: FakeModelSession[] = [];
  const state = { refused: 0 };
  const http: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req: IncomingMessage, socket, head) => {
    if (req.headers.authorization !== `Bearer ${options.apiKey}`) {
      state.refused += 1;
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => sessions.push(new FakeModelSession(ws, options)));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/v1/realtime`,
    sessions,
    get refused() {
      return state.refused;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
