import { getExpectedTwilioSignature } from 'twilio';
import WebSocket from 'ws';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { waitFor } from '../../../src/local/net';
import { lineCalls, saveLineCall } from '../../../src/calls/line/lineCalls';
import { callStreamUrl } from '../../../src/calls/line/streamUrl';
import { startTestApi, type TestApi } from '../../support/app';
import { pollCall } from '../../support/calls';
import { startFakeRealtime, type FakeRealtime, type ModelScript } from '../../support/fakeRealtime';
import { FakeTwilio } from '../../support/fakeTwilio';
import { answeredCall, startLineCallWorker } from '../../support/mediaBridge';
import { MediaStreamClient } from '../../support/mediaStreamClient';
import { speechMulaw } from '../../support/speechAudio';
import type { TestWorker } from '../../support/worker';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';
import { startMediaProcess } from '../../support/mediaProcess';

/**
 * The media process (src/main/media.ts, VOICE_PROVIDER=twilio) facing streams that are not
 * what Twilio sends: each is signed as Twilio would sign it, for a call waiting for its
 * stream, and then breaks the protocol. Each such stream is closed with the code that says
 * why and counted; the process lives on and bridges the next real call. Handshakes for a call
 * that is not waiting for a stream are refused before the WebSocket opens.
 */
jest.setTimeout(120_000);

const PUBLIC_STREAM_URL = 'wss://media.example.test/media-stream';
const API_KEY = 'sk-test-hostile-streams';
const OPENING = 'Hello, this is the assistant from Acme. Is now a good time?';
const PERSON = 'No, sorry, I am busy right now.';
const GOODBYE = 'No problem, I will call another time. Goodbye.';

const sid = 'MZ00000000000000000000000000000001';
const connected = JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' });
const start = (callId: string, overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    event: 'start',
    sequenceNumber: '1',
    streamSid: sid,
    start: {
      accountSid: 'AC00000000000000000000000000000000',
      streamSid: sid,
      callSid: 'CA00000000000000000000000000000001',
      tracks: ['inbound'],
      customParameters: { callId },
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      ...overrides,
    },
  });
const media = (fields: Record<string, unknown>, streamSid = sid) =>
  JSON.stringify({ event: 'media', sequenceNumber: '2', streamSid, media: { track: 'inbound', chunk: '1', timestamp: '0', payload: Buffer.alloc(160, 0xff).toString('base64'), ...fields } });

type Frame = string | Buffer;
interface HostileCase {
  name: string;
  /** After `connected` and a valid `start` for the stream's call. */
  afterStart: boolean;
  frames: (callId: string) => Frame[];
  code: number;
  kind: string;
}

