import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { Registry } from 'prom-client';
import { callCollections } from '../../src/calls/callStore';
import { createToolbox } from '../../src/agents';
import type { CallToolSettings } from '../../src/media/callTools';
import { createMediaMetrics } from '../../src/media/mediaMetrics';
import { createMediaServer, MEDIA_STREAM_PATH, type MediaServer } from '../../src/media/mediaServer';
import { temporalLineEvents } from '../../src/media/lineEvents';
import { freePort } from '../../src/local/net';
import { createLogger } from '../../src/observability/logger';
import { saveLineCall } from '../../src/calls/line/lineCalls';
import { callStreamUrl } from '../../src/calls/line/streamUrl';
import type { StreamProtocol } from '../../src/calls/line/streamProtocol';
import { twilioStreamProtocol } from '../../src/providers/voice/twilio/streamProtocol';
import type { OriginateRequest, VoiceProvider } from '../../src/calls/voiceLine';
import { buildActivityDeps } from '../../src/worker/activityDeps';
import type { TestApi } from './app';
import { scriptCallee } from './calls';
import { testServers } from './env';
import { bearer } from './http';
import { RecordingLineControl } from './recordingLineControl';
import { startTestWorker, type TestWorker } from './worker';
import type { TestWorkspace } from './workspaces';

/**
 * The simulated network with one thing a real telephony adapter does: each call it places is
 * saved as a line call (src/calls/line/lineCalls.ts), which the media bridge loads
 * when the call's media stream opens.
 */
export function lineCallsSaved(api: TestApi, voice: VoiceProvider): VoiceProvider {
  return {
    async originate(req: OriginateRequest) {
      const placed = await voice.originate(req);
      const call = await callCollections(api.db).calls.findOne({ _id: req.callId });
      await saveLineCall(api.db, {
        _id: req.callId,
        tenant_id: req.tenantId,
        provider: 'twilio',
        provider_call_id: placed.providerCallId,
        request: req,
        recording: call?.recording ?? false,
        recording_uri: null,
        created_at: new Date(),
      });
      return placed;
    },
    hangup: (callId) => voice.hangup(callId),
    transcript: (callId, seconds, answeredAt) => voice.transcript(callId, seconds, answeredAt),
  };
}

/** A worker on the test API's queue whose calls are saved as line calls. */
export async function startLineCallWorker(api: TestApi): Promise<TestWorker> {
  const base = { db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE };
  const deps = buildActivityDeps(base);
  return startTestWorker({
    taskQueue: api.config.TEMPORAL_TASK_QUEUE,
    address: api.config.TEMPORAL_ADDRESS,
    deps: { ...deps, voice: lineCallsSaved(api, deps.voice) },
  });
}

/** A bridge whose agents have only their line tools (end_call, transfer_to_human). */
export const NO_TOOLS: CallToolSettings = { toolbox: createToolbox([]), holdAfterMs: 1_500, timeoutMs: 10_000 };

export interface TestBridge {
  media: MediaServer;
  /** ws://…/media-stream */
  url: string;
  /** The call's stream URL, as its TwiML would name it: `<url>/<call id>/<secret>`. */
  streamUrl(callId: string): string;
  lineControl: RecordingLineControl;
  recordingsDir: string;
  registry: Registry;
  close(): Promise<void>;
}

/** The media bridge in this process on a free port, signalling the test API's workflows. */
export async function startTestBridge(
  api: TestApi,
  options: { realtimeUrl: string; apiKey: string; maxCallSecondsCap?: number; streamAuthToken?: string; tools?: CallToolSettings; streamProtocol?: StreamProtocol },
): Promise<TestBridge> {
  const registry = new Registry();
  const lineControl = new RecordingLineControl();
  const recordingsDir = mkdtempSync(join(testServers.runDir(), 'recordings-'));
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}${MEDIA_STREAM_PATH}`;
  const media = createMediaServer({
    db: api.db,
    lineEvents: temporalLineEvents(api.temporal),
    lineControl,
    realtime: { url: options.realtimeUrl, model: 'fake-realtime', apiKey: options.apiKey },
    recordingsDir,
    maxCallSecondsCap: options.maxCallSecondsCap,
    metrics: createMediaMetrics(registry),
    logger: createLogger({ LOG_LEVEL: 'silent' }, 'media'),
    registry,
    streamProtocol: options.streamProtocol ?? twilioStreamProtocol(options.streamAuthToken ? { authToken: options.streamAuthToken, streamUrl: url } : null),
    tools: options.tools ?? NO_TOOLS,
  });
  await new Promise<void>((resolve) => media.server.listen(port, '127.0.0.1', resolve));
  // Without Twilio's auth token the bridge checks no secret; any key makes a well-formed path.
  const streamUrl = (callId: string) => callStreamUrl(url, options.streamAuthToken ?? 'no-twilio', callId);
  return { media, url, streamUrl, lineControl, recordingsDir, registry, close: () => media.close() };
}

/**
 * An answered outbound call through POST /calls: the simulated callee picks up at once and
 * never hangs up, so only the bridge (or the maximum length) ends it.
 */
export async function answeredCall(api: TestApi, ws: TestWorkspace, to: string, purpose: string): Promise<string> {
  await scriptCallee(api, ws, to, { ring_seconds: 0, end: 'never' });
  const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose });
  if (res.status !== 201) throw new Error(`POST /calls: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.call_id as string;
}
