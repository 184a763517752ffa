import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { WorkflowHandle } from '@temporalio/client';
import { callCollections } from '../../../src/calls/callStore';
import { liveCallCount } from '../../../src/calls/admission';
import { placeCall } from '../../../src/calls/placeCall';
import { hangUpCall } from '../../../src/calls/hangUpCall';
import { calleeScript, calleeScripts, scriptId, type CalleeScript } from '../../../src/providers/voice/simulatorScript';
import { eventsCollection } from '../../../src/events/eventStore';
import { newId } from '../../../src/domain/ids';
import { FailureType } from '../../../src/temporal/failures';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { findWorkspace } from '../../../src/workspaces/workspaces';
import { callWorkflowDefinition, callWorkflowId, hangupUpdate, lineEventSignal, rereadCallDefinition, rereadWorkflowId, statusQuery, type CallWorkflowInput, type CallWorkflowResult } from '../../../src/calls/contracts';
import { executeWorkflow } from '../../../src/temporal/startWorkflow';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { useTimeSkippingEnv } from '../../support/timeSkipping';
import type { TestWorker } from '../../support/worker';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * The call workflow's timing on the time-skipping server, with the real activities against
 * FerretDB and the simulated callee: ring timeouts, the maximum call length, hang-ups, the
 * handoff states and reader retries, without waiting for them.
 */
