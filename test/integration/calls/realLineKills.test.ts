import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { freePort, waitFor } from '../../../src/local/net';
import { twilioSettingsFrom } from '../../../src/providers/voice/twilio/settings';
import { TwilioVoiceProvider } from '../../../src/providers/voice/twilio/twilioVoiceProvider';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { useTestApi } from '../../support/app';
import { pollCall } from '../../support/calls';
import { startFakeRealtime, type FakeRealtime, type ModelScript } from '../../support/fakeRealtime';
import { FakeTwilio } from '../../support/fakeTwilio';
import { bearer } from '../../support/http';
import type { MediaStreamClient } from '../../support/mediaStreamClient';
import { speechMulaw } from '../../support/speechAudio';
import { startTestWorker, startWorkerProcess, type TestWorker } from '../../support/worker';
import { startMediaProcess } from '../../support/mediaProcess';

/**
 * A process killed (SIGKILL) during a live call on the real line loses no call: the worker
 * process and the media process (src/main/worker.ts, src/main/media.ts) run as `npm start`
 * runs them, with VOICE_PROVIDER=twilio against the fake Twilio, the fake realtime model and
 * real speech on the media stream.
 */
jest.setTimeout(150_000);

const MEDIA_STREAM_URL = 'wss://media.example.test/media-stream';
const API_KEY = 'sk-test-real-line-kills';
const OPENING = 'Hello, this is the assistant from Acme about your delivery tomorrow. Is someone home?';
const YES_HOME = 'Yes, someone is home.';
const GOODBYE = 'Thank you, your delivery is confirmed. Goodbye.';

