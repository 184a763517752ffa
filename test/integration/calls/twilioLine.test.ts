import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { defaultPayloadConverter } from '@temporalio/common';
import { collections } from '../../../src/db/collections';
import { findLineCall, lineCalls, markMedia } from '../../../src/calls/line/lineCalls';
import { appendLineTurn } from '../../../src/calls/line/lineTurns';
import { signalLineEvent } from '../../../src/calls/line/signalLine';
import { twilioSettingsFrom } from '../../../src/providers/voice/twilio/settings';
import { TwilioVoiceProvider } from '../../../src/providers/voice/twilio/twilioVoiceProvider';
import { TWILIO_WEBHOOK_PATHS } from '../../../src/providers/voice/twilio/webhookUrls';
import type { LineEvent } from '../../../src/calls/voiceLine';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { useTestApi } from '../../support/app';
import { pollCall } from '../../support/calls';
import { insertContacts, zoneOpenAt } from '../../support/campaigns';
import { FakeTwilio, rfc2822 } from '../../support/fakeTwilio';
import { streamSecret } from '../../../src/calls/line/streamUrl';
import { bearer } from '../../support/http';
import { SCOPES } from '../../../src/domain/scopes';
import { startTestWorker, startWorkerProcess, type TestWorker } from '../../support/worker';
import type { ManagedProcess } from '../../../src/local/childProcess';

const MEDIA_STREAM_URL = 'wss://media.example.test/twilio/stream';

/**
 * A worker whose provider stops short once, when told, between Twilio accepting the call and
 * the CallSid being stored: the worker dying at the worst moment, as the activity's retry sees it.
 */
class DiesAfterDialling extends TwilioVoiceProvider {
  dieNext = false;

  override async recordCallSid(callId: string, sid: string): Promise<void> {
    if (this.dieNext) {
      this.dieNext = false;
      throw new Error('the worker died after dialling');
    }
    await super.recordCallSid(callId, sid);
  }
}

// A case waits up to 45 s for a call's end and up to 60 s for the fake's view of it on a loaded machine.
jest.setTimeout(120_000);

/**
 * Calls on the Twilio adapter end to end: POST /calls on the real API with VOICE_PROVIDER=twilio,
 * the worker placing them with the `twilio` client against a fake REST API, and the fake
 * calling the API's webhooks back signed, as Twilio does.
 */
