import type { SimulatedCallPlan } from '../../../src/calls/contracts';
import { lineSchedule } from '../../../src/providers/voice/simulatedLine';
import { uniqueName } from '../../support/env';
import { useTimeSkippingEnv } from '../../support/timeSkipping';
import type { TestWorker } from '../../support/worker';

/**
 * The timers mode's schedule (src/providers/voice/simulatedLine.ts) against the workflow it
 * replaces: the real `simulatedCallee` workflow signals a stand-in call on the time-skipping
 * server, and the events it reports, in order, at their offsets from its start and stamped
 * with their planned times, are the ones `lineSchedule` plans.
 */
describe('lineSchedule against the simulatedCallee workflow (time-skipping)', () => {
  const { env, startWorker } = useTimeSkippingEnv();
  let worker: TestWorker;
  const taskQueue = uniqueName('line');

  beforeAll(async () => {
    worker = await startWorker({ taskQueue, workflowsPath: require.resolve('./fixtures/lineRecorder') });
  });

  afterAll(async () => {
    await worker?.close();
  });

  const base: Omit<SimulatedCallPlan, 'callId'> = {
    ringSeconds: 10,
    answer: true,
    networkOutcome: 'no_answer',
    talkSeconds: 120,
    endOutcome: 'caller_hangup',
    handoffAfterSeconds: null,
  };

  it.each<[string, Partial<SimulatedCallPlan>]>([
    ['answered and talked', {}],
    ['a handoff before the end', { handoffAfterSeconds: 60 }],
    ['an end within 2 s of the handoff', { handoffAfterSeconds: 60, talkSeconds: 61 }],
    ['a handoff at the end (never comes)', { handoffAfterSeconds: 120 }],
    ['busy', { answer: false, networkOutcome: 'busy', ringSeconds: 20 }],
    ['a setup error', { talkSeconds: 0, endOutcome: 'setup_error' }],
  ])('%s: the same events at the same offsets', async (_case, over) => {
    const plan: SimulatedCallPlan = { ...base, ...over, callId: uniqueName('call') };
    const planned = lineSchedule(plan, new Date(0));
    const recorder = await env.client.workflow.start('lineRecorder', { workflowId: plan.callId, taskQueue, args: [planned.length] });
    const callee = await env.client.workflow.start('simulatedCallee', { workflowId: `sim-${plan.callId}`, taskQueue, args: [plan] });
    const startedAt = (await callee.describe()).startTime.getTime();
    const got = (await recorder.result()) as { event: unknown; at: number }[];
    // Each stamped with its planned time (issue 26), the one the timers mode sends.
    expect(got.map((g) => g.event)).toEqual(planned.map((p) => ({ ...p.event, at: new Date(startedAt + p.due_at.getTime()).toISOString() })));
    // Workflow time at arrival: the timer's offset plus the tasks' own time. The time-skipping
    // server moves the clock on while a loaded worker runs those tasks (CI saw 1.1 s), so the
    // bound only tells "its own timer" from a later one (the plans' timers are ≥ 10 s apart
    // but for the handoff case, whose order the exact event list above already checks).
    for (const [i, g] of got.entries()) {
      const offset = g.at - startedAt;
      expect(offset).toBeGreaterThanOrEqual(planned[i]!.due_at.getTime());
      expect(offset).toBeLessThan(planned[i]!.due_at.getTime() + 5_000);
    }
  });
});
