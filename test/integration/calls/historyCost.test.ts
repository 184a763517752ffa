import request from 'supertest';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { pollCall, scriptCallee } from '../../support/calls';

/**
 * Issue 36 §3: what a call costs Temporal, held to. An answered, talked and read call placed
 * through POST /calls is a start whose first workflow task places the call (no activity task to
 * place it), its placement awaited by the API through a long poll of the history and read from
 * the read model (no event, where the update-with-start before it wrote the update accepted and
 * completed), and its end one local activity that reads it too, in the task that takes the
 * line's end (no reader activity task, no timer cancelled at the end); its type,
 * callLifecycleV2, takes no patch and shows its status as current details rather than by
 * search-attribute upserts: the history is the sequence below, 19 events (the target is at most
 * 20), where the update made it 21, callLifecycle took 25 (31 before its one-step end) and
 * callWorkflow 46.
 */
describe('a call’s Temporal history', () => {
  const { api, ws } = useTestApi({ worker: true });

  const kinds = async (callId: string) =>
    ((await api.temporal.workflow.getHandle(callId).fetchHistory()).events ?? []).map((e) => {
      const key = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k])!;
      const attributes = (e as Record<string, any>)[key];
      const name = attributes?.activityType?.name ?? attributes?.acceptedRequest?.input?.name ?? (attributes?.markerName === 'core_local_activity' ? 'local' : attributes?.markerName);
      return name ? `${key.replace('EventAttributes', '')}:${name}` : key.replace('EventAttributes', '');
    });

  it('answered, ended by the line and read: 19 events, the placement in the first task, the end and the reading in the last', async () => {
    await scriptCallee(api, ws, '+919811100061', { ring_seconds: 0.5, seconds_per_turn: 0.3 });
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '+919811100061', purpose: 'confirming a delivery' });
    expect(res.status).toBe(201);
    const callId = res.body.call_id as string;
    expect(await pollCall(api, ws.key, callId, (b) => b.result.state !== 'pending')).toMatchObject({ status: 'completed', result: { state: 'ready' } });

    // The result is written by the end step, within the workflow's last task: the history is whole once the run closes.
    await api.temporal.workflow.getHandle(callId).result();
    const task = ['workflowTaskScheduled', 'workflowTaskStarted', 'workflowTaskCompleted'];
    const history = await kinds(callId);
    // The line's end arrives either before or after the talk's last turn is stored; either way
    // the answered and the ended signals each take one workflow task.
    expect(history).toEqual([
      'workflowExecutionStarted',
      ...task,
      // The placing step, then the ring timer; the API's wait for the placement leaves no event.
      'markerRecorded:local',
      'timerStarted',
      'workflowExecutionSignaled',
      ...task,
      'markerRecorded:local',
      // The connected phase's timer replaces the ring timer.
      'timerStarted',
      'timerCanceled',
      'workflowExecutionSignaled',
      ...task,
      'markerRecorded:local',
      'workflowExecutionCompleted',
    ]);
    expect(history).toHaveLength(19);
  }, 60_000);

  it('placed eight at once: each at most 20 events (the wait for the placement adds no workflow task under load)', async () => {
    await scriptCallee(api, ws, '+919811100063', { ring_seconds: 0, seconds_per_turn: 0.1, end: 'caller_hangup' });
    const placed = await Promise.all(Array.from({ length: 8 }, () => request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '+919811100063', purpose: 'confirming a delivery' })));
    expect(placed.map((res) => res.status)).toEqual(Array(8).fill(201));
    const lengths: number[] = [];
    for (const res of placed) {
      await api.temporal.workflow.getHandle(res.body.call_id).result();
      lengths.push((await kinds(res.body.call_id)).length);
    }
    expect(lengths.filter((n) => n > 20)).toEqual([]);
  }, 90_000);

  it('hung up through the API while connected: 20 events, the hang-up an update in the task that ends the call', async () => {
    await scriptCallee(api, ws, '+919811100062', { ring_seconds: 0.5, end: 'never' });
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '+919811100062' });
    expect(res.status).toBe(201);
    const callId = res.body.call_id as string;
    await pollCall(api, ws.key, callId, (b) => b.status === 'in_progress');
    const hangup = await request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(ws.key));
    expect(hangup.body).toEqual({ call_id: callId, ended: true });
    expect(await pollCall(api, ws.key, callId, (b) => b.result.state !== 'pending')).toMatchObject({ status: 'completed', outcome: 'agent_hangup' });

    await api.temporal.workflow.getHandle(callId).result();
    const history = await kinds(callId);
    expect(history.filter((kind) => kind.startsWith('workflowExecutionUpdateAccepted'))).toEqual(['workflowExecutionUpdateAccepted:hangup']);
    expect(history).toHaveLength(20);
  }, 60_000);
});