describe('the call workflow (time-skipping)', () => {
  const { env, startWorker } = useTimeSkippingEnv();
  let db: Db;
  let drop: () => Promise<void>;
  let worker: TestWorker;
  let ws: TestWorkspace;
  const taskQueue = uniqueName('calls');

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
    // The callee as a workflow: its ring and talk timers are the ones this server skips.
    worker = await startWorker({ taskQueue, deps: buildActivityDeps({ db, temporal: env.client, taskQueue, voiceSimulator: { mode: 'workflow' } }) });
  });

  afterAll(async () => {
    await worker?.close();
    await drop?.();
  });

  /** Scripts the callee at `to`, then places a call to it through the place-call use case (its workflow started). */
  async function newCall(to: string, script: Partial<CalleeScript>): Promise<{ callId: string; handle: WorkflowHandle }> {
    await calleeScripts(db).replaceOne(
      { _id: scriptId(ws.workspaceId, to) },
      { tenant_id: ws.workspaceId, destination: to.slice(1), script: calleeScript.parse(script), updated_at: new Date() },
      { upsert: true },
    );
    const workspace = (await findWorkspace(db, ws.workspaceId))!;
    const placed = await placeCall(
      { db, temporal: env.client, config: { TEMPORAL_TASK_QUEUE: taskQueue, DEPLOYMENT_CHANNELS: ['whatsapp', 'voice'] }, now: () => new Date(), placementWaitMs: 0 },
      workspace,
      { to, agent_id: null, from_number: null, purpose: null, script: null, details: {}, capture: null, ring_seconds: 30, metadata: {} },
    );
    if (placed.kind !== 'ringing') throw new Error(`placing ${to}: ${placed.kind === 'refused' ? placed.refusal.message : placed.kind}`);
    return { callId: placed.call._id, handle: env.client.workflow.getHandle(callWorkflowId(placed.call._id)) };
  }

  const run = (handle: WorkflowHandle) => handle.result() as Promise<CallWorkflowResult>;
  const stored = async (callId: string) => (await callCollections(db).calls.findOne({ _id: callId }))!;

  it('a call nobody answers ends after ring_seconds: completed, duration 0, no_answer, unanswered without reading', async () => {
    const started = await env.currentTimeMs();
    const { callId, handle } = await newCall('+919800000001', { answer: false });
    const result = await run(handle);
    expect(result).toEqual({ status: 'completed', outcome: 'no_answer', durationSeconds: 0, resultState: 'ready' });
    expect((await env.currentTimeMs()) - started).toBeGreaterThanOrEqual(30_000);
    const call = await stored(callId);
    expect(call).toMatchObject({ status: 'completed', outcome: 'no_answer', duration_seconds: 0, started_at: null, summary: null });
    expect(call.ended_at).toBeInstanceOf(Date);
    expect(call.result).toMatchObject({ state: 'ready', disposition: 'unanswered', sentiment: null, summary: null });
    expect(await liveCallCount(db, ws.workspaceId)).toBe(0);
  });

  it('a busy line ends at once with the network outcome', async () => {
    const { callId, handle } = await newCall('+919800000002', { answer: false, network_outcome: 'busy', ring_seconds: 2 });
    expect(await run(handle)).toMatchObject({ outcome: 'busy', durationSeconds: 0 });
    expect((await stored(callId)).result.disposition).toBe('unanswered');
  });

  it('a call that never ends by itself is cut at the agent’s maximum length (max_duration)', async () => {
    const { callId, handle } = await newCall('+919800000003', { end: 'never', ring_seconds: 1 });
    const result = await run(handle);
    expect(result).toMatchObject({ status: 'completed', outcome: 'max_duration' });
    expect(result.durationSeconds).toBe(300);
    expect(await stored(callId)).toMatchObject({ duration_seconds: 300, billed_minutes: 5 });
  });

  it('hang-up: true while in progress, then false; the outcome is agent_hangup', async () => {
    const { callId, handle } = await newCall('+919800000004', { end: 'never', ring_seconds: 1 });
    while ((await handle.query(statusQuery)) !== 'in_progress') await env.sleep(500);
    await env.sleep(20_000);
    expect(await handle.executeUpdate(hangupUpdate)).toBe(true);
    // The end is one step (issue 36 §3): the workflow may have closed with it; the API's hang-up answers false either way.
    expect(await hangUpCall(env.client, callId)).toBe(false);
    const result = await handle.result();
    expect(result.outcome).toBe('agent_hangup');
    expect(result.durationSeconds).toBeGreaterThanOrEqual(20);
    expect(await handle.executeUpdate(hangupUpdate).catch(() => 'finished')).toBe('finished');
  });

  it('a handed-off call goes human_handoff then human_active, where hang-up answers false', async () => {
    const { callId, handle } = await newCall('+919800000005', { ring_seconds: 1, handoff: { after_seconds: 3 }, talk_seconds: 60 });
    const seen = new Set<string>();
    // The Temporal UI's view of the status: the workflow's current details (issue 36 §3), in step with the query.
    const details = new Set<string>();
    for (let i = 0; i < 200 && !seen.has('human_active'); i++) {
      seen.add(await handle.query(statusQuery));
      details.add((await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '');
      await env.sleep(500);
    }
    expect([...seen]).toEqual(expect.arrayContaining(['in_progress', 'human_active']));
    expect([...details]).toEqual(expect.arrayContaining(['status: in_progress', 'status: human_active']));
    expect((await stored(callId)).status).toBe('human_active');
    expect(await handle.executeUpdate(hangupUpdate)).toBe(false);
    expect(await handle.result()).toMatchObject({ outcome: 'agent_hangup', resultState: 'ready' });
    expect((await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails).toBe('status: completed');
  });

  it('an answered call ends in one step: finished and read in one local activity, no reader activity task, no timer cancelled at the end (issue 36 §3)', async () => {
    const { callId, handle } = await newCall('+919800000012', { ring_seconds: 1, talk_seconds: 10 });
    expect(await run(handle)).toMatchObject({ status: 'completed', outcome: 'agent_hangup', resultState: 'ready' });
    expect((await stored(callId)).result.state).toBe('ready');
    const events = (await handle.fetchHistory()).events!;
    const localSteps = events.flatMap((e) => {
      const data = e.markerRecordedEventAttributes?.markerName === 'core_local_activity' ? e.markerRecordedEventAttributes.details?.data?.payloads?.[0]?.data : undefined;
      return data ? [(JSON.parse(Buffer.from(data).toString()) as { activity_type: string }).activity_type] : [];
    });
    expect(localSteps).toEqual(['placeAndRecordCall', 'recordCallProgress', 'endCall']);
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);
    // The ring timer is cancelled by the answer; the connected phase's timer lapses with the workflow.
    expect(events.filter((e) => e.timerStartedEventAttributes)).toHaveLength(2);
    expect(events.filter((e) => e.timerCanceledEventAttributes)).toHaveLength(1);
    // callLifecycleV2: no patch marker and no status upsert (its status is the current details).
    expect(events.filter((e) => e.markerRecordedEventAttributes && e.markerRecordedEventAttributes.markerName !== 'core_local_activity')).toHaveLength(0);
    expect(events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes)).toHaveLength(0);
    // Placed without waiting for the network (a campaign's way; POST /calls adds the placement update's 2): 19 events.
    expect(events).toHaveLength(19);
  });

  it('temporary reader errors are retried until the reading lands', async () => {
    const { callId, handle } = await newCall('+919800000006', { ring_seconds: 1, reader: { fail_times: 3, permanent: false } });
    expect(await run(handle)).toMatchObject({ resultState: 'ready' });
    expect((await stored(callId)).result.state).toBe('ready');
    const history = await env.client.workflow.getHandle(callId).fetchHistory();
    const failures = history.events!.filter((e) => e.activityTaskStartedEventAttributes && (e.activityTaskStartedEventAttributes.attempt ?? 1) > 1);
    expect(failures.length).toBeGreaterThan(0);
  });

  it('after five failed attempts the result is failed, and no call.outcome is sent', async () => {
    const { callId, handle } = await newCall('+919800000007', { ring_seconds: 1, reader: { fail_times: 50, permanent: false } });
    expect(await run(handle)).toMatchObject({ resultState: 'failed' });
    const call = await stored(callId);
    expect(call.result).toMatchObject({ state: 'failed', disposition: null, fields: {}, captured: 0 });
    expect(await eventsCollection(db).countDocuments({ tenant_id: ws.workspaceId, type: 'call.outcome', 'data.call_id': callId })).toBe(0);
    expect(await eventsCollection(db).countDocuments({ tenant_id: ws.workspaceId, type: 'call.ended', 'data.call_id': callId })).toBe(1);
  });

  it('a permanent reader error fails the reading at once', async () => {
    const { callId, handle } = await newCall('+919800000008', { ring_seconds: 1, reader: { fail_times: 0, permanent: true } });
    expect(await run(handle)).toMatchObject({ resultState: 'failed' });
    expect((await stored(callId)).result.state).toBe('failed');
  });

  it('a silent callee is no_conversation, decided without reading', async () => {
    const { callId, handle } = await newCall('+919800000009', { ring_seconds: 1, silent: true, talk_seconds: 8 });
    expect(await run(handle)).toMatchObject({ outcome: 'agent_hangup', resultState: 'ready' });
    expect((await stored(callId)).result).toMatchObject({ disposition: 'no_conversation', sentiment: null });
  });

  it('a network refusal fails the call: failed, originate_error, reservation given back', async () => {
    const { callId, handle } = await newCall('+919800000010', { originate_error: true });
    expect(await run(handle)).toEqual({ status: 'failed', outcome: 'originate_error', durationSeconds: 0, resultState: 'ready' });
    expect(await stored(callId)).toMatchObject({ status: 'failed', outcome: 'originate_error', duration_seconds: 0 });
    // Never answered: decided without reading.
    expect((await stored(callId)).result).toMatchObject({ state: 'ready', disposition: 'unanswered', summary: null });
  });

  it('hang-up while ringing: true, then the call ends unanswered with agent_hangup', async () => {
    const { callId, handle } = await newCall('+919800000011', { answer: false });
    while (!(await callCollections(db).calls.findOne({ _id: callId, placed_at: { $ne: null } }))) await env.sleep(200);
    expect(await handle.query(statusQuery)).toBe('ringing');
    expect(await handle.executeUpdate(hangupUpdate)).toBe(true);
    expect(await handle.result()).toEqual({ status: 'completed', outcome: 'agent_hangup', durationSeconds: 0, resultState: 'ready' });
    expect((await stored(callId)).result.disposition).toBe('unanswered');
  });

  /** A call whose callee never answers by itself, once placed: the test plays the line. */
  async function quietLine(to: string): Promise<{ callId: string; handle: WorkflowHandle; placedAt: number }> {
    const { callId, handle } = await newCall(to, { answer: false });
    let call = await stored(callId);
    while (!call.placed_at) {
      await env.sleep(200);
      call = await stored(callId);
    }
    return { callId, handle, placedAt: call.placed_at.getTime() };
  }

  it('the line’s own times (`at`) decide the connection, however late the workflow takes them (issue 26)', async () => {
    const { callId, handle, placedAt } = await quietLine('+919800000015');
    await env.sleep(3_000);
    await handle.signal(lineEventSignal, { kind: 'answered', at: new Date(placedAt + 1_000).toISOString() });
    await env.sleep(20_000);
    await handle.signal(lineEventSignal, { kind: 'ended', outcome: 'caller_hangup', at: new Date(placedAt + 6_000).toISOString() });
    expect(await run(handle)).toMatchObject({ outcome: 'caller_hangup', durationSeconds: 5 });
    const call = await stored(callId);
    expect([call.started_at!.getTime() - placedAt, call.ended_at!.getTime() - placedAt, call.duration_seconds]).toEqual([1_000, 6_000, 5]);
  });

  it('a line time that is no time, or ahead of the workflow’s clock, counts as when the signal was taken', async () => {
    const { callId, handle } = await quietLine('+919800000016');
    await handle.signal(lineEventSignal, { kind: 'answered', at: 'soon' });
    while ((await handle.query(statusQuery)) !== 'in_progress') await env.sleep(200);
    await env.sleep(12_000);
    await handle.signal(lineEventSignal, { kind: 'ended', outcome: 'caller_hangup', at: new Date((await env.currentTimeMs()) + 3_600_000).toISOString() });
    const result = await run(handle);
    expect(result.durationSeconds).toBeGreaterThanOrEqual(12);
    expect(result.durationSeconds).toBeLessThan(60);
    expect((await stored(callId)).duration_seconds).toBe(result.durationSeconds);
  });

  it('a call without a read model fails its workflow at once with the non-retryable ReadModelMissing', async () => {
    const callId = newId('call');
    const input: CallWorkflowInput = { callId, tenantId: ws.workspaceId, direction: 'outbound', ringSeconds: 30, maxCallSeconds: 300, createdAt: new Date().toISOString() };
    const failure = await executeWorkflow(env.client, callWorkflowDefinition, { taskQueue, workflowId: callWorkflowId(callId), args: [input] }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    // The placing step is a local activity (callLifecycle): its failure is the workflow's cause.
    const cause = (failure as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: FailureType.ReadModelMissing, nonRetryable: true, message: `call ${callId} has no read model` });
    // One attempt, not twenty: the step's marker records the attempt that failed.
    const history = await env.client.workflow.getHandle(callId).fetchHistory();
    const markers = history.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
    expect(markers).toHaveLength(1);
    const data = markers[0]!.markerRecordedEventAttributes!.details!.data!.payloads![0]!.data!;
    expect(JSON.parse(Buffer.from(data).toString())).toMatchObject({ activity_type: 'placeAndRecordCall', attempt: 1 });
  });

  it('a re-read reads the call again: reading 2, result ready, a second call.outcome', async () => {
    const { callId, handle } = await newCall('+919800000012', { ring_seconds: 1 });
    await run(handle);
    const state = await executeWorkflow(env.client, rereadCallDefinition, {
      taskQueue,
      workflowId: rereadWorkflowId(callId, 2),
      args: [{ callId, tenantId: ws.workspaceId, reading: 2, reread: true }],
    });
    expect(state).toBe('ready');
    expect(await stored(callId)).toMatchObject({ readings: 2, result: { state: 'ready' } });
    expect(await eventsCollection(db).countDocuments({ type: 'call.outcome', 'data.call_id': callId })).toBe(2);
  });

  it('a failed re-read keeps the ready result', async () => {
    const { callId, handle } = await newCall('+919800000013', { ring_seconds: 1 });
    await run(handle);
    await calleeScripts(db).updateOne({ _id: scriptId(ws.workspaceId, '+919800000013') }, { $set: { 'script.reader': { fail_times: 0, permanent: true } } });
    const state = await executeWorkflow(env.client, rereadCallDefinition, {
      taskQueue,
      workflowId: rereadWorkflowId(callId, 2),
      args: [{ callId, tenantId: ws.workspaceId, reading: 2, reread: true }],
    });
    expect(state).toBe('ready');
    expect(await stored(callId)).toMatchObject({ readings: 1, result: { state: 'ready' } });
  });
});
