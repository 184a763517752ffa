import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import request from 'supertest';
import WebSocket from 'ws';
import { lineCalls } from '../../../src/calls/line/lineCalls';
import { callStreamUrl } from '../../../src/calls/line/streamUrl';
import { collections } from '../../../src/db/collections';
import { eventsCollection } from '../../../src/events/eventStore';
import type { MediaServer } from '../../../src/media/mediaServer';
import { PlivoVoiceProvider } from '../../../src/providers/voice/plivo/plivoVoiceProvider';
import { plivoSettingsFrom } from '../../../src/providers/voice/plivo/settings';
import { plivoStreamProtocol } from '../../../src/providers/voice/plivo/streamProtocol';
import { PLIVO_WEBHOOK_PATHS } from '../../../src/providers/voice/plivo/webhookUrls';
import { createToolbox } from '../../../src/agents';
import { businessToolSource, deleteBusinessTool } from '../../../src/businessTools';
import { useTestApi } from '../../support/app';
import { ORDER_TOOL_NAME, declaredOrderDesk } from '../../support/orderDesk';
import { pollCall } from '../../support/calls';
import { startFakeRealtime, type FakeRealtime } from '../../support/fakeRealtime';
import { FakePlivo, plivoSignatureV3 } from '../../support/fakePlivo';
import { bearer } from '../../support/http';
import { PlivoStreamClient } from '../../support/plivoStreamClient';
import { FRAME_BYTES } from '../../support/speechAudio';
import { startMediaProcess } from '../../support/mediaProcess';
import { handedOverCall, lineConversations, startLineMedia, OPENING, YES_HOME, ASK_SLOT, MORNING, GOODBYE, ASKS_FOR_HUMAN, CONNECTING, GREETING, CALLER_ASKS } from '../../support/lineConversation';
import { eventually } from '../../support/messaging';

/**
 * The whole line with VOICE_PROVIDER=plivo, as realLine.test.ts runs it with Twilio: POST
 * /api/v1/calls; the worker places the call with the `plivo` package against the fake Voice API;
 * the fake rings (ring_url), answers and fetches the answer URL (signed, V3), reads the XML's
 * `<Stream>` and opens the audio stream to the media bridge in Plivo's protocol, playing the
 * person's real speech (espeak-ng + sox, 8 kHz mu-law, 20 ms frames, real time); the fake
 * realtime model hears it and answers. The bridge holds the Plivo adapter's LineControl and
 * stream protocol, as the media process does with VOICE_PROVIDER=plivo.
 */
jest.setTimeout(120_000);

const MEDIA_STREAM_URL = 'wss://media.example.test/media-stream';
const API_KEY = 'sk-test-plivo-line';