describe('calls on a Twilio line (VOICE_PROVIDER=twilio, against a fake Twilio)', () => {
  const fake = new FakeTwilio();
  let fakeOrigin = '';
  beforeAll(async () => {
    fakeOrigin = await fake.start();
  });
  const env = () => ({
    VOICE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: fake.accountSid,
    TWILIO_AUTH_TOKEN: fake.authToken,
    TWILIO_PUBLIC_URL: fake.publicOrigin,
    TWILIO_MEDIA_STREAM_URL: MEDIA_STREAM_URL,
    TWILIO_API_BASE_URL: fakeOrigin,
  });
  const { api, ws } = useTestApi(() => ({ env: env() }));
  let worker: TestWorker;
  let voice: DiesAfterDialling;
  /** What the media bridge holds: the same adapter's LineControl. */
  let line: TwilioVoiceProvider;
  beforeAll(async () => {
    fake.localOrigin = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    // The media bridge's notes on each call's stream, as the media process writes them: without
    // them a completed call reads as one whose agent was missing (setup_error).
    fake.standInBridge = (callId, what) => markMedia(api.db, callId, what, new Date());
    const settings = twilioSettingsFrom(api.config)!;
    voice = new DiesAfterDialling(api.db, settings);
    line = new TwilioVoiceProvider(api.db, settings);
    worker = await startTestWorker({
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      deps: buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE }, { voice }),
    });
  });
  /** Hang-ups a test has not reached (it failed first), let go before the fake stops: it waits for each call's end. */
  const hangUpsLeft = new Set<() => void>();
  afterAll(async () => {
    for (const now of hangUpsLeft) now();
    await worker?.close();
    await fake.stop();
  });
  /** When a scripted person hangs up (FakeTwilio's `talkMs`): once the test says so. */
  function personHangsUp(): { when: Promise<void>; now: () => void } {
    let resolve!: () => void;
    const when = new Promise<void>((r) => (resolve = r));
    const now = () => {
      hangUpsLeft.delete(now);
      resolve();
    };
    hangUpsLeft.add(now);
    return { when, now };
  }

  let n = 0;
  /** A destination of its own per test. */
  const destination = () => `+9198111${String(Date.now() % 1000).padStart(3, '0')}${String(++n).padStart(2, '0')}`;
  /**
   * The key requests go with. A test that makes many requests in a row takes keys of its own,
   * so the per-key limit of 120 requests a minute (a slow, loaded run polls more) refuses none
   * of its requests or the tests after it.
   */
  let ownKey: string | null = null;
  const key = () => ownKey ?? ws.key;
  const place = async (to: string, body: Record<string, unknown> = {}) => {
    const res = await request(api.server).post('/api/v1/calls').set(bearer(key())).send({ to, purpose: 'confirming tomorrow’s delivery', ...body });
    // The body too: a refusal names its reason.
    expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
    return res.body.call_id as string;
  };
  const until = (callId: string, done: (call: any) => boolean, timeoutMs = 45_000) => pollCall(api, key(), callId, done, timeoutMs);
  const over = (callId: string) => until(callId, (c) => c.status === 'completed' || c.status === 'failed');
  /** The line events the call's workflow was signalled, in order. */
  async function lineEvents(callId: string): Promise<LineEvent[]> {
    const history = await api.temporal.workflow.getHandle(callId).fetchHistory();
    return (history.events ?? [])
      .filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'lineEvent')
      .map((e) => defaultPayloadConverter.fromPayload<LineEvent>(e.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!));
  }

  it('places the call as Twilio expects it, the person answers, talks and hangs up: caller_hangup, both sides in the transcript, line events at Twilio’s times', async () => {
    const to = destination();
    // The person hangs up a while after the turns below, not after a fixed talk time: a loaded
    // machine may see the call live late, and a turn later than the call's (whole) seconds
    // connected is left out of its transcript.
    const hangUp = personHangsUp();
    fake.script(to, { kind: 'answer', ringMs: 200, talkMs: hangUp.when });
    const callId = await place(to, { ring_seconds: 25 });
    const live = await until(callId, (c) => c.status === 'in_progress');
    // What the media bridge does while the call is up: both sides' turns with their times.
    const at = Date.now();
    await appendLineTurn(api.db, { call_id: callId, tenant_id: ws.workspaceId, seq: 0, role: 'model', text: 'Hello, this is the virtual assistant of Demo. Is now a good time?', at: new Date(at) });
    await appendLineTurn(api.db, { call_id: callId, tenant_id: ws.workspaceId, seq: 1, role: 'user', text: 'Yes, now is fine.', at: new Date(at + 400) });
    await new Promise((r) => setTimeout(r, at + 400 + 2_000 - Date.now()));
    hangUp.now();
    const done = await over(callId);
    expect(live.status).toBe('in_progress');
    expect(done).toMatchObject({ status: 'completed', outcome: 'caller_hangup' });
    const stored = await api.db.collection('calls').findOne({ _id: callId as never });
    expect(stored!.transcript.map((t: { role: string; text: string }) => [t.role, t.text])).toEqual([
      ['model', 'Hello, this is the virtual assistant of Demo. Is now a good time?'],
      ['user', 'Yes, now is fine.'],
    ]);

    const [call] = fake.callsTo(to);
    expect(fake.creates.filter((c) => c.To === to)).toHaveLength(1);
    expect(call!.params).toMatchObject({
      To: to,
      From: `+${ws.phoneNumber.replace(/\D/g, '')}`,
      Timeout: '25',
      Url: `${fake.publicOrigin}${TWILIO_WEBHOOK_PATHS.answer}?call_id=${callId}`,
      Method: 'POST',
      StatusCallback: `${fake.publicOrigin}${TWILIO_WEBHOOK_PATHS.status}?call_id=${callId}`,
      StatusCallbackMethod: 'POST',
      MachineDetection: 'Enable',
    });
    expect(fake.creates.find((c) => c.To === to)!.StatusCallbackEvent).toBe('initiated ringing answered completed');
    // The answer: the agent on a media stream that names the call.
    // Its own URL: the call id and its secret in the path (src/providers/voice/twilio/streamUrl.ts).
    expect(call!.twiml[0]).toContain(
      `<Connect><Stream url="${MEDIA_STREAM_URL}/${callId}/${streamSecret(fake.authToken, callId)}"><Parameter name="callId" value="${callId}"/></Stream></Connect>`,
    );
    expect(await findLineCall(api.db, callId)).toMatchObject({ provider: 'twilio', provider_call_id: call!.sid, recording_uri: null });

    // Line events carry Twilio's Timestamp of each status, not when the workflow took them.
    const events = await lineEvents(callId);
    // The end's report carries the answer too: its Timestamp less CallDuration.
    const completed = fake.callbacks.find((c) => c.params.CallSid === call!.sid && c.params.CallStatus === 'completed')!.params;
    const endedAt = new Date(rfc2822(call!.endedAt!));
    expect(events).toEqual([
      { kind: 'answered', at: new Date(rfc2822(call!.answeredAt!)).toISOString() },
      { kind: 'ended', outcome: 'caller_hangup', at: endedAt.toISOString(), answeredAt: new Date(endedAt.getTime() - Number(completed.CallDuration) * 1000).toISOString() },
    ]);
    // Every callback was accepted (initiated and ringing change nothing).
    expect(fake.callbacks.filter((c) => c.params.CallSid === call!.sid).map((c) => [c.params.CallStatus, c.status])).toEqual([
      ['initiated', 200],
      ['ringing', 200],
      ['in-progress', 200],
      ['in-progress', 200],
      ['completed', 200],
    ]);
  });

  it('a recorded call: the line call says so, and the call’s recording_uri is where the media bridge stored it', async () => {
    const to = destination();
    const numberId = ws.phoneNumber.replace(/\D/g, '');
    const hangUp = personHangsUp();
    fake.script(to, { kind: 'answer', talkMs: hangUp.when });
    await collections(api.db).phoneNumbers.updateOne({ _id: numberId }, { $set: { recording: true } });
    try {
      const callId = await place(to);
      await until(callId, (c) => c.status === 'in_progress');
      expect(await findLineCall(api.db, callId)).toMatchObject({ recording: true, recording_uri: null });
      // What the media bridge writes when it has stored both sides' audio.
      const uri = `storage://recordings/${ws.workspaceId}/${callId}.wav`;
      await lineCalls(api.db).updateOne({ _id: callId }, { $set: { recording_uri: uri } });
      hangUp.now();
      expect(await over(callId)).toMatchObject({ outcome: 'caller_hangup', recording_uri: uri });
    } finally {
      await collections(api.db).phoneNumbers.updateOne({ _id: numberId }, { $set: { recording: false } });
    }
  });

  it.each([
    ['busy', { kind: 'busy' as const }, 'busy'],
    ['no answer within the ring time', { kind: 'no-answer' as const }, 'no_answer'],
    ['a number that does not exist (SIP 404)', { kind: 'failed' as const, sip: 404 }, 'invalid_number'],
    ['a call declined (SIP 603)', { kind: 'failed' as const, sip: 603 }, 'rejected'],
    ['a congested network (SIP 503)', { kind: 'failed' as const, sip: 503 }, 'congestion'],
    ['a phone out of reach (SIP 480)', { kind: 'failed' as const, sip: 480 }, 'unreachable'],
  ])('%s: completed with outcome %s… as mapped, never answered, decided unanswered', async (_what, script, outcome) => {
    const to = destination();
    fake.script(to, script);
    const callId = await place(to);
    const done = await until(callId, (c) => c.result.state !== 'pending');
    expect(done).toMatchObject({ status: 'completed', outcome, duration_seconds: 0, started_at: null, result: { state: 'ready', disposition: 'unanswered' } });
    expect(fake.creates.filter((c) => c.To === to)).toHaveLength(1);
  });

  it('a machine answers: Twilio’s detection says machine_start, we hang up, the call is no_answer and never connected', async () => {
    const to = destination();
    fake.script(to, { kind: 'machine' });
    const callId = await place(to);
    const done = await until(callId, (c) => c.result.state !== 'pending');
    expect(done).toMatchObject({ status: 'completed', outcome: 'no_answer', duration_seconds: 0, started_at: null, result: { disposition: 'unanswered' } });
    const [call] = fake.callsTo(to);
    // Hung up by our side, not left talking to the voicemail.
    await expect(waitFor(() => call!.status === 'completed')).resolves.toBe(true);
    expect(call!.answeredBy).toBe('machine_start');
  });

  it('the agent ends the call: agent_hangup signalled, then LineControl.endCall hangs up through the REST API (repeatable)', async () => {
    const to = destination();
    fake.script(to, { kind: 'answer', talkMs: null });
    const callId = await place(to);
    await until(callId, (c) => c.status === 'in_progress');
    // As the media bridge does: the reason first, then the line.
    await signalLineEvent(api.temporal, callId, { kind: 'ended', outcome: 'agent_hangup' });
    await line.endCall(callId);
    await line.endCall(callId);
    const done = await over(callId);
    expect(done).toMatchObject({ status: 'completed', outcome: 'agent_hangup' });
    expect(fake.callsTo(to)[0]!.status).toBe('completed');
  });

  it('a hang-up through the API ends a live Twilio call: ended true, agent_hangup, the network call completed', async () => {
    const to = destination();
    fake.script(to, { kind: 'answer', talkMs: null });
    const callId = await place(to);
    await until(callId, (c) => c.status === 'in_progress');
    const res = await request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(ws.key));
    expect(res.status).toBe(200);
    expect(res.body.ended).toBe(true);
    expect(await over(callId)).toMatchObject({ outcome: 'agent_hangup' });
    await expect(waitFor(() => fake.callsTo(to)[0]!.status === 'completed')).resolves.toBe(true);
  });

  it('a hang-up through the API at the instant the person hangs up answers 200 with ended true or false, never 500; the call ends once', async () => {
    const answers: [number, unknown][] = [];
    for (let i = 0; i < 24; i++) {
      if (i % 4 === 0) ownKey = (await ws.addKey([...SCOPES])).key;
      const to = destination();
      fake.script(to, { kind: 'answer', ringMs: 50, talkMs: null });
      const callId = await place(to);
      await until(callId, (c) => c.status === 'in_progress');
      // The person's hang-up reaches the workflow; the API's arrives while it finishes (its last local-activity task).
      const pause = () => new Promise((r) => setTimeout(r, (i >> 1) * 12));
      let signalled: Promise<unknown>;
      let res: request.Response;
      if (i % 2 === 0) {
        signalled = signalLineEvent(api.temporal, callId, { kind: 'ended', outcome: 'caller_hangup' });
        await pause();
        res = await request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(key()));
      } else {
        const hangup = request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(key())).then((r) => r);
        await pause();
        signalled = signalLineEvent(api.temporal, callId, { kind: 'ended', outcome: 'caller_hangup' });
        res = await hangup;
      }
      await signalled;
      answers.push([res.status, res.body.ended]);
      const done = await over(callId);
      expect(['caller_hangup', 'agent_hangup']).toContain(done.outcome);
      expect(res.body).toEqual({ call_id: callId, ended: done.outcome === 'agent_hangup' ? expect.any(Boolean) : false });
    }
    ownKey = null;
    expect(answers.filter(([status]) => status !== 200)).toEqual([]);
  }, 120_000);

  it('a hand-over: human_handoff, the caller put through to the team line with <Dial>, human_active when the person answers (at Twilio’s time), a hang-up request then answers ended false', async () => {
    const to = destination();
    const teamLine = '+919800077001';
    fake.script(to, { kind: 'answer', talkMs: null });
    // The team member hangs up after the hang-up request below, not after a fixed time the test may take longer than to see human_active.
    const teamHangsUp = personHangsUp();
    fake.script(teamLine, { kind: 'answer', ringMs: 100, talkMs: teamHangsUp.when });
    await collections(api.db).phoneNumbers.updateOne({ _id: ws.phoneNumber.replace(/\D/g, '') }, { $set: { team_line: teamLine } });
    const callId = await place(to);
    await until(callId, (c) => c.status === 'in_progress');
    await signalLineEvent(api.temporal, callId, { kind: 'human_handoff' });
    await line.transferCall(callId, teamLine);
    const active = await until(callId, (c) => c.status === 'human_active');
    expect(active.status).toBe('human_active');
    const hangup = await request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(ws.key));
    expect(hangup.status).toBe(200);
    expect(hangup.body.ended).toBe(false);
    teamHangsUp.now();

    const done = await over(callId);
    expect(done).toMatchObject({ status: 'completed', outcome: 'caller_hangup' });
    const [call] = fake.callsTo(to);
    expect(call!.twiml[1]).toContain(`>${teamLine}</Number></Dial>`);
    const transfer = fake.callbacksTo(TWILIO_WEBHOOK_PATHS.transfer);
    const answered = transfer.find((c) => c.params.ParentCallSid === call!.sid && c.params.CallStatus === 'in-progress')!;
    expect(answered.status).toBe(200);
    expect((await lineEvents(callId)).find((e) => e.kind === 'human_active')).toEqual({ kind: 'human_active', at: new Date(answered.params.Timestamp!).toISOString() });
  });

  it('a forged or unsigned status callback is refused 401 invalid_signature and changes nothing', async () => {
    const to = destination();
    fake.script(to, { kind: 'answer', talkMs: null });
    const callId = await place(to);
    await until(callId, (c) => c.status === 'in_progress');
    const [call] = fake.callsTo(to);
    const url = call!.params.StatusCallback!;
    const ended = { ...fake.statusParams(call!), CallStatus: 'completed', CallDuration: '3' };
    const forged = await fake.post(url, ended, { forge: true });
    const unsigned = await fake.post(url, ended, { unsigned: true });
    // Signed right, but over another URL (the call id changed): refused too.
    const moved = await fake.post(url.replace(callId, `${callId}x`), ended, { forge: true });
    for (const res of [forged, unsigned, moved]) expect([res.status, JSON.parse(res.body)]).toEqual([401, { status: 'invalid_signature' }]);
    await new Promise((r) => setTimeout(r, 1_500));
    const still = await request(api.server).get(`/api/v1/calls/${callId}`).set(bearer(ws.key));
    expect(still.body).toMatchObject({ status: 'in_progress', outcome: null });
    expect((await lineEvents(callId)).map((e) => e.kind)).toEqual(['answered']);
    await line.endCall(callId);
    await over(callId);
  });

  it('an inbound call to the workspace’s number starts the inbound lifecycle; the deployed agent answers on a media stream; the caller hangs up', async () => {
    const from = '+919800055501';
    const { call, answer } = await fake.placeInbound({ from, to: ws.phoneNumber, voicePath: TWILIO_WEBHOOK_PATHS.voice, statusPath: TWILIO_WEBHOOK_PATHS.status, talkMs: 2_000 });
    expect(answer.status).toBe(200);
    const callId = answer.body.match(/name="callId" value="([^"]+)"/)?.[1];
    expect(callId).toMatch(/^call_/);
    expect(answer.body).toContain(`<Connect><Stream url="${MEDIA_STREAM_URL}/${callId}/${streamSecret(fake.authToken, callId!)}">`);
    expect(await findLineCall(api.db, callId!)).toMatchObject({ provider_call_id: call.sid, request: { direction: 'inbound', to: from, agentId: ws.agentId } });
    const done = await over(callId!);
    expect(done).toMatchObject({ direction: 'inbound', to: from, agent_id: ws.agentId, status: 'completed', outcome: 'caller_hangup' });
  });

  it('an inbound call to a number that is not ours is rejected; to ours without an agent it is told so and hung up; no call either way', async () => {
    const before = await api.db.collection('calls').countDocuments({ direction: 'inbound' });
    const unknown = await fake.placeInbound({ from: '+919800055502', to: '+919999000111', voicePath: TWILIO_WEBHOOK_PATHS.voice });
    expect(unknown.answer.body).toContain('<Reject reason="rejected"/>');
    await collections(api.db).phoneNumbers.insertOne({ _id: '919800044401', tenant_id: ws.workspaceId, number: '+919800044401', agent_id: null, active: true, recording: false, created_at: new Date() });
    const noAgent = await fake.placeInbound({ from: '+919800055503', to: '+919800044401', voicePath: TWILIO_WEBHOOK_PATHS.voice });
    expect(noAgent.answer.body).toMatch(/<Say>[^<]+<\/Say><Hangup\/>/);
    expect(await api.db.collection('calls').countDocuments({ direction: 'inbound' })).toBe(before);
  });

  it('a retried originate dials once: the worker dies after Twilio took the call and before the CallSid was stored; the retry finds it in Twilio’s list', async () => {
    const to = destination();
    fake.script(to, { kind: 'answer', ringMs: 300, talkMs: 1_500 });
    // Twilio's callbacks held back, so only the REST list can tell the retry the call exists.
    const release = fake.hold();
    voice.dieNext = true;
    try {
      const callId = await place(to);
      const line = await waitFor(async () => (await findLineCall(api.db, callId))?.provider_call_id);
      expect(fake.creates.filter((c) => c.To === to)).toHaveLength(1);
      expect(line).toBe(fake.callsTo(to)[0]!.sid);
      release();
      expect(await over(callId)).toMatchObject({ outcome: 'caller_hangup' });
      expect(fake.creates.filter((c) => c.To === to)).toHaveLength(1);
    } finally {
      release();
      voice.dieNext = false;
    }
  });

  it('a call campaign of 20 people on the Twilio adapter: each dialled once, each call ending as its line did', async () => {
    const { key } = await ws.addKey(['campaigns:read', 'campaigns:write']);
    const people = await insertContacts(api.db, ws.workspaceId, 20);
    people.forEach((p, i) => fake.script(p.phone!, i % 5 === 4 ? { kind: 'busy' } : { kind: 'answer', ringMs: 100, talkMs: 300 + (i % 3) * 200 }));
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(bearer(key))
      .send({
        name: 'Twilio delivery check',
        channel: 'voice',
        agent_id: ws.agentId,
        audience: { contact_ids: people.map((p) => p._id) },
        purpose: 'your delivery, {{name}}',
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 },
      });
    expect(created.status).toBe(201);
    const campaignId = created.body.campaign_id;
    const launched = await request(api.server).post(`/api/v1/campaigns/${campaignId}/launch`).set(bearer(key)).send({ expected_version: 1 });
    expect(launched.body).toMatchObject({ status: 'running', recipients: 20 });
    const finished = await waitFor(async () => {
      const res = await request(api.server).get(`/api/v1/campaigns/${campaignId}`).set(bearer(key));
      return res.body.status === 'completed' ? res.body : null;
    }, 150_000);
    expect(finished).toMatchObject({ recipients: 20, sent: 20, failed: 0 });
    expect(finished.calls).toMatchObject({ dialled: 20, answered: 16, live: 0 });
    for (const person of people) expect(fake.creates.filter((c) => c.To === person.phone)).toHaveLength(1);
    const calls = await api.db.collection('calls').find({ to: { $in: people.map((p) => p.phone) } }).toArray();
    expect(calls.map((c) => String(c.outcome)).sort((a, b) => a.localeCompare(b))).toEqual([...Array<string>(4).fill('busy'), ...Array<string>(16).fill('caller_hangup')]);
  }, 180_000);
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

