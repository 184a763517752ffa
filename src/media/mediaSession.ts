import { performance } from 'node:perf_hooks';
import type { Db } from 'mongodb';
import WebSocket from 'ws';
import { RealtimeSession, type TransportLayerAudio } from '@openai/agents-realtime';
import type { CallOutcome } from '../calls/types';
import type { Logger } from '../observability/logger';
import type { LineControl, LineEvent } from '../calls/voiceLine';
import { lineCalls, markMedia } from '../calls/line/lineCalls';
import { AgentPlayout } from './agentPlayout';
import { callTools, HOLD_LINE_INSTRUCTIONS, type CallToolSettings, type HandOverAnswer } from './callTools';
import { decideHandOver, HAND_OVER_LINE_INSTRUCTIONS, type HandOverRequest } from './callHandOver';
import { lineAgent, type LineTool } from './lineAgent';
import { loadCallContext, type CallContext } from './callContext';
import { CallRecording, recordingReference, storeRecording } from './callRecording';
import type { LineEventSink } from './lineEvents';
import type { MediaMetrics } from './mediaMetrics';
import { TurnLog } from './turnLog';
import { decodeFrame } from '../calls/line/streamFrames';
import { StreamOrder, VIOLATION_CLOSE_CODE, type StreamFrame, type StreamFrameReader, type StreamProtocol, type StreamViolation } from '../calls/line/streamProtocol';
import { createPhoneTransport, type PhoneTransport } from './phoneTransport';
import { TransportSocket } from './transportSocket';

export interface RealtimeEndpoint {
  /** A ws:// or wss:// URL speaking the OpenAI Realtime protocol; `?model=` is added unless present. */
  url: string;
  model: string;
  /** Unset: every call ends as `setup_error` (the process still runs and answers health checks). */
  apiKey: string | undefined;
}

export interface MediaBridgeDeps {
  db: Db;
  lineEvents: LineEventSink;
  /** The telephony network's hang-up and transfer (the provider adapter's in production). */
  lineControl: LineControl;
  /** The provider's media-stream protocol: its handshake, its frames both ways (src/calls/line/streamProtocol.ts). */
  streamProtocol: StreamProtocol;
  realtime: RealtimeEndpoint;
  recordingsDir: string;
  /** A ceiling on every call's length, below the agent's own maximum (MEDIA_MAX_CALL_SECONDS). */
  maxCallSecondsCap?: number;
  metrics: MediaMetrics;
  logger: Logger;
  /** The agent's tools mid-call (the process's toolbox) and the call's latency budget for them. */
  tools: CallToolSettings;
}

/**
 * Why a session ended. `stop`: the provider ended the stream (the caller hung up, or the call was
 * ended or moved on the network), and its status callback reports the outcome. The others
 * are decided here and told to the call's workflow before the network is asked to act.
 */
export type EndReason = 'stop' | 'agent_hangup' | 'idle' | 'max_duration' | 'transfer' | 'dropped' | 'invalid_stream' | 'setup_error' | 'shutdown';

/** The outcome the call's workflow is told for an end the bridge decided. */
const OUTCOME: Record<Exclude<EndReason, 'stop'>, CallOutcome> = {
  agent_hangup: 'agent_hangup',
  idle: 'idle',
  max_duration: 'max_duration',
  // A transfer without a team line cannot be asked for (the tool is only offered with one).
  transfer: 'agent_hangup',
  // The media failed after the answer: the agent is no longer on the line (docs/media.md).
  dropped: 'setup_error',
  // The stream broke its provider's protocol: the bridge cannot trust it to carry the call.
  invalid_stream: 'setup_error',
  shutdown: 'setup_error',
  setup_error: 'setup_error',
};

/** How long the bridge waits for the agent's last words to play before it hangs up or transfers. */
const DRAIN_LIMIT_MS = 10_000;
/** After a transfer the provider ends the stream itself; past this the bridge closes it. */
const TRANSFER_CLOSE_MS = 10_000;
/** How long a tool's hand-over waits for the SDK to give the tool's answer back before the hold line is asked anyway. */
const HAND_OVER_START_MS = 2_000;