describe('a process killed during a live call on the real line', () => {
  const fake = new FakeTwilio();
  let fakeOrigin = '';
  beforeAll(async () => {
    fakeOrigin = await fake.start();
  });
  const twilioEnv = () => ({
    VOICE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: fake.accountSid,
    TWILIO_AUTH_TOKEN: fake.authToken,
    TWILIO_PUBLIC_URL: fake.publicOrigin,
    TWILIO_MEDIA_STREAM_URL: MEDIA_STREAM_URL,
    TWILIO_API_BASE_URL: fakeOrigin,
  });
  const { api, ws } = useTestApi(() => ({ env: twilioEnv() }));
  const audio: Record<string, Buffer> = {};
  const scripts = new Map<string, ModelScript>();
  let model: FakeRealtime;
  let media: ManagedProcess | null = null;
  let worker: ManagedProcess | null = null;
  let replacement: TestWorker | null = null;

  async function startMedia(): Promise<ManagedProcess> {
    const { process: child, port } = await startMediaProcess({ config: api.config, realtime: { url: model.url, apiKey: API_KEY }, name: 'kill', env: twilioEnv() });
    fake.media = { localUrl: `ws://127.0.0.1:${port}/media-stream` };
    return child;
  }

  beforeAll(async () => {
    for (const text of [OPENING, YES_HOME, GOODBYE]) audio[text] = speechMulaw(text);
    fake.localOrigin = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    model = await startFakeRealtime({
      apiKey: API_KEY,
      scriptFor: (instructions) => [...scripts.entries()].find(([token]) => instructions.includes(token))?.[1] ?? { turns: [], heard: [] },
    });
    media = await startMedia();
  }, 90_000);
  afterAll(async () => {
    await fake.stop();
    await media?.stop(2_000);
    await worker?.stop(2_000);
    await replacement?.close();
    await model?.close();
  });

  const say = (text: string) => ({ audio: audio[text]!, transcript: text });
  const transcriptOf = async (callId: string) =>
    (((await api.db.collection('calls').findOne({ _id: callId as never }))?.transcript ?? []) as { role: string; text: string }[]).map((t) => [t.role, t.text]);

  it('the worker process is killed mid-conversation: the call carries on, a new worker takes it, it ends agent_hangup and is read', async () => {
    worker = await startWorkerProcess(api.config, { logName: 'real-line-worker', env: twilioEnv() });
    const token = `kill-worker-${Date.now() % 100_000}`;
    scripts.set(token, { turns: [{ say: say(OPENING) }, { say: say(GOODBYE), call: 'end_call' }], heard: [YES_HOME] });
    const to = '+919811330001';
    fake.script(to, { kind: 'answer', ringMs: 100, talkMs: null });
    let killed = false;
    fake.media!.person = async (stream: MediaStreamClient) => {
      await stream.agentFinished();
      // The worker dies while the person is talking to the agent.
      worker!.child.kill('SIGKILL');
      await worker!.exited;
      killed = true;
      await stream.say(audio[YES_HOME]!);
    };
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
    expect(res.status).toBe(201);
    const callId = res.body.call_id as string;
    await waitFor('the worker killed', async () => killed, 60_000, 100);
    // A new worker on the queue (this process's), as the supervisor's restart would be.
    replacement = await startTestWorker({
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      deps: buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE }, { voice: new TwilioVoiceProvider(api.db, twilioSettingsFrom(api.config)!) }),
    });
    const done = await pollCall(api, ws.key, callId, (c) => c.result.state !== 'pending', 90_000);
    expect(done).toMatchObject({ status: 'completed', outcome: 'agent_hangup', result: { state: 'ready' } });
    expect(await transcriptOf(callId)).toEqual([
      ['model', OPENING],
      ['user', YES_HOME],
      ['model', GOODBYE],
    ]);
    expect(fake.callsTo(to)[0]!.status).toBe('completed');
  });

  it('the media process is killed mid-conversation: the stream drops, Twilio ends the call and reports it completed, the call ends setup_error (no bridge ended its stream) with what was said and is read', async () => {
    replacement ??= await startTestWorker({
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      deps: buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE }, { voice: new TwilioVoiceProvider(api.db, twilioSettingsFrom(api.config)!) }),
    });
    const token = `kill-media-${Date.now() % 100_000}`;
    scripts.set(token, { turns: [{ say: say(OPENING) }, { say: say(GOODBYE), call: 'end_call' }], heard: [YES_HOME] });
    const to = '+919811330002';
    fake.script(to, { kind: 'answer', ringMs: 100, talkMs: null });
    let stream: MediaStreamClient | null = null;
    fake.media!.person = async (s: MediaStreamClient) => {
      stream = s;
      await s.agentFinished();
      await s.say(audio[YES_HOME]!);
    };
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
    const callId = res.body.call_id as string;
    // Killed once the person has spoken and the agent has begun its answer.
    await waitFor('the person heard and answered', async () => (await transcriptOf(callId)).length === 0 && (await api.db.collection('line_turns').countDocuments({ call_id: callId })) >= 2, 60_000, 100);
    media!.child.kill('SIGKILL');
    await media!.exited;
    const done = await pollCall(api, ws.key, callId, (c) => c.result.state !== 'pending', 60_000);
    expect(done).toMatchObject({ status: 'completed', outcome: 'setup_error', result: { state: 'ready' } });
    expect((await transcriptOf(callId)).slice(0, 2)).toEqual([
      ['model', OPENING],
      ['user', YES_HOME],
    ]);
    expect(stream!.open).toBe(false);
    expect(fake.callsTo(to)[0]!.status).toBe('completed');
    media = null;
  });

  it('the media process is down when the person answers: the stream cannot open, Twilio ends the call and reports it completed, the call ends setup_error, not caller_hangup', async () => {
    replacement ??= await startTestWorker({
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      deps: buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE }, { voice: new TwilioVoiceProvider(api.db, twilioSettingsFrom(api.config)!) }),
    });
    // A port nothing listens on: the media process that would take the stream is not there.
    const up = fake.media;
    fake.media = { localUrl: `ws://127.0.0.1:${await freePort()}/media-stream` };
    try {
      const to = '+919811330003';
      fake.script(to, { kind: 'answer', ringMs: 100, talkMs: null });
      const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: 'a delivery while the media bridge is down' });
      expect(res.status).toBe(201);
      const callId = res.body.call_id as string;
      const done = await pollCall(api, ws.key, callId, (c) => c.result.state !== 'pending', 60_000);
      expect(done).toMatchObject({ status: 'completed', outcome: 'setup_error' });
      expect(fake.callsTo(to)[0]!.status).toBe('completed');
    } finally {
      fake.media = up;
    }
  });
});