describe('a call on a Plivo line: the adapter, the media bridge in Plivo’s stream protocol and the realtime model together (all fakes on loopback)', () => {
  const fake = new FakePlivo();
  let fakeOrigin = '';
  beforeAll(async () => {
    fakeOrigin = await fake.start();
  });
  const { api, ws } = useTestApi(() => ({
    env: {
      VOICE_PROVIDER: 'plivo',
      PLIVO_AUTH_ID: fake.authId,
      PLIVO_AUTH_TOKEN: fake.authToken,
      PLIVO_PUBLIC_URL: fake.publicOrigin,
      PLIVO_MEDIA_STREAM_URL: MEDIA_STREAM_URL,
      PLIVO_API_BASE_URL: fakeOrigin,
    },
    worker: true,
  }));
  const { audio, prepare, scriptFor, say, scripted, person } = lineConversations('plivo-line', '+9198113');
  let model: FakeRealtime;
  let media: MediaServer;
  let registry: Registry;
  let mediaPort = 0;

  beforeAll(async () => {
    prepare();
    fake.localOrigin = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    const settings = plivoSettingsFrom(api.config)!;
    model = await startFakeRealtime({ apiKey: API_KEY, scriptFor });
    // The media process's wiring with VOICE_PROVIDER=plivo (src/main/media.ts, MEDIA_LINES), in this process.
    let localUrl: string;
    ({ media, registry, port: mediaPort, localUrl } = await startLineMedia(api, {
      lineControl: new PlivoVoiceProvider(api.db, settings),
      streamProtocol: plivoStreamProtocol({ authToken: settings.authToken, streamUrl: settings.mediaStreamUrl }),
      realtime: { url: model.url, apiKey: API_KEY },
      // The workspace's declared HTTP tools, as the media process's toolbox lists them (private addresses allowed for the loopback desk).
      tools: { toolbox: createToolbox([businessToolSource({ db: api.db, allowPrivateUrls: true })]), holdAfterMs: 20_000, timeoutMs: 20_000 },
      recordingsPrefix: 'plivo-line-recordings-',
    }));
    fake.media = { localUrl };
  });
  afterAll(async () => {
    await fake.stop();
    await media?.close();
    await model?.close();
  });

  const until = (callId: string, done: (call: any) => boolean, timeoutMs = 60_000) => pollCall(api, ws.key, callId, done, timeoutMs);
  const transcriptOf = async (callId: string) => ((await api.db.collection('calls').findOne({ _id: callId as never }))?.transcript ?? []) as { role: string; text: string; at_seconds: number }[];
  const said = async (callId: string) => (await transcriptOf(callId)).map((t) => [t.role, t.text]);
  const callEvents = (callId: string, type: string) => eventsCollection(api.db).find({ type, 'data.call_id': callId }).toArray();

  it('the agent talks with the person and hangs up: ringing → in_progress → completed, agent_hangup, both sides’ turns in order, the result read, events once, audio both ways in Plivo’s frames', async () => {
    const { to, token } = scripted({ turns: [{ say: say(OPENING) }, { say: say(ASK_SLOT) }, { say: say(GOODBYE), call: 'end_call' }], heard: [YES_HOME, MORNING] });
    fake.script(to, { kind: 'answer', ringMs: 300, talkMs: null });
    const streams: PlivoStreamClient[] = [];
    fake.media!.person = async (stream) => {
      streams.push(stream);
      await person([YES_HOME, MORNING])(stream);
    };
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
    const callId = res.body.call_id as string;
    const live = await until(callId, (c) => c.status !== 'ringing');
    expect(live.status).toBe('in_progress');
    const done = await until(callId, (c) => c.result.state !== 'pending');
    expect(done).toMatchObject({ status: 'completed', outcome: 'agent_hangup' });
    expect(done.duration_seconds).toBeGreaterThan(3);
    expect(done.result).toMatchObject({ state: 'ready', disposition: 'completed', success: true, fields: { is_someone_home: true, preferred_slot: 'Morning' } });
    expect(await said(callId)).toEqual([
      ['model', OPENING],
      ['user', YES_HOME],
      ['model', ASK_SLOT],
      ['user', MORNING],
      ['model', GOODBYE],
    ]);
    const times = (await transcriptOf(callId)).map((t) => t.at_seconds);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.at(-1)).toBeLessThanOrEqual(done.duration_seconds);

    // Plivo's part: the create (numbers without +, the answer, hangup and ring URLs, machine
    // detection, the ring time), the answer XML, the hang-up by CallUUID, the stream closed.
    const [call] = fake.callsTo(to.slice(1));
    expect(fake.creates.filter((c) => c.to === to.slice(1))).toEqual([
      expect.objectContaining({
        from: ws.phoneNumber.replace(/\D/g, ''),
        to: to.slice(1),
        answer_url: `${fake.publicOrigin}${PLIVO_WEBHOOK_PATHS.answer}?call_id=${callId}`,
        answer_method: 'POST',
        hangup_url: `${fake.publicOrigin}${PLIVO_WEBHOOK_PATHS.status}?call_id=${callId}`,
        ring_url: `${fake.publicOrigin}${PLIVO_WEBHOOK_PATHS.status}?call_id=${callId}`,
        machine_detection: 'true',
        ring_timeout: 30,
      }),
    ]);
    expect(call!.xml[0]).toBe(
      `<Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" extraHeaders="callId=${callId.slice(5)}">${callStreamUrl(MEDIA_STREAM_URL, fake.authToken, callId)}</Stream></Response>`,
    );
    expect(fake.requests).toContainEqual({ method: 'DELETE', path: `/v1/Account/${fake.authId}/Call/${call!.uuid}/` });
    expect(call!.status).toBe('completed');
    expect((await lineCalls(api.db).findOne({ _id: callId }))).toMatchObject({ provider: 'plivo', provider_call_id: call!.uuid, provider_request_id: call!.requestUuid });
    expect(streams).toHaveLength(1);
    await streams[0]!.closed;
    const stream = streams[0]!;
    expect(stream.sent.filter((f) => f.voiced).length * FRAME_BYTES).toBeGreaterThanOrEqual(audio[YES_HOME]!.length + audio[MORNING]!.length - 2 * FRAME_BYTES);
    expect(stream.received.bytes).toBeGreaterThanOrEqual(audio[OPENING]!.length + audio[ASK_SLOT]!.length);
    expect(stream.received.checkpoints.length).toBeGreaterThan(0);
    expect(stream.received.errors).toEqual([]);
    const [started, ended] = [await callEvents(callId, 'call.started'), await callEvents(callId, 'call.ended')];
    expect([started.length, ended.length]).toEqual([1, 1]);
    expect(ended[0]!.data).toMatchObject({ call_id: callId, status: 'completed', outcome: 'agent_hangup' });
  });

  it('the person hangs up mid-call: Plivo closes the stream and reports completed, the call ends caller_hangup with what was said', async () => {
    const { to, token } = scripted({ turns: [{ say: say(OPENING) }, { say: say(ASK_SLOT) }], heard: [YES_HOME] });
    // Hangs up once their yes is stored, not a fixed time after the answer, which a loaded machine's opening and reply may run past.
    let hangUp!: () => void;
    fake.script(to, { kind: 'answer', ringMs: 100, talkMs: new Promise<void>((resolve) => (hangUp = resolve)) });
    fake.media!.person = person([YES_HOME]);
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
    try {
      await eventually(async () => (await api.db.collection('line_turns').countDocuments({ call_id: res.body.call_id, role: 'user' })) > 0, 'the yes stored', 60_000);
    } finally {
      hangUp();
    }
    const done = await until(res.body.call_id, (c) => c.result.state !== 'pending');
    expect(done).toMatchObject({ status: 'completed', outcome: 'caller_hangup' });
    expect((await said(done.call_id)).slice(0, 2)).toEqual([
      ['model', OPENING],
      ['user', YES_HOME],
    ]);
    const call = fake.callsTo(to.slice(1))[0]!;
    expect(call.stream!.open).toBe(false);
    expect(fake.callbacksTo(PLIVO_WEBHOOK_PATHS.status).filter((c) => c.params.CallUUID === call.uuid).map((c) => [c.params.CallStatus, c.status])).toEqual([
      ['ringing', 200],
      ['completed', 200],
    ]);
  });

  it('the stream’s connection is lost (no closing handshake): the bridge ends the call setup_error and hangs it up on Plivo', async () => {
    const { to, token } = scripted({ turns: [{ say: say(OPENING) }, { say: say(ASK_SLOT) }], heard: [YES_HOME] });
    fake.script(to, { kind: 'answer', ringMs: 100, talkMs: null });
    fake.media!.person = async (stream) => {
      await person([YES_HOME])(stream);
      await stream.agentFinished();
      await stream.drop();
    };
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
    const done = await until(res.body.call_id, (c) => c.result.state !== 'pending');
    expect(done).toMatchObject({ status: 'completed', outcome: 'setup_error' });
    const call = fake.callsTo(to.slice(1))[0]!;
    expect(fake.requests).toContainEqual({ method: 'DELETE', path: `/v1/Account/${fake.authId}/Call/${call.uuid}/` });
  });

  const handOverLine = () => ({ api, ws, fake, conversations: { scripted, person }, until, said });

  it('a hand-over: the agent transfers the caller (Plivo’s Transfer API, aleg_url), the stream closes, the team line answers (human_active), the call ends when the person does', async () => {
    const teamLine = '+919800088002';
    const { callId, to } = await handedOverCall(handOverLine(), { turns: [{ say: say(OPENING) }, { say: say(CONNECTING), call: 'transfer_to_human' }], heard: [ASKS_FOR_HUMAN] }, teamLine, 'a delivery');
    const [call] = fake.callsTo(to.slice(1));
    expect(call!.xml[2]).toBe(
      `<Response><Dial callbackUrl="${fake.publicOrigin}${PLIVO_WEBHOOK_PATHS.dial}?call_id=${callId}" callbackMethod="POST"><Number>${teamLine.slice(1)}</Number></Dial></Response>`,
    );
    expect(call!.stream!.open).toBe(false);
  });

  it('a business tool answers hand_over mid-call: the caller hears the hold line, and Plivo’s Transfer API is asked once to dial the number’s team line; human_active, then the person ends it', async () => {
    const desk = await declaredOrderDesk(api.db, ws.workspaceId);
    desk.handOver.set('R-78', 'Refunds above the limit need a person');
    const teamLine = '+919800088003';
    try {
      const script = { turns: [{ say: say(OPENING) }, { call: { name: ORDER_TOOL_NAME, arguments: { order_id: 'R-78' } } }], heard: [CALLER_ASKS], instructed: { say: say(CONNECTING) } };
      const { callId, to } = await handedOverCall(handOverLine(), script, teamLine, 'an order');
      expect(desk.received).toHaveLength(1);
      // Plivo's part: the answer's stream, one transfer (the call leaving its XML), the aleg_url's <Dial> to the team line.
      const [call] = fake.callsTo(to.slice(1));
      expect(call!.xml.slice(1)).toEqual([
        '(transferred)',
        `<Response><Dial callbackUrl="${fake.publicOrigin}${PLIVO_WEBHOOK_PATHS.dial}?call_id=${callId}" callbackMethod="POST"><Number>${teamLine.slice(1)}</Number></Dial></Response>`,
      ]);
      expect(call!.stream!.open).toBe(false);
    } finally {
      await deleteBusinessTool(api.db, ws.workspaceId, ORDER_TOOL_NAME);
      await desk.stop();
    }
  });

  it('a machine answers: detection says Machine=true, the call ends no_answer and the answer XML hangs up', async () => {
    const { to, token } = scripted({ turns: [{ say: say(OPENING) }], heard: [] });
    fake.script(to, { kind: 'machine', ringMs: 100 });
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
    const done = await until(res.body.call_id, (c) => c.status === 'completed' || c.status === 'failed');
    expect(done).toMatchObject({ status: 'completed', outcome: 'no_answer' });
    expect(fake.callsTo(to.slice(1))[0]!.xml[0]).toBe('<Response><Hangup/></Response>');
  });

  it.each([
    ['busy', { kind: 'busy' as const }, 'busy'],
    ['unanswered', { kind: 'no-answer' as const }, 'no_answer'],
    ['declined (CALL_REJECTED)', { kind: 'failed' as const, cause: 'CALL_REJECTED' }, 'rejected'],
    ['a number that does not exist (UNALLOCATED_NUMBER)', { kind: 'failed' as const, cause: 'UNALLOCATED_NUMBER' }, 'invalid_number'],
  ])('a call %s ends with its outcome from the hangup report', async (_name, script, outcome) => {
    const { to, token } = scripted({ turns: [], heard: [] });
    fake.script(to, script);
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
    const done = await until(res.body.call_id, (c) => c.status !== 'ringing');
    expect(done.outcome).toBe(outcome);
  });

  it('refuses forged and unsigned requests (401 invalid_signature, nothing changes) and stream handshakes with a wrong secret or signature (403)', async () => {
    const { to, token } = scripted({ turns: [{ say: say(OPENING) }], heard: [] });
    fake.script(to, { kind: 'answer', ringMs: 100, talkMs: null });
    fake.media!.person = async () => {};
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: `a delivery ${token}` });
    const callId = res.body.call_id as string;
    await until(callId, (c) => c.status === 'in_progress');
    const call = fake.callsTo(to.slice(1))[0]!;
    const hangupUrl = `${fake.publicOrigin}${PLIVO_WEBHOOK_PATHS.status}?call_id=${callId}`;
    const ended = { ...fake.hangupParams(call), CallStatus: 'completed' };
    for (const options of [{ forge: true }, { unsigned: true }]) {
      const answer = await fake.post(hangupUrl, ended, options);
      expect([answer.status, JSON.parse(answer.body)]).toEqual([401, { status: 'invalid_signature' }]);
    }
    // A signature of this call's URL replayed on another call's: the query is signed too.
    const nonce = '5542984513';
    const replayed = await fetch(`${fake.localOrigin}${PLIVO_WEBHOOK_PATHS.status}?call_id=call_0000000000000000`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-plivo-signature-v3': plivoSignatureV3(fake.authToken, 'POST', hangupUrl, ended, nonce), 'x-plivo-signature-v3-nonce': nonce },
      body: new URLSearchParams(ended).toString(),
    });
    expect([replayed.status, await replayed.json()]).toEqual([401, { status: 'invalid_signature' }]);
    expect((await until(callId, () => true)).status).toBe('in_progress');

    const url = callStreamUrl(MEDIA_STREAM_URL, fake.authToken, callId);
    const local = (publicUrl: string) => `ws://127.0.0.1:${mediaPort}${new URL(publicUrl).pathname}`;
    const refused = (target: string, headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(target, { headers });
        socket.on('error', () => undefined);
        socket.once('open', () => reject(new Error('accepted')));
        socket.once('unexpected-response', (_req, r) => {
          resolve(r.statusCode ?? 0);
          socket.terminate();
        });
      });
    expect(await refused(local(callStreamUrl(MEDIA_STREAM_URL, 'not-the-auth-token', callId)), {})).toBe(403);
    expect(await refused(local(url), { 'x-plivo-signature-v3': plivoSignatureV3('not-the-auth-token', 'GET', url, {}, '123'), 'x-plivo-signature-v3-nonce': '123' })).toBe(403);
    const hangup = await request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(ws.key));
    expect([hangup.status, hangup.body]).toEqual([200, { call_id: callId, ended: true }]);
  });

  describe('hostile frames on a Plivo stream: each closed with the code that says why and counted, as Twilio’s (issue 32)', () => {
    /** A call the adapter placed and that waits for its stream. */
    let waiting = 0;
    async function waitingCall(): Promise<string> {
      waiting += 1;
      const callId = `call_${Date.now().toString(16)}hostile${waiting}`;
      await lineCalls(api.db).insertOne({
        _id: callId,
        tenant_id: ws.workspaceId,
        provider: 'plivo',
        provider_call_id: randomUUID(),
        recording: false,
        recording_uri: null,
        created_at: new Date(),
        request: {
          callId,
          tenantId: ws.workspaceId,
          direction: 'outbound',
          to: '+919811170002',
          fromNumber: ws.phoneNumber,
          agentId: ws.agentId,
          ringSeconds: 30,
          opening: OPENING,
          purpose: 'hostile',
          script: null,
          detailLines: [],
          capture: null,
          requestedAt: new Date().toISOString(),
        },
      });
      return callId;
    }
    const streamId = '87654321-4321-4321-4321-cba987654321';
    const start = (callId: string) =>
      JSON.stringify({
        event: 'start',
        sequenceNumber: 1,
        start: { callId: randomUUID(), streamId, accountId: fake.authId, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } },
        extra_headers: `callId=${callId.slice(5)}`,
      });
    const media = (fields: Record<string, unknown>, id = streamId) =>
      JSON.stringify({ event: 'media', sequenceNumber: 2, streamId: id, media: { track: 'inbound', timestamp: String(Date.now()), chunk: 1, payload: Buffer.alloc(160, 0xff).toString('base64'), ...fields } });
    const CASES: { name: string; frames: (callId: string) => (string | Buffer)[]; code: number; kind: string }[] = [
      { name: 'the text null', frames: () => ['null'], code: 1007, kind: 'invalid_message' },
      { name: 'text that is not JSON', frames: () => ['}{not json'], code: 1007, kind: 'not_json' },
      { name: '1,000 binary bytes', frames: () => [Buffer.alloc(1000, 7)], code: 1003, kind: 'binary' },
      { name: 'a 70 KiB text frame', frames: () => [JSON.stringify({ event: 'media', pad: 'x'.repeat(70 * 1024) })], code: 1009, kind: 'oversized' },
      { name: 'Twilio’s stop (not a Plivo message)', frames: (callId) => [start(callId), JSON.stringify({ event: 'stop', streamSid: streamId })], code: 1007, kind: 'invalid_message' },
      { name: 'start without its mediaFormat', frames: (callId) => [JSON.stringify({ ...JSON.parse(start(callId)), start: { callId: 'x', streamId } })], code: 1007, kind: 'invalid_message' },
      { name: 'start naming another call in its extra headers', frames: () => [start('call_000000000000aaaaaaaaaaaa')], code: 1008, kind: 'call_mismatch' },
      { name: 'media before start', frames: () => [media({})], code: 1008, kind: 'out_of_order' },
      { name: 'a second start', frames: (callId) => [start(callId), start(callId)], code: 1008, kind: 'out_of_order' },
      { name: 'media with a payload that is not base64', frames: (callId) => [start(callId), media({ payload: '%%%not base64%%%' })], code: 1007, kind: 'invalid_message' },
      { name: 'media with a numeric timestamp', frames: (callId) => [start(callId), media({ timestamp: 5 })], code: 1007, kind: 'invalid_message' },
      { name: 'media of another stream', frames: (callId) => [start(callId), media({}, randomUUID())], code: 1008, kind: 'out_of_order' },
      { name: 'playedStream with an object for its name', frames: (callId) => [start(callId), JSON.stringify({ event: 'playedStream', streamId, name: {} })], code: 1007, kind: 'invalid_message' },
    ];

    it.each(CASES)('$name: closed $code ($kind) and counted', async ({ frames, code, kind }) => {
      const callId = await waitingCall();
      const url = callStreamUrl(MEDIA_STREAM_URL, fake.authToken, callId);
      const socket = new WebSocket(`ws://127.0.0.1:${mediaPort}${new URL(url).pathname}`);
      const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (c, r) => resolve({ code: c, reason: r.toString() })));
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const before = Number((await registry.metrics()).match(new RegExp(`media_stream_violations_total\\{kind="${kind}"\\} (\\d+)`))?.[1] ?? 0);
      for (const frame of frames(callId)) socket.send(frame, { binary: Buffer.isBuffer(frame) });
      const result = await closed;
      expect(result.code).toBe(code);
      if (kind !== 'oversized') expect(result.reason).toBe(kind);
      const after = Number((await registry.metrics()).match(new RegExp(`media_stream_violations_total\\{kind="${kind}"\\} (\\d+)`))?.[1] ?? 0);
      expect(after).toBe(before + 1);
    });

    it('the media process (src/main/media.ts) with VOICE_PROVIDER=plivo speaks Plivo’s protocol from MEDIA_LINES: a wrong secret refused 403, a Plivo start taken, a Twilio message then refused 1007', async () => {
      const { process: child, port } = await startMediaProcess({
        config: api.config,
        realtime: { url: model.url, apiKey: API_KEY },
        name: 'plivo',
        env: {
          VOICE_PROVIDER: 'plivo',
          PLIVO_AUTH_ID: fake.authId,
          PLIVO_AUTH_TOKEN: fake.authToken,
          PLIVO_PUBLIC_URL: fake.publicOrigin,
          PLIVO_MEDIA_STREAM_URL: MEDIA_STREAM_URL,
          PLIVO_API_BASE_URL: fakeOrigin,
        },
      });
      try {
        const callId = await waitingCall();
        const path = (key: string) => new URL(callStreamUrl(MEDIA_STREAM_URL, key, callId)).pathname;
        const wrong = new WebSocket(`ws://127.0.0.1:${port}${path('not-the-auth-token')}`);
        wrong.on('error', () => undefined);
        expect(await new Promise((resolve) => wrong.once('unexpected-response', (_req, r) => resolve(r.statusCode)))).toBe(403);
        const socket = new WebSocket(`ws://127.0.0.1:${port}${path(fake.authToken)}`);
        const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (c, r) => resolve({ code: c, reason: r.toString() })));
        await new Promise<void>((resolve, reject) => {
          socket.once('open', () => resolve());
          socket.once('error', reject);
        });
        socket.send(start(callId));
        socket.send(media({}));
        // Twilio's first message, which Plivo never sends: after a start Twilio's order would say 1008, Plivo's schema says 1007.
        socket.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
        expect(await closed).toEqual({ code: 1007, reason: 'invalid_message' });
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        expect(metrics).toMatch(/media_streams_refused_total\{reason="secret"[^}]*\} 1/);
      } finally {
        await child.stop();
      }
    });
  });

  it('an inbound call: the application’s answer URL starts the inbound lifecycle, the stream opens, the agent greets, the caller speaks and hangs up; a number that is not ours is rejected', async () => {
    const { token } = scripted({ turns: [{ say: say(GREETING) }, { say: say(GOODBYE) }], heard: [CALLER_ASKS] });
    const { agents } = collections(api.db);
    const before = (await agents.findOne({ _id: ws.agentId }))!.voice;
    await agents.updateOne({ _id: ws.agentId }, { $set: { voice: { instructions: `You answer for Acme ${token}.` } } });
    try {
      const streams: PlivoStreamClient[] = [];
      fake.media!.person = async (stream) => {
        streams.push(stream);
        await person([CALLER_ASKS])(stream);
      };
      const { answer } = await fake.placeInbound({ from: '919800055522', to: ws.phoneNumber.replace(/\D/g, ''), answerPath: PLIVO_WEBHOOK_PATHS.voice, hangupPath: PLIVO_WEBHOOK_PATHS.status, talkMs: 12_000 });
      const callId = answer.body.match(/\/media-stream\/(call_[A-Za-z0-9]+)\//)![1]!;
      const done = await until(callId, (c) => c.result.state !== 'pending');
      // The caller, written by Plivo without its +, is read as E.164 (the call's `to` is the other party).
      expect(done).toMatchObject({ direction: 'inbound', status: 'completed', outcome: 'caller_hangup', to: '+919800055522' });
      expect((await said(callId)).slice(0, 2)).toEqual([
        ['model', GREETING],
        ['user', CALLER_ASKS],
      ]);
      expect(streams).toHaveLength(1);
      expect(streams[0]!.received.bytes).toBeGreaterThanOrEqual(audio[GREETING]!.length);
    } finally {
      await agents.updateOne({ _id: ws.agentId }, { $set: { voice: before } });
    }
    const stranger = await fake.placeInbound({ from: '919800055523', to: '14155550999', answerPath: PLIVO_WEBHOOK_PATHS.voice, hangupPath: PLIVO_WEBHOOK_PATHS.status });
    expect(stranger.answer.body).toBe('<Response><Hangup reason="rejected"/></Response>');
  });
});
