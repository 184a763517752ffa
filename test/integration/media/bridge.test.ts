import { execFileSync } from 'node:child_process';
import { getExpectedTwilioSignature } from 'twilio';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collections } from '../../../src/db/collections';
import { lineCalls } from '../../../src/calls/line/lineCalls';
import { readLineTurns, type LineTurnDoc } from '../../../src/calls/line/lineTurns';
import type { AgentVoice } from '../../../src/calls/agentVoice';
import { startTestApi, type TestApi } from '../../support/app';
import { pollCall } from '../../support/calls';
import { startFakeRealtime, type FakeRealtime, type ModelScript } from '../../support/fakeRealtime';
import { answeredCall, startLineCallWorker, startTestBridge, type TestBridge } from '../../support/mediaBridge';
import { MediaStreamClient } from '../../support/mediaStreamClient';
import { FRAME_BYTES, mulawRms, speechMulaw } from '../../support/speechAudio';
import type { TestWorker } from '../../support/worker';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * The media bridge (src/media/) between a Twilio media stream and a realtime model, with real
 * speech both ways: a media-stream client plays espeak-ng speech as Twilio sends it, the fake
 * model hears it with a voice detector and answers with speech, and the call's workflow on
 * the dev server takes what the bridge tells it.
 */
jest.setTimeout(90_000);

const API_KEY = 'sk-test-realtime-0123456789';
const OPENING = 'Hello, this is the assistant from Acme calling about your delivery. Am I speaking with Asha?';
const PERSON = 'Yes, this is Asha speaking.';
const GOODBYE = 'Thank you Asha, your delivery is confirmed. Goodbye.';
const ASKS_FOR_HUMAN = 'Can I talk to a person please?';
const CONNECTING = 'Of course, I am connecting you to a colleague now.';
const LONG_OPENING =
  'Hello, this is the assistant from Acme calling about your delivery. It is booked for tomorrow morning between nine and eleven. Will someone be at home to sign for the parcel, and is the gate code still four four one two?';
const INTERRUPTS = 'Sorry, who is calling?';
const ANSWERS = 'This is Acme about your delivery. Goodbye for now.';

