import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import request from 'supertest';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { startTestApi, type TestApi } from '../../support/app';
import { pollCall, scriptCallee } from '../../support/calls';
import { bearer } from '../../support/http';
import { startTestWorker, type TestWorker } from '../../support/worker';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/** How long the worker's step that records `ringing` stalls: longer than the ring (within the API's 10 s wait for the placement). */
const STALL_MS = 4_000;

/**
 * Issue 26 §4: a call's connection and duration come from the line's own times, never from
 * when the workflow took a signal. Here the workflow is busy when `answered` comes (its step
 * recording `ringing` stalls, as a backed-up worker's does), so it takes that signal seconds
 * late. Before line events carried `at`, the call counted its connection from that late
 * moment to the `ended` the line sent on time: a shorter duration and a transcript cut short,
 * read as `partial` or `hung_up_early` though the person answered everything.
 */
describe('a line event taken late (the workflow busy when the line answered)', () => {
  let api: TestApi;
  let ws: TestWorkspace;
  let worker: TestWorker;
  const stalled: string[] = [];

  const stallRinging: ActivityInterceptorsFactory = (ctx) => ({
    inbound: {
      async execute(input, next) {
        const progress = input.args[0] as { callId?: string; placed?: boolean };
        if (ctx.info.activityType === 'recordCallProgress' && progress.placed) {
          stalled.push(progress.callId!);
          await new Promise((resolve) => setTimeout(resolve, STALL_MS));
        }
        // callLifecycle (issue 36) places and records `ringing` in one step: it stalls once the
        // line is placed, so the line answers while the workflow is busy.
        if (ctx.info.activityType === 'placeAndRecordCall') {
          const result = await next(input);
          stalled.push(progress.callId!);
          await new Promise((resolve) => setTimeout(resolve, STALL_MS));
          return result;
        }
        return next(input);
      },
    },
  });

  beforeAll(async () => {
    api = await startTestApi();
    ws = await createTestWorkspace(api.db);
    const deps = buildActivityDeps({ db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE });
    worker = await startTestWorker({ taskQueue: api.config.TEMPORAL_TASK_QUEUE, address: api.config.TEMPORAL_ADDRESS, deps, activityInterceptors: [stallRinging] });
  });

  afterAll(async () => {
    await worker?.close();
    await api?.close();
  });

  it('keeps the planned duration and the whole transcript, and every field is read', async () => {
    // 12 turns 0.5 s apart (0.25 s … 5.75 s): the line ends 7 s after the answer, 0.5 s after placing.
    await scriptCallee(api, ws, '+919811100301', { ring_seconds: 0.5, seconds_per_turn: 0.5 });
    const placed = await request(api.server)
      .post('/api/v1/calls')
      .set(bearer(ws.key))
      .send({
        to: '+919811100301',
        capture: {
          goal: 'Confirm the delivery',
          fields: [
            { label: 'Is someone home?', type: 'yes_no', required: true },
            { label: 'Preferred slot', type: 'choice', options: ['Morning', 'Evening'] },
            { label: 'Rating', type: 'rating' },
            { label: 'Number of parcels', type: 'number' },
          ],
        },
      });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;

    const done = await pollCall(api, ws.key, callId, (b) => b.result.state !== 'pending', 60_000);
    expect(stalled).toContain(callId);
    expect(done).toMatchObject({ status: 'completed', outcome: 'agent_hangup', duration_seconds: 7 });
    expect(Date.parse(done.ended_at) - Date.parse(done.started_at)).toBe(7_000);
    const stored = await api.db.collection('calls').findOne({ _id: callId as never });
    expect(stored!.transcript).toHaveLength(12);
    expect(stored!.transcript.at(-1)).toMatchObject({ role: 'user', text: 'Thanks, bye.', at_seconds: 5.75 });
    expect(done.result).toMatchObject({ state: 'ready', disposition: 'completed', captured: 4, expected: 4 });
  });
});
