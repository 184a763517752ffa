import type { ManagedProcess } from '../../../src/local/childProcess';
import { startTestApi, type TestApi } from '../../support/app';
import { pollCall } from '../../support/calls';
import { startFakeRealtime, type FakeRealtime, type ModelScript } from '../../support/fakeRealtime';
import { callStreamUrl } from '../../../src/calls/line/streamUrl';
import { answeredCall, startLineCallWorker } from '../../support/mediaBridge';
import { MediaStreamClient } from '../../support/mediaStreamClient';
import { speechMulaw } from '../../support/speechAudio';
import type { TestWorker } from '../../support/worker';
import { createTestWorkspace } from '../../support/workspaces';
import { startMediaProcess } from '../../support/mediaProcess';

/**
 * The media process itself (src/main/media.ts) as `npm start` and docker-compose run it: its
 * health and metrics, a call bridged through it, and a stop during a live call.
 */
jest.setTimeout(90_000);

const API_KEY = 'sk-test-realtime-process';
const OPENING = 'Hello, this is the assistant from Acme. Is now a good time?';
const PERSON = 'No, sorry, I am busy right now.';
const GOODBYE = 'No problem, I will call another time. Goodbye.';

describe('the media process', () => {
  let api: TestApi;
  let worker: TestWorker;
  let model: FakeRealtime;
  let media: ManagedProcess;
  let port: number;
  const scripts = new Map<string, ModelScript>();

  beforeAll(async () => {
    const audio = Object.fromEntries([OPENING, PERSON, GOODBYE].map((text) => [text, speechMulaw(text)]));
    scripts.set('hangs-up', { turns: [{ say: { audio: audio[OPENING]!, transcript: OPENING } }, { say: { audio: audio[GOODBYE]!, transcript: GOODBYE }, call: 'end_call' }], heard: [PERSON] });
    scripts.set('keeps-talking', { turns: [{ say: { audio: audio[OPENING]!, transcript: OPENING } }], heard: [] });
    api = await startTestApi();
    worker = await startLineCallWorker(api);
    model = await startFakeRealtime({
      apiKey: API_KEY,
      scriptFor: (instructions) => [...scripts.entries()].find(([token]) => instructions.includes(token))?.[1] ?? { turns: [], heard: [] },
    });
    ({ process: media, port } = await startMediaProcess({ config: api.config, realtime: { url: model.url, apiKey: API_KEY }, name: 'process' }));
  });

  afterAll(async () => {
    await media?.stop();
    await model?.close();
    await worker?.close();
    await api?.close();
  });

  const mediaUrl = (callId: string) => callStreamUrl(`ws://127.0.0.1:${port}/media-stream`, 'no-twilio', callId);

  it('answers /healthz and /metrics, and bridges a call whose agent hangs up: the stream is closed by the bridge and the workflow ends agent_hangup', async () => {
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok', sessions: 0 });
    const ws = await createTestWorkspace(api.db);
    const callId = await answeredCall(api, ws, '+919811160001', 'asking about a visit hangs-up');
    await pollCall(api, ws.key, callId, (b) => b.status === 'in_progress');
    const client = await MediaStreamClient.connect(mediaUrl(callId), { callId });
    await client.agentFinished();
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok', sessions: 1 });
    await client.say(speechMulaw(PERSON));
    // Without a telephony adapter's LineControl the bridge ends the call by closing the stream.
    await client.closed;
    const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
    expect(ended.outcome).toBe('agent_hangup');
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/media_sessions_ended_total\{reason="agent_hangup",service="media"\} 1/);
    expect(metrics).toMatch(/media_frames_total\{direction="inbound",service="media"\} [1-9]/);
    expect(metrics).toMatch(/media_frames_total\{direction="outbound",service="media"\} [1-9]/);
    expect(metrics).toMatch(/media_bridge_latency_seconds_count\{[^}]*direction="outbound"[^}]*\} [1-9]/);
    expect(metrics).toContain('media_sessions_live{service="media"} 0');
  });

  it('ends its live calls as setup_error when it is stopped mid-call, and the stream closes', async () => {
    const ws = await createTestWorkspace(api.db);
    const callId = await answeredCall(api, ws, '+919811160002', 'asking about a visit keeps-talking');
    await pollCall(api, ws.key, callId, (b) => b.status === 'in_progress');
    const client = await MediaStreamClient.connect(mediaUrl(callId), { callId });
    await client.agentFinished();
    await media.stop();
    await client.closed;
    const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
    expect(ended.outcome).toBe('setup_error');
  });
});