describe('the media bridge', () => {
  let api: TestApi;
  let worker: TestWorker;
  let model: FakeRealtime;
  const scripts = new Map<string, ModelScript>();
  const audio: Record<string, Buffer> = {};
  let destination = 919811150000;

  beforeAll(async () => {
    for (const text of [OPENING, PERSON, GOODBYE, ASKS_FOR_HUMAN, CONNECTING, LONG_OPENING, INTERRUPTS, ANSWERS]) audio[text] = speechMulaw(text);
    api = await startTestApi();
    worker = await startLineCallWorker(api);
    model = await startFakeRealtime({
      apiKey: API_KEY,
      scriptFor: (instructions) => [...scripts.entries()].find(([token]) => instructions.includes(token))?.[1] ?? { turns: [], heard: [] },
    });
  });

  afterAll(async () => {
    await model?.close();
    await worker?.close();
    await api?.close();
  });

  const say = (text: string) => ({ audio: audio[text]!, transcript: text });

  /** A workspace, an answered call whose purpose names `script`, and its agent's voice and number set. */
  async function call(script: ModelScript, options: { voice?: Partial<AgentVoice>; recording?: boolean; teamLine?: string } = {}) {
    const ws: TestWorkspace = await createTestWorkspace(api.db);
    const { agents, phoneNumbers } = collections(api.db);
    if (options.voice) await agents.updateOne({ _id: ws.agentId }, { $set: { voice: options.voice } });
    await phoneNumbers.updateOne({ _id: ws.phoneNumber.slice(1) }, { $set: { recording: options.recording ?? false, team_line: options.teamLine ?? null } });
    const token = `purpose-${(destination += 1)}`;
    scripts.set(token, script);
    const callId = await answeredCall(api, ws, `+${destination}`, `confirming delivery ${token}`);
    await pollCall(api, ws.key, callId, (b) => b.status === 'in_progress');
    return { ws, callId, token };
  }

  /** Twilio's part when the network is asked to end or move the call: the stream stops. */
  function twilioEndsStreamOnRequest(bridge: TestBridge, client: MediaStreamClient): void {
    bridge.lineControl.onRequest = async () => {
      setTimeout(() => void client.stop(), 50);
    };
  }

  async function turnsOf(callId: string): Promise<LineTurnDoc[]> {
    return api.db.collection<LineTurnDoc>('line_turns').find({ call_id: callId }).sort({ seq: 1 }).toArray();
  }

  const sessionOf = (token: string) => model.sessions.find((s) => s.instructions.includes(token))!;

  it('bridges a conversation with real speech both ways at real-time pace; the agent hangs up with end_call and the workflow ends agent_hangup', async () => {
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: API_KEY });
    try {
      const { ws, callId, token } = await call({ turns: [{ say: say(OPENING) }, { say: say(GOODBYE), call: 'end_call' }], heard: [PERSON] });
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      twilioEndsStreamOnRequest(bridge, client);
      await client.agentFinished();
      const spokeAt = Date.now();
      await client.say(audio[PERSON]!);
      await client.closed;

      const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
      expect(ended.outcome).toBe('agent_hangup');
      expect(bridge.lineControl.requests).toEqual([{ kind: 'end', callId }]);

      // What the SDK told the model: the call's instructions, the end_call tool only (no team
      // line), the agent's voice, phone audio both ways, and the caller's speech transcribed.
      const session = sessionOf(token);
      const configured = session.sessionUpdates.find((u) => u.instructions)!;
      expect(configured.instructions).toContain(`confirming delivery ${token}`);
      expect(configured.tools.map((t: { name: string }) => t.name)).toEqual(['end_call']);
      expect(configured.audio.output.voice).toBe('alloy');
      expect(JSON.stringify(configured.audio.input.format)).toMatch(/ulaw|pcmu/);
      expect(JSON.stringify(configured.audio.output.format)).toMatch(/ulaw|pcmu/);
      expect(configured.audio.input.transcription).toMatchObject({ language: 'en' });
      expect(session.toolOutputs).toHaveLength(1);

      // Both sides' turns, in the order spoken, with their times.
      const turns = await turnsOf(callId);
      expect(turns.map((t) => [t.seq, t.role, t.text])).toEqual([
        [1, 'model', OPENING],
        [2, 'user', PERSON],
        [3, 'model', GOODBYE],
      ]);
      expect(turns[0]!.at.getTime()).toBeLessThan(turns[1]!.at.getTime());
      expect(turns[1]!.at.getTime()).toBeLessThan(turns[2]!.at.getTime());
      // The caller's turn is placed on the stream clock, where the speech began (not when it was transcribed).
      expect(Math.abs(turns[1]!.at.getTime() - spokeAt)).toBeLessThan(1_500);
      // The existing reader's view: seconds since the answer, in order.
      const read = await readLineTurns(api.db, callId, turns[0]!.at, 600);
      expect(read.map((t) => t.role)).toEqual(['model', 'user', 'model']);

      // Audio both ways: every word of both answers reached the caller (the goodbye played out
      // before the hang-up), and the model heard the caller's frames.
      expect(client.received.bytes).toBe(audio[OPENING]!.length + audio[GOODBYE]!.length);
      expect(session.appendedBytes).toBeGreaterThanOrEqual(audio[PERSON]!.length);
      expect(client.sent.every((f) => f.bytes === FRAME_BYTES)).toBe(true);
      // Real-time pace: the opening's frames arrived over (about) as long as it lasts, not in a burst.
      const opening = client.received.frames.slice(0, Math.ceil(audio[OPENING]!.length / FRAME_BYTES));
      expect(opening.at(-1)!.atMs - opening[0]!.atMs).toBeGreaterThanOrEqual(0.8 * (audio[OPENING]!.length / 8));
      const metrics = await bridge.registry.metrics();
      expect(metrics).toMatch(/media_frames_total\{direction="inbound"\} [1-9]/);
      expect(metrics).toMatch(/media_frames_total\{direction="outbound"\} [1-9]/);
      expect(metrics).toMatch(/media_bridge_latency_seconds_count\{direction="inbound"\} [1-9]/);
      expect(metrics).toMatch(/media_sessions_ended_total\{reason="agent_hangup"\} 1/);
      expect(metrics).toMatch(/media_sessions_live 0/);
    } finally {
      await bridge.close();
    }
  });

  it('keeps of an interrupted agent turn only the words the caller heard (the SDK’s truncation point), ending with …', async () => {
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: API_KEY });
    try {
      // The model speaks twice as fast as the line plays, as a hosted one does: its words run ahead of what the caller hears.
      const { ws, callId } = await call({ turns: [{ say: say(LONG_OPENING) }, { say: say(ANSWERS), call: 'end_call' }], heard: [INTERRUPTS], bytesPerSecond: 16_000 });
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      twilioEndsStreamOnRequest(bridge, client);
      // The caller talks over the agent about three seconds into its opening (the line plays it from its first frame on).
      await waitUntil(() => client.received.frames.length > 0, 20_000);
      const playingFrom = client.received.frames[0]!.atMs;
      await waitUntil(() => Date.now() - playingFrom >= 3_000, 20_000);
      void client.say(audio[INTERRUPTS]!);
      await waitUntil(() => client.received.clears > 0);
      const heardMs = Date.now() - playingFrom;
      await client.closed;
      expect((await pollCall(api, ws.key, callId, (b) => b.status === 'completed')).outcome).toBe('agent_hangup');

      const turns = await turnsOf(callId);
      expect(turns.map((t) => t.role)).toEqual(['model', 'user', 'model']);
      const [opening, interruption, answer] = turns;
      expect(interruption!.text).toBe(INTERRUPTS);
      expect(answer!.text).toBe(ANSWERS);
      // The opening as heard: its first words, not the questions the caller never heard.
      expect(opening!.text).toMatch(/…$/);
      const kept = opening!.text.slice(0, -1);
      expect(LONG_OPENING.startsWith(kept)).toBe(true);
      expect(opening!.text).not.toContain('gate code');
      const keptShare = kept.split(' ').length / LONG_OPENING.split(' ').length;
      const heardShare = (heardMs * 8) / audio[LONG_OPENING]!.length;
      expect(heardShare).toBeLessThan(0.8);
      expect(Math.abs(keptShare - heardShare)).toBeLessThan(0.2);
    } finally {
      await bridge.close();
    }
  });

  it('ends the call as idle when the person says nothing past the agent’s idle seconds', async () => {
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: API_KEY });
    try {
      const { ws, callId } = await call({ turns: [{ say: say(OPENING) }], heard: [] }, { voice: { idle_seconds: 2 } });
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      twilioEndsStreamOnRequest(bridge, client);
      await client.closed;
      const lastAgentAudio = client.received.frames.at(-1)!.atMs;
      const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
      expect(ended.outcome).toBe('idle');
      expect(bridge.lineControl.requests).toEqual([{ kind: 'end', callId }]);
      // The silence is counted from when the opening finished playing.
      expect(client.received.bytes).toBe(audio[OPENING]!.length);
      expect(Date.now() - lastAgentAudio).toBeGreaterThanOrEqual(2_000);
    } finally {
      await bridge.close();
    }
  });

  it('ends the call as max_duration at the maximum length, while the person is still talking', async () => {
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: API_KEY, maxCallSecondsCap: 4 });
    try {
      const { ws, callId } = await call({ turns: [{ say: say(OPENING) }, { say: say(GOODBYE) }], heard: [PERSON] }, { voice: { idle_seconds: 60 } });
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      twilioEndsStreamOnRequest(bridge, client);
      const began = Date.now();
      void client.say(Buffer.concat([audio[PERSON]!, audio[PERSON]!, audio[PERSON]!]));
      await client.closed;
      expect(Date.now() - began).toBeGreaterThanOrEqual(4_000);
      const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
      expect(ended.outcome).toBe('max_duration');
      expect(bridge.lineControl.requests).toEqual([{ kind: 'end', callId }]);
    } finally {
      await bridge.close();
    }
  });

  it('transfers the caller to the number’s team line: human_handoff, then the network moves the call', async () => {
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: API_KEY });
    try {
      const { ws, callId, token } = await call(
        { turns: [{ say: say(OPENING) }, { say: say(CONNECTING), call: 'transfer_to_human' }], heard: [ASKS_FOR_HUMAN] },
        { teamLine: '+919800000001' },
      );
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      twilioEndsStreamOnRequest(bridge, client);
      await client.agentFinished();
      await client.say(audio[ASKS_FOR_HUMAN]!);
      await client.closed;
      const handed = await pollCall(api, ws.key, callId, (b) => b.status === 'human_handoff');
      expect(handed.ended_at).toBeNull();
      expect(bridge.lineControl.requests).toEqual([{ kind: 'transfer', callId, to: '+919800000001' }]);
      const configured = sessionOf(token).sessionUpdates.find((u) => u.instructions)!;
      expect(configured.tools.map((t: { name: string }) => t.name)).toEqual(['end_call', 'transfer_to_human']);
      // The agent's words before the transfer were heard in full.
      expect(client.received.bytes).toBe(audio[OPENING]!.length + audio[CONNECTING]!.length);
      expect((await turnsOf(callId)).map((t) => t.text)).toEqual([OPENING, ASKS_FOR_HUMAN, CONNECTING]);
    } finally {
      await bridge.close();
    }
  });

  it('records both sides as a stereo WAV when the number records, and names it in recording_uri as a storage reference', async () => {
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: API_KEY });
    try {
      const { ws, callId } = await call({ turns: [{ say: say(OPENING) }, { say: say(GOODBYE), call: 'end_call' }], heard: [PERSON] }, { recording: true });
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      twilioEndsStreamOnRequest(bridge, client);
      await client.agentFinished();
      await client.say(audio[PERSON]!);
      await client.closed;
      await pollCall(api, ws.key, callId, (b) => b.status === 'completed');

      const line = await lineCalls(api.db).findOne({ _id: callId });
      expect(line!.recording_uri).toBe(`storage://recordings/${ws.workspaceId}/${callId}.wav`);
      const file = join(bridge.recordingsDir, ws.workspaceId, `${callId}.wav`);
      expect(existsSync(file)).toBe(true);
      // sox reads it as what it is: two channels of 8 kHz mu-law, as long as the stream.
      const info = execFileSync('sox', ['--i', file], { encoding: 'utf8' });
      expect(info).toMatch(/Channels\s*: 2/);
      expect(info).toMatch(/Sample Rate\s*: 8000/);
      expect(info).toMatch(/Sample Encoding: 8-bit u-law/);
      const seconds = Number(execFileSync('sox', ['--i', '-D', file], { encoding: 'utf8' }).trim());
      expect(seconds).toBeGreaterThan((audio[OPENING]!.length + audio[PERSON]!.length + audio[GOODBYE]!.length) / 8000);

      // Left: the caller, exactly as sent, at its place on the stream clock.
      const wav = readFileSync(file);
      const data = wav.subarray(58);
      const left = Buffer.alloc(data.length / 2);
      const right = Buffer.alloc(data.length / 2);
      for (let i = 0; i < left.length; i++) {
        left[i] = data[2 * i]!;
        right[i] = data[2 * i + 1]!;
      }
      const firstVoiced = client.sent.findIndex((f) => f.voiced);
      const person = audio[PERSON]!;
      expect(left.subarray(firstVoiced * FRAME_BYTES, firstVoiced * FRAME_BYTES + person.length).equals(person)).toBe(true);
      expect(mulawRms(left.subarray(0, firstVoiced * FRAME_BYTES))).toBeLessThan(50);
      // Right: every frame of the agent's opening, then of its goodbye, in order (a frame that
      // reached the line late leaves the gap the caller heard).
      const afterOpening = framesInOrder(right, audio[OPENING]!, 0);
      expect(afterOpening).toBeGreaterThan(0);
      expect(framesInOrder(right, audio[GOODBYE]!, afterOpening)).toBeGreaterThan(afterOpening);
      expect(mulawRms(right.subarray(firstVoiced * FRAME_BYTES, firstVoiced * FRAME_BYTES + person.length))).toBeLessThan(50);
    } finally {
      await bridge.close();
    }
  });

  it('ends the session cleanly on a dropped media socket (no stop): the call ends as setup_error and the turns so far are kept', async () => {
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: API_KEY });
    try {
      const { ws, callId, token } = await call({ turns: [{ say: say(OPENING) }], heard: [] }, { voice: { idle_seconds: 60 } });
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      await client.agentFinished();
      await client.drop();
      const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
      expect(ended.outcome).toBe('setup_error');
      expect(bridge.lineControl.requests).toEqual([{ kind: 'end', callId }]);
      expect((await turnsOf(callId)).map((t) => [t.role, t.text])).toEqual([['model', OPENING]]);
      // The model's connection was closed with the stream.
      await waitUntil(() => sessionOf(token).closed);
      expect(bridge.media.sessions.size).toBe(0);
      expect(await bridge.registry.metrics()).toMatch(/media_sessions_ended_total\{reason="dropped"\} 1/);
    } finally {
      await bridge.close();
    }
  });

  it('refuses a stream whose handshake Twilio did not sign (403) and bridges one it did', async () => {
    const authToken = 'twilio-auth-token-0123456789';
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: API_KEY, streamAuthToken: authToken });
    try {
      const { ws, callId } = await call({ turns: [{ say: say(OPENING) }, { say: say(GOODBYE), call: 'end_call' }], heard: [PERSON] });
      const url = bridge.streamUrl(callId);
      const forged = getExpectedTwilioSignature('another-token', url, {});
      for (const headers of [{}, { 'X-Twilio-Signature': forged }] as Record<string, string>[]) {
        await expect(MediaStreamClient.connect(url, { callId }, {}, headers)).rejects.toThrow('Unexpected server response: 403');
      }
      // Signed by Twilio, but over a URL this deployment never gave the call (a made-up secret).
      const madeUp = `${bridge.url}/${callId}/${'A'.repeat(43)}`;
      await expect(MediaStreamClient.connect(madeUp, { callId }, {}, { 'X-Twilio-Signature': getExpectedTwilioSignature(authToken, madeUp, {}) })).rejects.toThrow(
        'Unexpected server response: 403',
      );
      const metrics = await bridge.registry.metrics();
      expect(metrics).toMatch(/media_streams_refused_total\{reason="signature"\} 2/);
      expect(metrics).toMatch(/media_streams_refused_total\{reason="secret"\} 1/);
      const client = await MediaStreamClient.connect(url, { callId }, {}, { 'X-Twilio-Signature': getExpectedTwilioSignature(authToken, url, {}) });
      twilioEndsStreamOnRequest(bridge, client);
      await client.agentFinished();
      await client.say(audio[PERSON]!);
      await client.closed;
      expect((await pollCall(api, ws.key, callId, (b) => b.status === 'completed')).outcome).toBe('agent_hangup');
    } finally {
      await bridge.close();
    }
  });

  it('ends the call as setup_error when the realtime model refuses the session (a wrong key)', async () => {
    const bridge = await startTestBridge(api, { realtimeUrl: model.url, apiKey: 'sk-wrong-key' });
    try {
      const refusedBefore = model.refused;
      const { ws, callId } = await call({ turns: [], heard: [] });
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      twilioEndsStreamOnRequest(bridge, client);
      await client.closed;
      const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
      expect(ended.outcome).toBe('setup_error');
      expect(model.refused).toBe(refusedBefore + 1);
      expect(bridge.lineControl.requests).toEqual([{ kind: 'end', callId }]);
    } finally {
      await bridge.close();
    }
  });
});

/** Where the last of `audio`'s 20 ms frames ends in `track`, each found after the one before; -1 if one is missing. */
function framesInOrder(track: Buffer, audio: Buffer, from: number): number {
  let at = from;
  for (let offset = 0; offset < audio.length; offset += FRAME_BYTES) {
    const frame = audio.subarray(offset, offset + FRAME_BYTES);
    const found = track.indexOf(frame, at);
    if (found < 0) return -1;
    at = found + frame.length;
  }
  return at;
}

async function waitUntil(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