describe('the Twilio webhooks on a deployment without VOICE_PROVIDER=twilio', () => {
  const { api } = useTestApi();

  it.each(Object.values(TWILIO_WEBHOOK_PATHS))('POST %s answers 404 not_configured and reads nothing', async (path) => {
    const res = await request(api.server).post(path).type('form').send({ CallSid: `CA${'0'.repeat(32)}`, CallStatus: 'completed' });
    expect([res.status, res.body]).toEqual([404, { status: 'not_configured' }]);
  });
});

describe('the worker process (src/main/worker.ts) with VOICE_PROVIDER=twilio', () => {
  const fake = new FakeTwilio();
  let fakeOrigin = '';
  beforeAll(async () => {
    fakeOrigin = await fake.start();
  });
  const env = () => ({
    VOICE_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: fake.accountSid,
    TWILIO_AUTH_TOKEN: fake.authToken,
    TWILIO_PUBLIC_URL: fake.publicOrigin,
    TWILIO_MEDIA_STREAM_URL: MEDIA_STREAM_URL,
    TWILIO_API_BASE_URL: fakeOrigin,
  });
  const { api, ws } = useTestApi(() => ({ env: env() }));
  let worker: ManagedProcess | undefined;
  beforeAll(async () => {
    fake.localOrigin = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
    fake.standInBridge = (callId, what) => markMedia(api.db, callId, what, new Date());
    worker = await startWorkerProcess(api.config, { logName: 'twilio-worker', env: env() });
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await fake.stop();
  });

  it('places a POST /calls call through Twilio’s REST API and ends it as the line did', async () => {
    const to = '+919811190001';
    fake.script(to, { kind: 'answer', talkMs: 500 });
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to });
    expect(res.status).toBe(201);
    const done = await pollCall(api, ws.key, res.body.call_id, (c) => c.status === 'completed', 45_000);
    expect(done.outcome).toBe('caller_hangup');
    expect(fake.creates.map((c) => c.To)).toEqual([to]);
  });
});
