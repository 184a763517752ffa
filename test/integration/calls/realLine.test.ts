import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { eventsCollection } from '../../../src/events/eventStore';
import type { MediaServer } from '../../../src/media/mediaServer';
import { twilioSettingsFrom } from '../../../src/providers/voice/twilio/settings';
import { twilioStreamProtocol } from '../../../src/providers/voice/twilio/streamProtocol';
import { TwilioVoiceProvider } from '../../../src/providers/voice/twilio/twilioVoiceProvider';
import { TWILIO_WEBHOOK_PATHS } from '../../../src/providers/voice/twilio/webhookUrls';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { createToolbox } from '../../../src/agents';
import { businessToolSource, deleteBusinessTool } from '../../../src/businessTools';
import { conversationIdFor } from '../../../src/conversations';
import { HAND_OVER_LINE_INSTRUCTIONS } from '../../../src/media/callHandOver';
import { ORDER_TOOL_NAME, declaredOrderDesk } from '../../support/orderDesk';
import { useTestApi } from '../../support/app';
import { pollCall } from '../../support/calls';
import { insertContacts, zoneOpenAt } from '../../support/campaigns';
import { startFakeRealtime, type FakeRealtime } from '../../support/fakeRealtime';
import { FakeTwilio } from '../../support/fakeTwilio';
import { bearer } from '../../support/http';
import type { MediaStreamClient } from '../../support/mediaStreamClient';
import { FRAME_BYTES } from '../../support/speechAudio';
import { startTestWorker, type TestWorker } from '../../support/worker';
import { handedOverCall, lineConversations, startLineMedia, OPENING, YES_HOME, ASK_SLOT, MORNING, GOODBYE, ASKS_FOR_HUMAN, CONNECTING, GREETING, CALLER_ASKS } from '../../support/lineConversation';

/**
 * The real line end to end: POST /api/v1/calls with VOICE_PROVIDER=twilio; the worker places
 * the call with the `twilio` client against the fake REST API; the fake Twilio, once the person
 * answers, fetches our answer webhook (signed), reads the TwiML's <Connect><Stream url> with its
 * callId <Parameter>, and opens the media stream to the media bridge with a signed handshake,
 * playing the person's real speech (espeak-ng + sox, 8 kHz mu-law, 20 ms frames, real time);
 * the fake realtime model hears it, answers with speech and transcripts, and ends the call or
 * hands it over with its tools. The bridge holds the Twilio adapter's LineControl, as the media
 * process does with VOICE_PROVIDER=twilio.
 */
jest.setTimeout(120_000);

const MEDIA_STREAM_URL = 'wss://media.example.test/media-stream';
const API_KEY = 'sk-test-real-line';