/**
 * One call's media stream bridged to a realtime model through the Agents SDK's phone
 * transport (phoneTransport.ts), the stream's frames read and written by its provider's
 * protocol (StreamProtocol): the SDK moves the audio both ways and runs the tools; this session decides when
 * the call ends (the agent's tools, silence, the maximum length, a dropped socket), tells the
 * workflow, asks the network, and keeps the turns and the recording.
 */
export class MediaSession {
  readonly #socket: WebSocket;
  readonly #deps: MediaBridgeDeps;
  readonly #transport: PhoneTransport;
  readonly #playout = new AgentPlayout();
  #session: RealtimeSession | null = null;
  #call: CallContext | null = null;
  #turns: TurnLog | null = null;
  #recording: CallRecording | null = null;
  #streamStartedAt = 0;
  /** Stream time (ms) of the first caller frame the model heard: its input clock's zero. */
  #modelInputZeroMs: number | null = null;
  #personSpeaking = false;
  #idleTimer: NodeJS.Timeout | null = null;
  #maxTimer: NodeJS.Timeout | null = null;
  #ending: Promise<void> | null = null;
  #sawStop = false;
  readonly #callId: string;
  readonly #order: StreamOrder;
  readonly #readFrame: StreamFrameReader;
  readonly #transportSocket: TransportSocket;
  #lastModelMessageAt = 0;
  #agentItemId: string | null = null;
  /** A tool's hand-over under way: the model's call id of the tool that asked, and whether its hold line was asked. */
  #handOver: { toolCallId: string; lineAsked: boolean; fallback: NodeJS.Timeout } | null = null;
  readonly ended: Promise<EndReason>;
  #resolveEnded!: (reason: EndReason) => void;

  constructor(socket: WebSocket, deps: MediaBridgeDeps, callId: string) {
    this.#socket = socket;
    this.#deps = deps;
    this.#callId = callId;
    this.#order = new StreamOrder(callId);
    this.#readFrame = deps.streamProtocol.reader();
    this.ended = new Promise((resolve) => (this.#resolveEnded = resolve));
    deps.metrics.sessions.inc();
    // The transport never sees the socket itself, only the messages checked here (transportSocket.ts).
    this.#transportSocket = new TransportSocket(socket, deps.streamProtocol);
    socket.on('message', (data, isBinary) => this.#onFrame(data, isBinary));
    socket.on('close', (code) => void this.end(this.#sawStop || deps.streamProtocol.closedByProvider(code) ? 'stop' : 'dropped'));
    socket.on('error', (err: Error & { code?: string }) => {
      // `ws` closes the socket itself (1009 for a frame over maxPayload, 1002/1007 for a bad frame).
      const kind = err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 'oversized' : 'socket_error';
      deps.metrics.streamViolations.inc({ kind });
      deps.logger.warn({ err, callId, kind }, 'media stream socket error: the stream ends');
      void this.end('invalid_stream');
    });
    this.#transport = createPhoneTransport(this.#transportSocket, async ({ url, apiKey }) => {
      const model = new WebSocket(url, { headers: { Authorization: `Bearer ${apiKey}` } });
      // Before the SDK's own listener, for the outbound latency.
      model.on('message', () => (this.#lastModelMessageAt = performance.now()));
      return model;
    });
    // The transport reports what it could not do as `error` events: without a listener they would throw.
    this.#transport.on('error', (event: { error?: unknown }) => deps.logger.warn({ err: event?.error, callId }, 'realtime transport error'));
    // Emitted just before the transport forwards the same delta (its `audio` event): names the
    // item, and counts the audio the model generated for it (what a truncation is a share of).
    this.#transport.on('response.output_audio.delta', (event: { item_id: string; delta?: string }) => {
      this.#agentItemId = event.item_id;
      this.#turns?.audioGenerated(event.item_id, base64Bytes(event.delta ?? ''));
    });
    // The SDK cut an agent item where the caller interrupted it; the model echoes the point.
    this.#transport.on('conversation.item.truncated', (event: { item_id: string; audio_end_ms: number }) => this.#turns?.truncated(event.item_id, event.audio_end_ms));
    this.#transport.on('audio', (event: TransportLayerAudio) => this.#agentAudio(event));
    this.#transport.on('audio_interrupted', () => this.#interrupted());
    this.#transport.on('input_audio_buffer.speech_started', (event: { item_id: string; audio_start_ms: number }) => this.#speechStarted(event));
    this.#transport.on('input_audio_buffer.speech_stopped', () => this.#speechStopped());
    this.#transport.on('conversation.item.input_audio_transcription.completed', (event: { item_id: string; transcript: string }) =>
      this.#turns?.complete(event.item_id, 'user', event.transcript, new Date()),
    );
    this.#transport.on('response.output_audio_transcript.done', (event: { item_id: string; transcript: string }) =>
      this.#turns?.complete(event.item_id, 'model', event.transcript, new Date()),
    );
    this.#transport.on('connection_change', (status: string) => {
      if (status === 'disconnected' && this.#session && !this.#ending && socket.readyState === WebSocket.OPEN) {
        deps.logger.warn({ callId: this.#call?.line._id }, 'the realtime model closed its connection mid-call');
        void this.end('setup_error');
      }
    });
  }

  /**
   * Every frame from the stream: checked (its provider's message, in its place) before anything reads
   * it; a frame that is not ends this stream with a close code saying why, and only this stream.
   */
  #onFrame(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.#ending) return;
    const decoded = decodeFrame(data, isBinary);
    const read = decoded.ok ? this.#readFrame(decoded.json) : decoded;
    const refused = read.ok ? this.#order.admit(read.frame) : read;
    if (refused) {
      this.#refuse(refused.violation, refused.why);
      return;
    }
    const { frame } = read as Extract<typeof read, { ok: true }>;
    const arrived = performance.now();
    try {
      this.#beforeTransport(frame);
      this.#transportSocket.deliver(frame);
      if (frame.kind === 'media' && this.#transport.status === 'connected') {
        this.#deps.metrics.forwardSeconds.observe({ direction: 'inbound' }, (performance.now() - arrived) / 1000);
      }
    } catch (err) {
      // A valid message the bridge or the SDK still failed on: this call's problem, not the process's.
      this.#deps.logger.error({ err, callId: this.#callId, event: frame.kind }, 'a stream message could not be handled');
      void this.end('setup_error');
    }
  }