/** Every message kind Twilio documents, each malformed, and the frames the issue names. */
const CASES: HostileCase[] = [
  { name: 'the text null', afterStart: false, frames: () => ['null'], code: 1007, kind: 'invalid_message' },
  { name: 'text that is not JSON', afterStart: false, frames: () => ['}{not json'], code: 1007, kind: 'not_json' },
  { name: '1,000 binary bytes', afterStart: false, frames: () => [Buffer.alloc(1000, 7)], code: 1003, kind: 'binary' },
  { name: 'a 70 KiB text frame', afterStart: false, frames: () => [JSON.stringify({ event: 'media', pad: 'x'.repeat(70 * 1024) })], code: 1009, kind: 'oversized' },
  { name: 'an event Twilio does not send', afterStart: false, frames: () => ['{"event":"hello"}'], code: 1007, kind: 'invalid_message' },
  { name: 'connected with a number for its protocol', afterStart: false, frames: () => ['{"event":"connected","protocol":5,"version":"1.0.0"}'], code: 1007, kind: 'invalid_message' },
  { name: 'start without customParameters', afterStart: false, frames: (callId) => [connected, start(callId, { customParameters: undefined })], code: 1007, kind: 'invalid_message' },
  { name: 'start with a mediaFormat of strings', afterStart: false, frames: (callId) => [start(callId, { mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: '8000', channels: '1' } })], code: 1007, kind: 'invalid_message' },
  { name: 'start naming another call', afterStart: false, frames: () => [connected, start('call_000000000000aaaaaaaaaaaa')], code: 1008, kind: 'call_mismatch' },
  { name: 'media before start', afterStart: false, frames: () => [connected, media({})], code: 1008, kind: 'out_of_order' },
  { name: 'a second start', afterStart: true, frames: (callId) => [start(callId)], code: 1008, kind: 'out_of_order' },
  { name: 'connected after start', afterStart: true, frames: () => [connected], code: 1008, kind: 'out_of_order' },
  { name: 'media with a payload that is not base64', afterStart: true, frames: () => [media({ payload: '%%%not base64%%%' })], code: 1007, kind: 'invalid_message' },
  { name: 'media with a numeric timestamp', afterStart: true, frames: () => [media({ timestamp: 0 })], code: 1007, kind: 'invalid_message' },
  { name: 'media without its media object', afterStart: true, frames: () => [JSON.stringify({ event: 'media', streamSid: sid })], code: 1007, kind: 'invalid_message' },
  { name: 'media of another stream', afterStart: true, frames: () => [media({}, 'MZ99999999999999999999999999999999')], code: 1008, kind: 'out_of_order' },
  { name: 'mark with an object for its name', afterStart: true, frames: () => [JSON.stringify({ event: 'mark', streamSid: sid, mark: { name: {} } })], code: 1007, kind: 'invalid_message' },
  { name: 'dtmf with two digits', afterStart: true, frames: () => [JSON.stringify({ event: 'dtmf', streamSid: sid, dtmf: { track: 'inbound_track', digit: '12' } })], code: 1007, kind: 'invalid_message' },
  { name: 'stop with a string for its stop', afterStart: true, frames: () => [JSON.stringify({ event: 'stop', streamSid: sid, stop: 'now' })], code: 1007, kind: 'invalid_message' },
  { name: 'null after start', afterStart: true, frames: () => ['null'], code: 1007, kind: 'invalid_message' },
];

