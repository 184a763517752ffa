import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export type FrameDirection = 'inbound' | 'outbound';

/**
 * The media process's own series, beside Node's defaults: live sessions, audio frames each
 * way, and how long the bridge holds a frame (from its message reaching the bridge to its
 * forward written to the other socket; inbound = caller → model, outbound = model → caller).
 */
export interface MediaMetrics {
  sessions: Gauge;
  sessionsEnded: Counter<'reason'>;
  streamsRefused: Counter<'reason'>;
  streamViolations: Counter<'kind'>;
  frames: Counter<'direction'>;
  forwardSeconds: Histogram<'direction'>;
}

export function createMediaMetrics(registry: Registry): MediaMetrics {
  return {
    sessions: new Gauge({ name: 'media_sessions_live', help: 'Media-stream sessions bridged right now.', registers: [registry] }),
    sessionsEnded: new Counter({
      name: 'media_sessions_ended_total',
      help: 'Media-stream sessions ended, by why (stop, agent_hangup, idle, max_duration, transfer, dropped, setup_error, refused).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    streamsRefused: new Counter({
      name: 'media_streams_refused_total',
      help: 'Stream handshakes refused before the WebSocket opened, by why (path, signature, secret, unknown_call, ended, taken, unavailable).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    streamViolations: new Counter({
      name: 'media_stream_violations_total',
      help: 'Streams ended for a frame that broke the protocol, by kind (binary, not_json, invalid_message, out_of_order, call_mismatch, oversized, socket_error).',
      labelNames: ['kind'],
      registers: [registry],
    }),
    frames: new Counter({
      name: 'media_frames_total',
      help: 'Audio frames bridged: inbound from the caller to the model, outbound from the model to the caller.',
      labelNames: ['direction'],
      registers: [registry],
    }),
    forwardSeconds: new Histogram({
      name: 'media_bridge_latency_seconds',
      help: 'Time the bridge holds an audio frame, from its message arriving to its forward written.',
      labelNames: ['direction'],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1],
      registers: [registry],
    }),
  };
}
