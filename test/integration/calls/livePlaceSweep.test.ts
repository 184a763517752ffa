import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { liveCallCount, takeLiveSlot } from '../../../src/calls/admission';
import { callCollections, newCallDoc } from '../../../src/calls/callStore';
import { createLivePlaceSweeper, type LivePlaceSweeper } from '../../../src/calls/livePlaceSweeper';
import { matchOrCreateContact } from '../../../src/contacts/contacts';
import { newId } from '../../../src/domain/ids';
import { eventsCollection } from '../../../src/events/eventStore';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { startTestApi, type TestApi } from '../../support/app';
import { pollCall } from '../../support/calls';
import { scriptCallee, zoneOpenAt } from '../../support/campaigns';
import { testServers } from '../../support/env';
import { bearer } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

jest.setTimeout(120_000);

const run = promisify(execFile);

/**
 * Issue 32 §2: a call whose workflow is gone (terminated from the Temporal CLI, or never
 * started) kept its live place and stayed live for good, and a campaign waiting on it never
 * settled. The worker's live-place sweeper (here one pass at a time, no grace) ends such a call
 * with a final status, its `call.ended` once, and its place given back.
 */
describe('the live-place sweeper: calls whose workflow is gone', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  let sweeper: LivePlaceSweeper;
  const warnings: string[] = [];

  beforeAll(async () => {
    api = await startTestApi({ worker: true });
    ws = await createTestWorkspace(api.db);
    const { events, voice, callHooks } = buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE });
    sweeper = createLivePlaceSweeper({
      deps: { db: api.db, temporal: api.temporal, events, voice, hooks: callHooks, warn: (message) => warnings.push(message) },
      graceMs: 0,
      onError: (err) => warnings.push(String(err)),
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  /** `temporal workflow terminate`, as an operator would. */
  async function terminate(workflowId: string): Promise<void> {
    await run(join(testServers.toolsDir(), 'bin', 'temporal'), [
      'workflow',
      'terminate',
      '--address',
      api.config.TEMPORAL_ADDRESS,
      '--namespace',
      api.config.TEMPORAL_NAMESPACE,
      '--workflow-id',
      workflowId,
      '--reason',
      'issue 32: a call whose lifecycle is gone',
    ]);
  }
  const ended = (callId: string) => eventsCollection(api.db).find({ type: 'call.ended', 'data.call_id': callId }).toArray();
  const stored = (callId: string) => callCollections(api.db).calls.findOne({ _id: callId });
  let n = 0;
  const destination = () => `+9198115${String(Date.now() % 1000).padStart(3, '0')}${String(++n).padStart(2, '0')}`;

  it('an answered call whose workflow was terminated ends completed setup_error, call.ended once, its place free', async () => {
    const to = destination();
    // Answers at once, never speaks, and stays on the line for ten minutes.
    await scriptCallee(api.db, ws.workspaceId, to, { ring_seconds: 0, silent: true, talk_seconds: 600 });
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, purpose: 'confirming tomorrow’s delivery' });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    await pollCall(api, ws.key, callId, (c) => c.status === 'in_progress');
    await terminate(callId);
    expect((await api.temporal.workflow.getHandle(callId).describe()).status.name).toBe('TERMINATED');
    // What the issue saw: the call live for good, its place taken.
    expect((await stored(callId))!.status).toBe('in_progress');
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(1);

    expect(await sweeper.sweepOnce()).toBe(1);
    const call = await pollCall(api, ws.key, callId, () => true);
    expect(call).toMatchObject({ status: 'completed', outcome: 'setup_error', result: { state: 'ready', disposition: 'no_conversation' } });
    expect(call.started_at).not.toBeNull();
    expect(Date.parse(call.ended_at)).toBeGreaterThanOrEqual(Date.parse(call.started_at));
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(0);
    const events = await ended(callId);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ status: 'completed', outcome: 'setup_error' });

    // Another pass finds nothing to do and sends nothing again.
    expect(await sweeper.sweepOnce()).toBe(0);
    expect(await ended(callId)).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it('a call whose workflow never started (its API died between writing it and starting it) ends failed originate_error, its place free', async () => {
    const at = new Date(Date.now() - 5 * 60_000);
    const callId = newId('call', at);
    expect(await takeLiveSlot(api.db, ws.workspaceId, callId, at)).toBe(true);
    await callCollections(api.db).calls.insertOne(
      newCallDoc({
        _id: callId,
        tenant_id: ws.workspaceId,
        direction: 'outbound',
        status: 'ringing',
        to: destination(),
        from_number: ws.phoneNumber.replace(/\D/g, ''),
        agent_id: ws.agentId,
        requested_agent_id: null,
        deployment_id: 'dep_never_started',
        ring_seconds: 30,
        max_call_seconds: 600,
        recording: false,
        created_at: at,
      }),
    );
    expect(await sweeper.sweepOnce()).toBe(1);
    const call = await pollCall(api, ws.key, callId, () => true);
    expect(call).toMatchObject({ status: 'failed', outcome: 'originate_error', duration_seconds: 0, started_at: null, result: { state: 'ready', disposition: 'unanswered' } });
    expect(await ended(callId)).toHaveLength(1);
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(0);
  });

  it('a voice campaign waiting on a call whose workflow was terminated settles once the place is given back', async () => {
    const phone = destination();
    await scriptCallee(api.db, ws.workspaceId, phone, { ring_seconds: 0, silent: true, talk_seconds: 600 });
    const { contact } = await matchOrCreateContact(api.db, { _id: ws.workspaceId, country: 'IN' }, { name: 'Asha', phone, email: null, tags: [] }, new Date());
    const key = bearer((await ws.addKey(['campaigns:read', 'campaigns:write'])).key);
    const created = await request(api.server)
      .post('/api/v1/campaigns')
      .set(key)
      .send({
        name: 'Delivery check',
        channel: 'voice',
        agent_id: ws.agentId,
        audience: { contact_ids: [contact._id] },
        purpose: 'your delivery',
        schedule: { timezone: zoneOpenAt(new Date()), throttle_per_minute: 600 },
      });
    expect(created.status).toBe(201);
    const campaignId: string = created.body.campaign_id;
    expect((await request(api.server).post(`/api/v1/campaigns/${campaignId}/launch`).set(key).send({ expected_version: 1 })).body).toMatchObject({ status: 'running' });

    let callId: string | null = null;
    for (const deadline = Date.now() + 60_000; !callId && Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
      const recipients = await request(api.server).get(`/api/v1/campaigns/${campaignId}/recipients`).set(key);
      callId = recipients.body.items?.[0]?.calls?.[0]?.call_id ?? null;
    }
    expect(callId).not.toBeNull();
    await pollCall(api, ws.key, callId!, (c) => c.status === 'in_progress');
    await terminate(callId!);

    expect(await sweeper.sweepOnce()).toBe(1);
    let campaign: { status: string; calls: { live: number } } | null = null;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
      campaign = (await request(api.server).get(`/api/v1/campaigns/${campaignId}`).set(key)).body;
      if (campaign!.status === 'completed') break;
    }
    expect(campaign).toMatchObject({ status: 'completed', recipients: 1, sent: 1, calls: { dialled: 1, live: 0 } });
    expect(await ended(callId!)).toHaveLength(1);
    expect(await liveCallCount(api.db, ws.workspaceId)).toBe(0);
  });
});