describe('the media process facing hostile streams', () => {
  const twilio = new FakeTwilio();
  let api: TestApi;
  let worker: TestWorker;
  let model: FakeRealtime;
  let mediaProcess: ManagedProcess;
  let port: number;
  let ws: TestWorkspace;
  let seq = 0;
  const scripts = new Map<string, ModelScript>();

  beforeAll(async () => {
    const audio = Object.fromEntries([OPENING, PERSON, GOODBYE].map((text) => [text, speechMulaw(text)]));
    scripts.set('hangs-up', { turns: [{ say: { audio: audio[OPENING]!, transcript: OPENING } }, { say: { audio: audio[GOODBYE]!, transcript: GOODBYE }, call: 'end_call' }], heard: [PERSON] });
    const twilioOrigin = await twilio.start();
    api = await startTestApi();
    worker = await startLineCallWorker(api);
    model = await startFakeRealtime({
      apiKey: API_KEY,
      scriptFor: (instructions) => [...scripts.entries()].find(([token]) => instructions.includes(token))?.[1] ?? { turns: [], heard: [] },
    });
    ws = await createTestWorkspace(api.db);
    ({ process: mediaProcess, port } = await startMediaProcess({
      config: api.config,
      realtime: { url: model.url, apiKey: API_KEY },
      name: 'hostile',
      env: {
        VOICE_PROVIDER: 'twilio',
        TWILIO_ACCOUNT_SID: twilio.accountSid,
        TWILIO_AUTH_TOKEN: twilio.authToken,
        TWILIO_PUBLIC_URL: twilio.publicOrigin,
        TWILIO_MEDIA_STREAM_URL: PUBLIC_STREAM_URL,
        TWILIO_API_BASE_URL: twilioOrigin,
        TWILIO_TIMEOUT_MS: '2000',
      },
    }));
  });

  afterAll(async () => {
    await mediaProcess?.stop();
    await model?.close();
    await worker?.close();
    await api?.close();
    await twilio.stop();
  });

  /** A call the telephony adapter placed and that waits for its stream (its line call, as the adapter saves it). */
  async function waitingCall(extra: Partial<Parameters<typeof saveLineCall>[1]> = {}): Promise<string> {
    const callId = `call_${(Date.now() * 1000 + (seq += 1)).toString(16).padStart(12, '0')}hostile${seq}`;
    await saveLineCall(api.db, {
      _id: callId,
      tenant_id: ws.workspaceId,
      provider: 'twilio',
      provider_call_id: `CA${callId}`,
      recording: false,
      recording_uri: null,
      created_at: new Date(),
      request: {
        callId,
        tenantId: ws.workspaceId,
        direction: 'outbound',
        to: '+919811170001',
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
      ...extra,
    });
    return callId;
  }

  /** The call's stream URL as its TwiML names it (or `publicUrl`), signed as Twilio signs the handshake, opened on loopback. */
  function streamUrls(callId: string, publicUrl = callStreamUrl(PUBLIC_STREAM_URL, twilio.authToken, callId)) {
    return { local: `ws://127.0.0.1:${port}${new URL(publicUrl).pathname}`, signature: getExpectedTwilioSignature(twilio.authToken, publicUrl, {}) };
  }

  /** Opens a signed stream: the socket once open, or the HTTP status it was refused with. */
  async function open(callId: string, publicUrl?: string): Promise<{ socket: WebSocket; closed: Promise<{ code: number; reason: string }> } | { refused: number }> {
    const { local, signature } = streamUrls(callId, publicUrl);
    const socket = new WebSocket(local, { headers: { 'X-Twilio-Signature': signature } });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve({ socket, closed }));
      socket.once('unexpected-response', (_req, res) => {
        resolve({ refused: res.statusCode ?? 0 });
        socket.terminate();
      });
      socket.once('error', reject);
    });
  }

  /** The HTTP status a handshake to `url` with `signature` is refused with. */
  function refusedWith(url: string, signature: string): Promise<number> {
    const socket = new WebSocket(url, { headers: { 'X-Twilio-Signature': signature } });
    socket.on('error', () => undefined);
    return new Promise((resolve, reject) => {
      socket.once('open', () => reject(new Error(`${url} was accepted`)));
      socket.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        socket.terminate();
      });
    });
  }

  async function metrics(): Promise<string> {
    return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  }

  it('closes each stream that breaks the protocol with the code that says why, counts it, and keeps serving', async () => {
    const expected = new Map<string, number>();
    for (const hostile of CASES) {
      const callId = await waitingCall();
      const stream = await open(callId);
      if ('refused' in stream) throw new Error(`${hostile.name}: the handshake was refused (${stream.refused})`);
      // The socket may be closed under the sender (the oversized frame): a failed send is the point.
      const send = (frame: Frame) => stream.socket.send(frame, { binary: Buffer.isBuffer(frame) }, () => undefined);
      if (hostile.afterStart) {
        send(connected);
        send(start(callId));
      }
      for (const frame of hostile.frames(callId)) send(frame);
      const closed = await stream.closed;
      expect({ case: hostile.name, code: closed.code }).toEqual({ case: hostile.name, code: hostile.code });
      expected.set(hostile.kind, (expected.get(hostile.kind) ?? 0) + 1);
      // The process is alive and answering after every one.
      expect(mediaProcess.child.exitCode).toBeNull();
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    }
    const text = await metrics();
    for (const [kind, count] of expected) expect(text).toContain(`media_stream_violations_total{kind="${kind}",service="media"} ${count}`);

    // And the next real call is bridged end to end.
    const callId = await answeredCall(api, ws, '+919811170099', 'asking about a visit hangs-up');
    await pollCall(api, ws.key, callId, (b) => b.status === 'in_progress');
    const { local, signature } = streamUrls(callId);
    const client = await MediaStreamClient.connect(local, { callId }, {}, { 'X-Twilio-Signature': signature });
    await client.agentFinished();
    await client.say(speechMulaw(PERSON));
    await client.closed;
    const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
    expect(ended.outcome).toBe('agent_hangup');
    expect(mediaProcess.child.exitCode).toBeNull();
  });

  it('ends a live call whose stream sends a broken frame mid-call: the stream closed 1007, the call setup_error', async () => {
    const invalidStreamEnds = (text: string) => Number(text.match(/media_sessions_ended_total\{reason="invalid_stream",service="media"\} (\d+)/)?.[1] ?? 0);
    const endedBefore = invalidStreamEnds(await metrics());
    const callId = await answeredCall(api, ws, '+919811170098', 'asking about a visit hangs-up');
    await pollCall(api, ws.key, callId, (b) => b.status === 'in_progress');
    const { local, signature } = streamUrls(callId);
    const client = await MediaStreamClient.connect(local, { callId }, {}, { 'X-Twilio-Signature': signature });
    await client.agentFinished();
    expect(await client.sendRaw('null')).toBe(1007);
    const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
    expect(ended.outcome).toBe('setup_error');
    // Counted as such (the first case's sessions may have ended so too, before their call was loaded or after).
    await waitFor('the session’s end counted', async () => invalidStreamEnds(await metrics()) === endedBefore + 1, 30_000, 100);
    expect(mediaProcess.child.exitCode).toBeNull();
  });

  it('refuses, before the WebSocket opens, a stream for an unknown call, with a wrong secret, for an ended call, or a second stream of a call', async () => {
    const before = await metrics();
    const count = (text: string, reason: string) => Number(text.match(new RegExp(`media_streams_refused_total\\{reason="${reason}",service="media"\\} (\\d+)`))?.[1] ?? 0);

    // Unknown: a well-formed id and its right secret, but no call was placed with it.
    expect(await open('call_000000000000bbbbbbbbbbbb')).toEqual({ refused: 404 });
    // Signed by Twilio, but over a URL this deployment never gave the call (a made-up secret).
    const waiting = await waitingCall();
    expect(await open(waiting, `${PUBLIC_STREAM_URL}/${waiting}/${'A'.repeat(43)}`)).toEqual({ refused: 403 });
    // Another call's URL and signature for this call's path: the signature does not cover it.
    const other = await waitingCall();
    expect(await refusedWith(streamUrls(waiting).local, streamUrls(other).signature)).toBe(403);
    // A path that is not a call's stream (the one URL every call shared before).
    expect(await refusedWith(`ws://127.0.0.1:${port}/media-stream`, getExpectedTwilioSignature(twilio.authToken, PUBLIC_STREAM_URL, {}))).toBe(404);
    // Ended: the call's workflow hung it up before any stream came.
    const ended = await waitingCall({ ended_by_us_at: new Date() });
    expect(await open(ended)).toEqual({ refused: 409 });

    // One stream per call, however many handshakes come at once.
    const raced = await waitingCall();
    const attempts = await Promise.all(Array.from({ length: 5 }, () => open(raced)));
    const opened = attempts.filter((a) => 'socket' in a);
    expect(opened).toHaveLength(1);
    expect(attempts.filter((a) => 'refused' in a).map((a) => ('refused' in a ? a.refused : 0))).toEqual([409, 409, 409, 409]);
    // ...and after it, too.
    expect(await open(raced)).toEqual({ refused: 409 });
    for (const a of opened) if ('socket' in a) a.socket.close();

    const after = await metrics();
    expect(count(after, 'unknown_call') - count(before, 'unknown_call')).toBe(1);
    expect(count(after, 'secret') - count(before, 'secret')).toBe(1);
    expect(count(after, 'signature') - count(before, 'signature')).toBe(1);
    expect(count(after, 'path') - count(before, 'path')).toBe(1);
    expect(count(after, 'ended') - count(before, 'ended')).toBe(1);
    expect(count(after, 'taken') - count(before, 'taken')).toBe(5);
    expect(await lineCalls(api.db).countDocuments({ _id: raced })).toBe(1);
    expect(mediaProcess.child.exitCode).toBeNull();
  });
});
