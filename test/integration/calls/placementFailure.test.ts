import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { liveCallCount } from '../../../src/calls/admission';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { eventsCollection } from '../../../src/events/eventStore';
import { freePort } from '../../../src/local/net';
import { twilioSettingsFrom } from '../../../src/providers/voice/twilio/settings';
import { TwilioVoiceProvider } from '../../../src/providers/voice/twilio/twilioVoiceProvider';
import type { OriginateRequest } from '../../../src/calls/voiceLine';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { useTestApi } from '../../support/app';
import { pollCall } from '../../support/calls';
import { zoneOpenAt } from '../../support/campaigns';
import { testServers } from '../../support/env';
import { bearer } from '../../support/http';
import { startTestWorker, type TestWorker } from '../../support/worker';

jest.setTimeout(120_000);

/** A number whose placing fails with a failure the activity's policy never retries. */
const BROKEN = '+919811177001';

/** Twilio that cannot be reached, except that one number's placing fails for good at once. */
class UnreachableTwilio extends TwilioVoiceProvider {
  override async originate(request: OriginateRequest): Promise<{ providerCallId: string }> {
    if (request.to === BROKEN) throw ApplicationFailure.nonRetryable('the adapter gave up on this call', 'ProviderBroken');
    return super.originate(request);
  }
}

/**
 * Issue 32 §2: with Twilio unreachable a call's placing failed after the activity's retries
 * (~9 min), the workflow failed, and the call stayed `ringing` holding its live place for good;
 * ten such calls and the workspace's every POST /calls answered 429 call_concurrency. Here the
 * REST API's origin is a closed port and the worker gives a call up after 2 attempts
 * (VOICE_ORIGINATE_ATTEMPTS), so each call ends `failed` `originate_error` within seconds.
 */
describe('placing a call when the provider cannot be reached (VOICE_PROVIDER=twilio, REST API on a closed port)', () => {
  let closedOrigin = '';
  beforeAll(async () => {
    closedOrigin = `http://127.0.0.1:${await freePort()}`;
  });
  const { api, ws } = useTestApi(() => ({
    env: {
      VOICE_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: `AC${randomBytes(16).toString('hex')}`,
      TWILIO_AUTH_TOKEN: randomBytes(16).toString('hex'),
      TWILIO_PUBLIC_URL: 'https://voice.example.test',
      TWILIO_MEDIA_STREAM_URL: 'wss://media.example.test/twilio/stream',
      TWILIO_API_BASE_URL: closedOrigin,
      TWILIO_TIMEOUT_MS: '2000',
    },
  }));
  let worker: TestWorker;
  beforeAll(async () => {
    const voice = new UnreachableTwilio(api.db, twilioSettingsFrom(api.config)!);
    worker = await startTestWorker({
      taskQueue: api.config.TEMPORAL_TASK_QUEUE,
      deps: buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE }, { voice, originateAttempts: 2 }),
    });
  });
  afterAll(async () => {
    await worker?.close();
  });

  /**
   * POST /calls: 500 originate_failed naming the call when the give-up came within the route's
   * 10 s wait for placement, else 201 ringing (a loaded machine); the call id either way.
   */
  async function place(to: string): Promise<string> {
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: 'confirming tomorrow’s delivery' });
    if (res.status === 201) return res.body.call_id as string;
    expect({ status: res.status, reason: res.body.error?.details?.reason }).toEqual({ status: 500, reason: 'originate_failed' });
    return res.body.error.details.call_id as string;
  }
  /**
   * The call as it ended, once its lifecycle is over: an unanswered call's result is written
   * with its end, before the live place is given back and `call.ended` is stored
   * (src/calls/finishCall.ts, src/calls/endCall.ts), all in the lifecycle's last step.
   */
  const final = async (callId: string) => {
    const call = await pollCall(api, ws.key, callId, (c) => c.status !== 'ringing' && c.result.state !== 'pending', 60_000);
    await api.temporal.workflow.getHandle(callId).result();
    return call;
  };
  const ended = (callId: string) => eventsCollection(api.db).find({ type: 'call.ended', 'data.call_id': callId }).toArray();

  it('ten calls each end failed originate_error with call.ended once, give their places back, and the eleventh is placed (not 429)', async () => {
    const callIds = await Promise.all(Array.from({ length: 10 }, (_, i) => place(`+9198111770${String(10 + i)}`)));
    for (const callId of callIds) {
      const call = await final(callId);
      expect(call).toMatchObject({ status: 'failed', outcome: 'originate_error', duration_seconds: 0, result: { state: 'ready', disposition: 'unanswered' } });
      expect(await ended(callId)).toHaveLength(1);
      expect((await ended(callId))[0]!.data).toMatchObject({ status: 'failed', outcome: 'originate_error' });
      // The lifecycle ended as designed, not by failing.
      expect((await api.temporal.workflow.getHandle(callId).describe()).status.name).toBe('COMPLETED');
    }
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(0);
    const eleventh = await place('+919811177099');
    expect((await final(eleventh)).outcome).toBe('originate_error');
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(0);
  });

  it('a voice campaign whose calls cannot be placed settles: each call failed originate_error, the campaign completed, no place held', async () => {
    const people = await Promise.all(
      ['+919811177201', '+919811177202', '+919811177203'].map(async (phone, i) =>
        (await matchOrCreateContact(api.db, { _id: ws.workspaceId, country: 'IN' }, { name: `Person ${i}`, phone, email: null, tags: [] }, new Date())).contact,
      ),
    );
    const key = bearer((await ws.addKey(['campaigns:read', 'campaigns:write'])).key);
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(key)
      .send({
        name: 'Delivery check',
        channel: 'voice',
        agent_id: ws.agentId,
        audience: { contact_ids: people.map((p) => p._id) },
        purpose: 'your delivery',
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 },
      });
    expect(created.status).toBe(201);
    const campaignId: string = created.body.campaign_id;
    expect((await request(api.server).post(`/api/v1/campaigns/${campaignId}/launch`).set(key).send({ expected_version: 1 })).body).toMatchObject({ status: 'running' });
    let campaign: { status: string } | null = null;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
      campaign = (await request(api.server).get(`/api/v1/campaigns/${campaignId}`).set(key)).body;
      if (campaign!.status === 'completed') break;
    }
    expect(campaign).toMatchObject({ status: 'completed', recipients: 3, calls: { dialled: 3, answered: 0, live: 0 } });
    const recipients = (await request(api.server).get(`/api/v1/campaigns/${campaignId}/recipients`).set(key)).body.items as { calls: { call_id: string }[] }[];
    for (const recipient of recipients) {
      const callId = recipient.calls.at(-1)!.call_id;
      expect(await final(callId)).toMatchObject({ status: 'failed', outcome: 'originate_error' });
    }
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(0);
  });

  it('a placing failure the policy does not retry ends the call failed originate_error too, its place given back', async () => {
    const callId = await place(BROKEN);
    const call = await final(callId);
    expect(call).toMatchObject({ status: 'failed', outcome: 'originate_error', result: { state: 'ready', disposition: 'unanswered' } });
    expect(await ended(callId)).toHaveLength(1);
    const handle = api.temporal.workflow.getHandle(callId);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(0);
    // The new path (behind its patch) replays against the same code.
    await Worker.runReplayHistory({ workflowBundle: { codePath: testServers.workflowBundle() } }, await handle.fetchHistory());
  });
});