describe('a call on the real line: Twilio adapter, media bridge and realtime model together (all fakes on loopback)', () => {
  const fake = new FakeTwilio();
  let fakeOrigin = '';
  beforeAll(async () => {
    fakeOrigin = await fake.start();
  });
  const { api, ws } = useTestApi(() => ({
    env: {
      VOICE_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: fake.accountSid,
      TWILIO_AUTH_TOKEN: fake.authToken,
      TWILIO_PUBLIC_URL: fake.publicOrigin,
      TWILIO_MEDIA_STREAM_URL: MEDIA_STREAM_URL,
      TWILIO_API_BASE_URL: fakeOrigin,
    },
  }));
  const { audio, prepare, scriptFor, say, scripted, person } = lineConversations('real-line', '+9198112');
  let worker: TestWorker;
  let model: FakeRealtime;
  let media: MediaServer;
  let registry: Registry;
  let recordingsDir: string;

  beforeAll(async () => {
    prepare();
    fake.localOrigin = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    const settings = twilioSettingsFrom(api.config)!;
    worker = await startTestWorker({
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      deps: buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE }, { voice: new TwilioVoiceProvider(api.db, settings) }),
    });
    model = await startFakeRealtime({ apiKey: API_KEY, scriptFor });
    // The media process's wiring with VOICE_PROVIDER=twilio (src/main/media.ts), in this process.
    let localUrl: string;
    ({ media, registry, recordingsDir, localUrl } = await startLineMedia(api, {
      lineControl: new TwilioVoiceProvider(api.db, settings),
      streamProtocol: twilioStreamProtocol({ authToken: settings.authToken, streamUrl: settings.mediaStreamUrl }),
      realtime: { url: model.url, apiKey: API_KEY },
      // The workspace's declared HTTP tools, as the media process's toolbox lists them (private addresses allowed for the loopback desk).
      tools: { toolbox: createToolbox([businessToolSource({ db: api.db, allowPrivateUrls: true })]), holdAfterMs: 20_000, timeoutMs: 20_000 },
      recordingsPrefix: 'real-line-recordings-',
      logLevel: (process.env.REAL_LINE_LOG as 'info' | undefined) ?? 'silent',
    }));
    fake.media = { localUrl };
  });
  afterAll(async () => {
    await fake.stop();
    await media?.close();
    await model?.close();
    await worker?.close();
  });

  const until = (callId: string, done: (call: any) => boolean, timeoutMs = 60_000) => pollCall(api, ws.key, callId, done, timeoutMs);
  const callEvents = (callId: string, type: string) => eventsCollection(api.db).find({ type, 'data.call_id': callId }).toArray();
  /** The transcript stored on the call (the reader's input) as [role, text]. */
  const transcriptOf = async (callId: string) => ((await api.db.collection('calls').findOne({ _id: callId as never }))?.transcript ?? []) as { role: string; text: string; at_seconds: number }[];
  const said = async (callId: string) => (await transcriptOf(callId)).map((t) => [t.role, t.text]);
  const metric = async (pattern: RegExp) => Number((await registry.metrics()).match(pattern)?.[1] ?? 0);
  /** A person who hangs up (FakeTwilio's `talkMs`) once the bridge has stored what they said on the call (`after`, which waits for it). */
  function hangsUpOnceHeard(): { when: Promise<void>; after: (callId: string) => Promise<void> } {
    let hangUp!: () => void;
    const when = new Promise<void>((resolve) => (hangUp = resolve));
    const after = async (callId: string) => {
      try {
        await waitFor(async () => (await api.db.collection('line_turns').countDocuments({ call_id: callId, role: 'user' })) > 0);
      } finally {
        hangUp();
      }
    };
    return { when, after };
  }

  it('the agent talks with the person, reads the capture fields and hangs up: ringing → in_progress → completed, agent_hangup, both sides’ turns with times, the result read, events once, audio both ways', async () => {
    const { to, token } = scripted({
      turns: [{ say: say(OPENING) }, { say: say(ASK_SLOT) }, { say: say(GOODBYE), call: 'end_call' }],
      heard: [YES_HOME, MORNING],
    });
    fake.script(to, { kind: 'answer', ringMs: 300, talkMs: null });
    const streams: MediaStreamClient[] = [];
    fake.media!.person = async (stream) => {
      streams.push(stream);
      await person([YES_HOME, MORNING])(stream);
    };
    const framesOutBefore = await metric(/media_frames_total\{direction="outbound"\} (\d+)/);
    const res = await request(api.server)
      .post('/api/v1/calls')
      .set(bearer(ws.key))
      .send({
        to,
        purpose: `confirming tomorrow’s delivery ${token}`,
        capture: {
          goal: 'Confirm the delivery slot',
          fields: [
            { label: 'Is someone home?', type: 'yes_no', required: true },
            { label: 'Preferred slot', type: 'choice', options: ['Morning', 'Evening'] },
          ],
          success: { field: 'is_someone_home', equals: 'yes' },
        },
      });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('ringing');
    const callId = res.body.call_id as string;
    const live = await until(callId, (c) => c.status !== 'ringing');
    expect(live.status).toBe('in_progress');
    const done = await until(callId, (c) => c.result.state !== 'pending');

    expect(done).toMatchObject({ status: 'completed', outcome: 'agent_hangup', recording_uri: null });
    expect(done.duration_seconds).toBeGreaterThan(3);
    expect(done.result).toMatchObject({
      state: 'ready',
      disposition: 'completed',
      success: true,
      fields: { is_someone_home: true, preferred_slot: 'Morning' },
      captured: 2,
      expected: 2,
      missing_required: [],
    });
    // Both sides, in the order spoken, each at its time on the call (seconds from the answer).
    expect(await said(callId)).toEqual([
      ['model', OPENING],
      ['user', YES_HOME],
      ['model', ASK_SLOT],
      ['user', MORNING],
      ['model', GOODBYE],
    ]);
    const times = (await transcriptOf(callId)).map((t) => t.at_seconds);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBeGreaterThan(times[0]!);
    expect(times.at(-1)).toBeLessThanOrEqual(done.duration_seconds);

    // Twilio's part: the answer webhook fetched signed and answered with the stream; the
    // stream opened with the call's id; the bridge hung up through the REST API; the stream stopped.
    const [call] = fake.callsTo(to);
    expect(fake.callbacksTo(TWILIO_WEBHOOK_PATHS.answer).filter((c) => c.params.CallSid === call!.sid).map((c) => c.status)).toEqual([200]);
    expect(call!.twiml[0]).toContain(`<Parameter name="callId" value="${callId}"/>`);
    expect(call!.status).toBe('completed');
    expect(streams).toHaveLength(1);
    await streams[0]!.closed;
    // Audio both ways: the person's speech and silence every 20 ms, the agent's three turns back.
    const sent = streams[0]!.sent;
    expect(sent.filter((f) => f.voiced).length * FRAME_BYTES).toBeGreaterThanOrEqual(audio[YES_HOME]!.length + audio[MORNING]!.length - 2 * FRAME_BYTES);
    expect(streams[0]!.received.bytes).toBeGreaterThanOrEqual(audio[OPENING]!.length + audio[ASK_SLOT]!.length);
    expect(await metric(/media_frames_total\{direction="outbound"\} (\d+)/)).toBeGreaterThan(framesOutBefore);

    // Events as for any call: started and ended once each, and the outcome once read.
    const [started, ended] = [await callEvents(callId, 'call.started'), await callEvents(callId, 'call.ended')];
    expect([started.length, ended.length]).toEqual([1, 1]);
    expect(ended[0]!.data).toMatchObject({ call_id: callId, status: 'completed', outcome: 'agent_hangup' });
    await expect(waitFor(async () => (await callEvents(callId, 'call.outcome')).length === 1)).resolves.toBe(true);

    // Twilio reports the bridge's end again as the bridge hangs up: the workflow does not
    // complete in the task that takes the end (issue 36 §3, src/calls/endCall.ts), so that
    // report never fails its last task, which would run the end step and the reader again.
    const history = (await api.temporal.workflow.getHandle(callId).fetchHistory()).events!;
    expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toHaveLength(0);
    expect(history.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'readCall')).toHaveLength(1);
    expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toHaveLength(0);
  });

  it('the person hangs up mid-call: the stream stops, Twilio reports completed, the call ends caller_hangup with what was said', async () => {
    const { to, token } = scripted({ turns: [{ say: say(OPENING) }, { say: say(ASK_SLOT) }], heard: [YES_HOME] });
    // Hangs up once their yes is stored, not a fixed time after the answer, which a loaded machine's opening and reply may run past.
    const hangUp = hangsUpOnceHeard();
    fake.script(to, { kind: 'answer', ringMs: 100, talkMs: hangUp.when });
    fake.media!.person = person([YES_HOME]);
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
    await hangUp.after(res.body.call_id);
    const done = await until(res.body.call_id, (c) => c.result.state !== 'pending');
    expect(done).toMatchObject({ status: 'completed', outcome: 'caller_hangup' });
    expect((await said(done.call_id)).slice(0, 2)).toEqual([
      ['model', OPENING],
      ['user', YES_HOME],
    ]);
    expect(fake.callsTo(to)[0]!.stream!.open).toBe(false);
  });

  it('a recorded call: recording_uri names the file the bridge wrote, set on the call however soon the line’s end is read', async () => {
    const { to, token } = scripted({ turns: [{ say: say(OPENING) }], heard: [YES_HOME] });
    const numberId = ws.phoneNumber.replace(/\D/g, '');
    const hangUp = hangsUpOnceHeard();
    fake.script(to, { kind: 'answer', ringMs: 100, talkMs: hangUp.when });
    fake.media!.person = person([YES_HOME]);
    await collections(api.db).phoneNumbers.updateOne({ _id: numberId }, { $set: { recording: true } });
    try {
      const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
      const callId = res.body.call_id as string;
      await hangUp.after(callId);
      const done = await until(callId, (c) => c.status === 'completed');
      expect(done.outcome).toBe('caller_hangup');
      expect(done.recording_uri).toBe(`storage://recordings/${ws.workspaceId}/${callId}.wav`);
      const file = join(recordingsDir, ws.workspaceId, `${callId}.wav`);
      await expect(waitFor(() => existsSync(file))).resolves.toBe(true);
      const wav = readFileSync(file);
      // Stereo 8 kHz mu-law, both sides: at least the person's words and the agent's opening long.
      expect([wav.toString('ascii', 0, 4), wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24)]).toEqual(['RIFF', 7, 2, 8000]);
      expect(wav.readUInt32LE(54) / 2).toBeGreaterThan(audio[OPENING]!.length + audio[YES_HOME]!.length);
    } finally {
      await collections(api.db).phoneNumbers.updateOne({ _id: numberId }, { $set: { recording: false } });
    }
  });

  const handOverLine = () => ({ api, ws, fake, conversations: { scripted, person }, until, said });

  it('a hand-over: the agent transfers the caller, the stream stops, the team line answers (human_active), a hang-up request answers ended false, the call ends when the person does', async () => {
    const teamLine = '+919800077002';
    const script = { turns: [{ say: say(OPENING) }, { say: say(CONNECTING), call: 'transfer_to_human' as const }], heard: [ASKS_FOR_HUMAN] };
    const { to } = await handedOverCall(handOverLine(), script, teamLine, 'a delivery', async (callId) => {
      const hangup = await request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(ws.key));
      expect([hangup.status, hangup.body]).toEqual([200, { call_id: callId, ended: false }]);
    });
    const [call] = fake.callsTo(to);
    expect(call!.twiml[1]).toContain(`>${teamLine}</Number></Dial>`);
    expect(call!.stream!.open).toBe(false);
  });

  it('a business tool answers hand_over mid-call: the caller hears the hold line, and Twilio is asked once to <Dial> the number’s team line; human_active, then the person ends it', async () => {
    const desk = await declaredOrderDesk(api.db, ws.workspaceId);
    desk.handOver.set('R-77', 'Refunds above the limit need a person');
    const teamLine = '+919800077003';
    try {
      const script = {
        turns: [{ say: say(OPENING) }, { call: { name: ORDER_TOOL_NAME, arguments: { order_id: 'R-77' } } }],
        heard: [CALLER_ASKS],
        // The hold line the bridge asks for, as a response with instructions of its own.
        instructed: { say: say(CONNECTING) },
      };
      const { callId, to, token } = await handedOverCall(handOverLine(), script, teamLine, 'an order');
      // The business was asked once; the caller heard the hold line after it answered.
      expect(desk.received).toEqual([{ tool: ORDER_TOOL_NAME, callId: expect.stringMatching(/^tcall_/) as string, args: { order_id: 'R-77' } }]);
      const session = model.sessions.find((s) => s.instructions.includes(token))!;
      expect(session.instructedResponses).toEqual([{ instructions: HAND_OVER_LINE_INSTRUCTIONS, tool_choice: 'none' }]);
      expect(JSON.parse(session.toolOutputs[0]!.output)).toMatchObject({ tool_answer: { hand_over: { reason: 'Refunds above the limit need a person' } }, handed_over: true });
      // Twilio's part: the answer's stream, then exactly one update of the live call, a <Dial> to the team line.
      const [call] = fake.callsTo(to);
      expect(call!.twiml).toHaveLength(2);
      expect(call!.twiml[1]).toContain(`>${teamLine}</Number></Dial>`);
      expect(call!.stream!.open).toBe(false);
      // The hand-over is in the call's trail (hidden from the public transcript).
      const trail = await api.db
        .collection('conversation_messages')
        .find({ conversation_id: conversationIdFor(ws.workspaceId, 'voice', callId), kind: 'trail' })
        .sort({ _id: 1 })
        .toArray();
      expect(trail.map((m) => m.text)).toEqual([
        expect.stringMatching(/^Ran order_status: answered 200 in \d+ ms, asking for a person \(Refunds above the limit need a person\)$/),
        `Handing the call to the team line ${teamLine} (asked by order_status); the caller hears a hold line`,
      ]);
    } finally {
      await deleteBusinessTool(api.db, ws.workspaceId, ORDER_TOOL_NAME);
      await desk.stop();
    }
  });

  it('the person goes quiet: silence past the agent’s idle threshold ends the call idle, hung up through Twilio, with what was said and read', async () => {
    const { to, token } = scripted({ turns: [{ say: say(OPENING) }], heard: [] });
    const { agents } = collections(api.db);
    const before = (await agents.findOne({ _id: ws.agentId }))!.voice;
    // The shortest threshold the settings allow (src/calls/agentVoiceRules.ts): 5 s.
    await agents.updateOne({ _id: ws.agentId }, { $set: { voice: { ...(before ?? {}), idle_seconds: 5 } } });
    try {
      fake.script(to, { kind: 'answer', ringMs: 100, talkMs: null });
      // The person answers and says nothing: the stream carries only silence.
      fake.media!.person = async () => {};
      const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
      expect(res.status).toBe(201);
      const done = await until(res.body.call_id, (c) => c.result.state !== 'pending');
      expect(done).toMatchObject({ status: 'completed', outcome: 'idle' });
      // The opening, then the silence: at least the threshold after the agent finished speaking.
      expect(await said(done.call_id)).toEqual([['model', OPENING]]);
      expect(done.duration_seconds).toBeGreaterThanOrEqual(5);
      // The bridge ended it on the network: Twilio's call was hung up through the REST API.
      expect(fake.callsTo(to)[0]!.status).toBe('completed');
    } finally {
      await agents.updateOne({ _id: ws.agentId }, { $set: { voice: before } });
    }
  });

  it('an inbound call: Twilio’s voice webhook starts the inbound lifecycle, the stream opens, the agent greets, the caller speaks and hangs up', async () => {
    const { token } = scripted({ turns: [{ say: say(GREETING) }, { say: say(GOODBYE) }], heard: [CALLER_ASKS] });
    // The deployed agent's instructions carry the token (its persona), as an inbound call has no purpose.
    const { agents } = collections(api.db);
    const before = (await agents.findOne({ _id: ws.agentId }))!.voice;
    await agents.updateOne({ _id: ws.agentId }, { $set: { voice: { instructions: `You answer for Acme ${token}.` } } });
    try {
      const streams: MediaStreamClient[] = [];
      fake.media!.person = async (stream) => {
        streams.push(stream);
        await person([CALLER_ASKS])(stream);
      };
      const { answer } = await fake.placeInbound({ from: '+919800055511', to: ws.phoneNumber, voicePath: TWILIO_WEBHOOK_PATHS.voice, statusPath: TWILIO_WEBHOOK_PATHS.status, talkMs: 12_000 });
      const callId = answer.body.match(/name="callId" value="([^"]+)"/)![1]!;
      const done = await until(callId, (c) => c.result.state !== 'pending');
      expect(done).toMatchObject({ direction: 'inbound', status: 'completed', outcome: 'caller_hangup' });
      expect((await said(callId)).slice(0, 2)).toEqual([
        ['model', GREETING],
        ['user', CALLER_ASKS],
      ]);
      expect(streams).toHaveLength(1);
      expect(streams[0]!.received.bytes).toBeGreaterThanOrEqual(audio[GREETING]!.length);
    } finally {
      // The agent's instructions name this test's script: later calls must not find it.
      await agents.updateOne({ _id: ws.agentId }, { $set: { voice: before } });
    }
  });

  it('a call campaign of three people on the real line: each dialled once, each conversation bridged, each call agent_hangup with both sides and read', async () => {
    const { token } = scripted({ turns: [{ say: say(OPENING) }, { say: say(GOODBYE), call: 'end_call' }], heard: [YES_HOME] });
    const { key } = await ws.addKey(['campaigns:read', 'campaigns:write']);
    const people = await insertContacts(api.db, ws.workspaceId, 3);
    for (const p of people) fake.script(p.phone!, { kind: 'answer', ringMs: 100, talkMs: null });
    fake.media!.person = person([YES_HOME]);
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(bearer(key))
      .send({
        name: 'Real line delivery check',
        channel: 'voice',
        agent_id: ws.agentId,
        audience: { contact_ids: people.map((p) => p._id) },
        purpose: `your delivery, {{name}} ${token}`,
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 },
      });
    expect(created.status).toBe(201);
    const campaignId = created.body.campaign_id;
    const launched = await request(api.server).post(`/api/v1/campaigns/${campaignId}/launch`).set(bearer(key)).send({ expected_version: 1 });
    expect(launched.body).toMatchObject({ status: 'running', recipients: 3 });
    const finished = await waitFor(async () => {
      const res = await request(api.server).get(`/api/v1/campaigns/${campaignId}`).set(bearer(key));
      return res.body.status === 'completed' ? res.body : null;
    }, 90_000);
    expect(finished).toMatchObject({ recipients: 3, sent: 3, failed: 0, calls: { dialled: 3, answered: 3, live: 0 } });
    for (const p of people) expect(fake.creates.filter((c) => c.To === p.phone)).toHaveLength(1);
    const calls = await api.db.collection('calls').find({ to: { $in: people.map((p) => p.phone) } }).toArray();
    expect(calls.map((c) => [c.outcome, c.transcript.map((t: { role: string }) => t.role)])).toEqual(Array(3).fill(['agent_hangup', ['model', 'user', 'model']]));
    for (const call of calls) await until(String(call._id), (c) => c.result.state === 'ready');
  }, 120_000);
});

/** Polls `check` every 200 ms until it answers something truthy. */
async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 60_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((r) => setTimeout(r, 200));
  }
}