  #refuse(violation: StreamViolation, why: string): void {
    this.#deps.metrics.streamViolations.inc({ kind: violation });
    this.#deps.logger.warn({ callId: this.#callId, violation, why }, 'media stream message refused: the stream is closed');
    // Closed at once, before the call's end is told and the line hung up: nothing more is read from it.
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.close(VIOLATION_CLOSE_CODE[violation], violation);
    void this.end('invalid_stream');
  }

  #beforeTransport(frame: StreamFrame): void {
    switch (frame.kind) {
      case 'start':
        this.#start().catch((err: unknown) => {
          this.#deps.logger.error({ err }, 'media session failed to start');
          void this.end('setup_error');
        });
        break;
      case 'media': {
        this.#deps.metrics.frames.inc({ direction: 'inbound' });
        const audio = Buffer.from(frame.payload, 'base64');
        const streamMs = frame.streamMs;
        this.#recording?.caller(audio, streamMs);
        if (this.#modelInputZeroMs === null && this.#transport.status === 'connected') this.#modelInputZeroMs = streamMs;
        break;
      }
      case 'stop':
        this.#sawStop = true;
        void this.end('stop');
        break;
      default:
        break;
    }
  }

  async #start(): Promise<void> {
    this.#streamStartedAt = Date.now();
    const { logger } = this.#deps;
    const callId = this.#callId;
    try {
      this.#call = await loadCallContext(this.#deps.db, callId);
    } catch (err) {
      logger.warn({ err, callId }, 'the media stream’s call cannot be bridged: closed');
      this.#socket.close();
      return;
    }
    const call = this.#call;
    // Noted so the provider's report of the call's end can tell a stream this bridge ended from one
    // lost with a killed media process (src/calls/line/lineReports.ts).
    await markMedia(this.#deps.db, callId, 'started', new Date(this.#streamStartedAt));
    this.#turns = new TurnLog(this.#deps.db, { callId, tenantId: call.line.tenant_id }, (err) =>
      logger.warn({ err, callId }, 'a transcript turn was not stored'),
    );
    if (call.line.recording) {
      this.#recording = new CallRecording(this.#streamStartedAt);
      // The reference is the call's from the start: the call's finish step may run before this
      // session ends and writes the file (the provider's report of a hang-up races the stream's stop).
      await lineCalls(this.#deps.db).updateOne({ _id: callId }, { $set: { recording_uri: recordingReference(call.line.tenant_id, callId).uri } });
    }
    if (this.#ending) return;
    const { realtime } = this.#deps;
    if (!realtime.apiKey) {
      logger.warn({ callId }, 'REALTIME_API_KEY is not set: the call cannot be bridged');
      await this.end('setup_error');
      return;
    }
    const agent = lineAgent(
      call,
      {
        endCall: () => void this.end('agent_hangup'),
        transferToHuman: () => void this.end('transfer'),
      },
      await this.#agentTools(call),
    );
    if (this.#ending) return;
    const session = new RealtimeSession(agent, {
      transport: this.#transport,
      model: realtime.model,
      tracingDisabled: true,
      config: {
        audio: {
          input: {
            transcription: { model: 'gpt-4o-mini-transcribe', language: call.voice.language.split('-')[0] },
            turnDetection: { type: 'server_vad', interruptResponse: true },
          },
          output: { voice: call.voice.voice },
        },
      },
    });
    session.on('error', (event: { error: unknown }) => logger.warn({ err: event.error, callId }, 'realtime session error'));
    // A tool's answer has reached the model (the SDK sends it, then says so): a hand-over it asked for goes on from here.
    session.on('agent_tool_end', (_context, _agent, _tool, _result, details) => {
      const toolCall = details.toolCall as { callId?: string };
      if (this.#handOver && toolCall.callId === this.#handOver.toolCallId) void this.#holdLineThenTransfer();
    });
    this.#session = session;
    try {
      await session.connect({ apiKey: realtime.apiKey, url: withModel(realtime.url, realtime.model) });
    } catch (err) {
      logger.warn({ err, callId }, 'could not open the realtime session');
      await this.end('setup_error');
      return;
    }
    if (this.#ending) return;
    // The agent speaks first: the outbound opening or the inbound greeting (its instructions).
    this.#transport.requestResponse();
    const limitSeconds = Math.min(call.maxCallSeconds, this.#deps.maxCallSecondsCap ?? Infinity);
    this.#maxTimer = setTimeout(() => void this.end('max_duration'), this.#streamStartedAt + limitSeconds * 1000 - Date.now());
    this.#armIdle();
  }

  /**
   * The agent's own tools for this call, from the toolbox; a toolbox that fails leaves the
   * agent with its line tools only (the call goes on without them, and the log says why).
   */
  async #agentTools(call: CallContext): Promise<LineTool[]> {
    const { tools, logger } = this.#deps;
    const context = { tenantId: call.line.tenant_id, agentId: call.line.request.agentId, channel: 'voice' as const };
    let listed;
    try {
      listed = await tools.toolbox.toolsFor(context);
    } catch (err) {
      logger.warn({ err, callId: this.#callId }, 'the agent’s tools could not be listed: the call goes on without them');
      return [];
    }
    return callTools(listed, tools, {
      // The person on the line: the callee of an outbound call, the caller of an inbound one.
      context: { ...context, callId: this.#callId, customerPhone: call.line.request.to },
      sayHoldLine: () => {
        if (!this.#ending && this.#transport.status === 'connected') this.#transport.requestResponse({ instructions: HOLD_LINE_INSTRUCTIONS, tool_choice: 'none' });
      },
      trail: (entry, at) => this.#turns?.trail(entry, at),
      handOver: (request) => this.#toolHandOver(call, request),
    });
  }

  /**
   * One of the agent's tools asked for a person (src/media/callHandOver.ts): the first such
   * request with a team line starts the transfer once the tool's answer is back with the model
   * (the hold line, then `end('transfer')`); without a team line the model is told it cannot.
   */
  #toolHandOver(call: CallContext, request: HandOverRequest & { toolCallId: string }): HandOverAnswer {
    const decision = decideHandOver(request, call.teamLine, this.#handOver !== null || this.#ending !== null);
    if (decision.trail) this.#turns?.trail(decision.trail, new Date());
    if (decision.starts) {
      // Should the SDK not report the answer sent (a reconnected session drops it), the hand-over still goes on.
      this.#handOver = { toolCallId: request.toolCallId, lineAsked: false, fallback: setTimeout(() => void this.#holdLineThenTransfer(), HAND_OVER_START_MS) };
    }
    return decision.answer;
  }

  /** The hand-over's hold line, said by the model as a response of its own, then the transfer (once). */
  async #holdLineThenTransfer(): Promise<void> {
    const handOver = this.#handOver;
    if (!handOver || handOver.lineAsked) return;
    handOver.lineAsked = true;
    clearTimeout(handOver.fallback);
    if (!this.#ending && this.#transport.status === 'connected') await this.#respondAndWait({ instructions: HAND_OVER_LINE_INSTRUCTIONS, tool_choice: 'none' }, DRAIN_LIMIT_MS);
    // The hold line's audio still playing is let out by the drain before the line changes.
    await this.end('transfer');
  }

  /** Asks the model for a response and waits until it is generated (its audio may still be playing), at most `limitMs`. */
  #respondAndWait(response: { instructions: string; tool_choice: 'none' }, limitMs: number): Promise<void> {
    const transport = this.#transport;
    const socket = this.#socket;
    return new Promise((resolve) => {
      let responseId: string | null = null;
      const created = (event: { response?: { id?: string } }) => (responseId ??= event.response?.id ?? null);
      const done = (event: { response?: { id?: string } }) => {
        if (responseId !== null && event.response?.id === responseId) finish();
      };
      const timer = setTimeout(() => finish(), limitMs);
      function finish() {
        clearTimeout(timer);
        transport.off('response.created', created);
        transport.off('response.done', done);
        socket.off('close', finish);
        resolve();
      }
      transport.on('response.created', created);
      transport.on('response.done', done);
      // The caller hung up meanwhile: nothing more to wait for.
      socket.once('close', finish);
      transport.requestResponse(response);
    });
  }

  #agentAudio(event: TransportLayerAudio): void {
    const now = Date.now();
    this.#deps.metrics.frames.inc({ direction: 'outbound' });
    if (this.#lastModelMessageAt) this.#deps.metrics.forwardSeconds.observe({ direction: 'outbound' }, (performance.now() - this.#lastModelMessageAt) / 1000);
    const audio = new Uint8Array(event.data);
    const startsAt = this.#playout.place(audio.byteLength, now);
    this.#recording?.agent(audio, startsAt);
    const itemId = this.#agentItemId;
    if (itemId) this.#turns?.begin(itemId, 'model', new Date(startsAt));
    this.#armIdle();
  }

  #interrupted(): void {
    const now = Date.now();
    this.#playout.interrupt(now);
    this.#recording?.interrupted(now);
  }

  #speechStarted(event: { item_id: string; audio_start_ms: number }): void {
    this.#personSpeaking = true;
    this.#clearIdle();
    const zero = this.#modelInputZeroMs ?? Date.now() - this.#streamStartedAt;
    this.#turns?.begin(event.item_id, 'user', new Date(this.#streamStartedAt + zero + event.audio_start_ms));
  }

  #speechStopped(): void {
    this.#personSpeaking = false;
    this.#armIdle();
  }

  /** Silence: neither the person speaking nor the agent's audio playing, for the agent's idle seconds. */
  #armIdle(): void {
    this.#clearIdle();
    if (this.#personSpeaking || this.#ending || !this.#call) return;
    const quietFrom = Math.max(Date.now(), this.#playout.endMs);
    this.#idleTimer = setTimeout(() => void this.end('idle'), quietFrom - Date.now() + this.#call.voice.idle_seconds * 1000);
  }

  #clearIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  /** Ends the session once, for the first reason given; later calls wait for that end. */
  end(reason: EndReason): Promise<void> {
    // #finish starts a tick later, once #ending is set: it closes the realtime session, whose
    // `disconnected` event would otherwise find no end under way and end the call a second
    // time, as setup_error (a caller's hang-up was reported so before the provider's own report).
    this.#ending ??= Promise.resolve()
      .then(() => this.#finish(reason))
      .catch((err: unknown) => {
        this.#deps.logger.error({ err, reason }, 'media session did not end cleanly');
      });
    return this.#ending;
  }

  async #finish(reason: EndReason): Promise<void> {
    const { logger, lineControl, metrics } = this.#deps;
    this.#clearIdle();
    if (this.#maxTimer) clearTimeout(this.#maxTimer);
    if (this.#handOver) clearTimeout(this.#handOver.fallback);
    const call = this.#call;
    const callId = call?.line._id;
    try {
      // Noted before the call is told, with whether the agent's media was lost: the line's own
      // report of this end, which may land first, then says the same (reportLineStatus).
      if (call) await markMedia(this.#deps.db, call.line._id, 'ended', new Date(), reason !== 'stop' && OUTCOME[reason] === 'setup_error');
    } catch (err) {
      logger.warn({ err, callId, reason }, 'the media session’s end was not noted');
    }
    try {
      if (call && (reason === 'agent_hangup' || reason === 'transfer')) await this.#drain();
      if (call && reason !== 'stop') {
        const at = new Date().toISOString();
        if (reason === 'transfer' && call.teamLine) {
          await this.#report(call.line._id, { kind: 'human_handoff', at });
          this.#session?.close();
          await lineControl.transferCall(call.line._id, call.teamLine);
        } else {
          await this.#report(call.line._id, { kind: 'ended', outcome: OUTCOME[reason], at });
          this.#session?.close();
          await lineControl.endCall(call.line._id);
        }
      }
    } catch (err) {
      logger.warn({ err, callId, reason }, 'ending the call on the line failed');
    }
    try {
      this.#session?.close();
    } catch (err) {
      logger.warn({ err, callId }, 'closing the realtime session failed');
    }
    if (this.#socket.readyState === WebSocket.OPEN) {
      // After a transfer the provider ends the stream itself once the call has moved to the team line.
      if (reason === 'transfer') this.#closeAfter(TRANSFER_CLOSE_MS);
      else this.#socket.close();
    }
    try {
      await this.#keep(reason);
    } finally {
      metrics.sessions.dec();
      metrics.sessionsEnded.inc({ reason: call ? reason : 'refused' });
      logger.info({ callId, reason }, 'media session ended');
      this.#resolveEnded(reason);
    }
  }

  #closeAfter(ms: number): void {
    const timer = setTimeout(() => this.#socket.close(), ms);
    this.#socket.once('close', () => clearTimeout(timer));
  }

  async #report(callId: string, event: LineEvent): Promise<void> {
    try {
      await this.#deps.lineEvents.report(callId, event);
    } catch (err) {
      // The network's own report of the end still reaches the workflow.
      this.#deps.logger.warn({ err, callId, event }, 'line event not delivered to the call workflow');
    }
  }

  /** Lets the agent's last words play out (goodbye, "connecting you now") before the line changes. */
  async #drain(): Promise<void> {
    const wait = Math.min(this.#playout.endMs - Date.now(), DRAIN_LIMIT_MS);
    if (wait <= 0 || this.#socket.readyState !== WebSocket.OPEN) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.#socket.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The turns and, when the number records, the recording: kept however the call ended. */
  async #keep(reason: EndReason): Promise<void> {
    const call = this.#call;
    if (!call) return;
    await this.#turns?.flush();
    if (!this.#recording) return;
    try {
      // Its reference was given to the call when recording started (#start).
      await storeRecording(this.#deps.recordingsDir, call.line.tenant_id, call.line._id, this.#recording.wav());
    } catch (err) {
      this.#deps.logger.error({ err, callId: call.line._id, reason }, 'the call recording was not stored');
    }
  }
}

/** The byte length of base64 text, without decoding it. */
function base64Bytes(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Math.floor((text.length * 3) / 4) - padding;
}

/** The endpoint URL with the model named, as OpenAI's expects (`?model=`), unless it already names one. */
export function withModel(url: string, model: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('model')) parsed.searchParams.set('model', model);
  return parsed.toString();
}

