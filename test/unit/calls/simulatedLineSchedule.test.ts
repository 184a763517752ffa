import type { SimulatedCallPlan } from '../../../src/calls/contracts';
import { lineSchedule } from '../../../src/providers/voice/simulatedLine';

/**
 * The simulated callee's line events and their due times, as the `simulatedCallee` workflow
 * reports them (workflows/calls/simulatedCallee.ts; test/workflow/calls/simulatedLine.test.ts runs
 * both side by side): offsets from the placement, each wait rounded to the millisecond.
 */
describe('lineSchedule', () => {
  const placedAt = new Date('2026-11-23T10:00:00.000Z');
  const plan = (over: Partial<SimulatedCallPlan>): SimulatedCallPlan => ({
    callId: 'call_1',
    ringSeconds: 3,
    answer: true,
    networkOutcome: 'no_answer',
    talkSeconds: 20,
    endOutcome: 'agent_hangup',
    handoffAfterSeconds: null,
    ...over,
  });
  const offsets = (p: SimulatedCallPlan) => lineSchedule(p, placedAt).map((s) => [s.event, s.due_at.getTime() - placedAt.getTime()]);

  it('rings, is answered, talks, and ends with the script outcome', () => {
    expect(offsets(plan({}))).toEqual([
      [{ kind: 'answered' }, 3_000],
      [{ kind: 'ended', outcome: 'agent_hangup' }, 23_000],
    ]);
  });

  it('an unanswered line gives the network outcome when the ringing stops; no_answer reports nothing', () => {
    expect(offsets(plan({ answer: false, networkOutcome: 'busy', ringSeconds: 2 }))).toEqual([[{ kind: 'ended', outcome: 'busy' }, 2_000]]);
    expect(offsets(plan({ answer: false, networkOutcome: 'rejected', ringSeconds: 0 }))).toEqual([[{ kind: 'ended', outcome: 'rejected' }, 0]]);
    expect(offsets(plan({ answer: false, networkOutcome: 'no_answer' }))).toEqual([]);
  });

  it('a handoff before the end: human_handoff after its seconds, human_active 2 s later, the end counted from the answer', () => {
    expect(offsets(plan({ ringSeconds: 1, handoffAfterSeconds: 5, talkSeconds: 30 }))).toEqual([
      [{ kind: 'answered' }, 1_000],
      [{ kind: 'human_handoff' }, 6_000],
      [{ kind: 'human_active' }, 8_000],
      [{ kind: 'ended', outcome: 'agent_hangup' }, 31_000],
    ]);
  });

  it('an end within 2 s of the handoff comes right after human_active; a handoff at or after the end never comes', () => {
    expect(offsets(plan({ ringSeconds: 1, handoffAfterSeconds: 5, talkSeconds: 6 }))).toEqual([
      [{ kind: 'answered' }, 1_000],
      [{ kind: 'human_handoff' }, 6_000],
      [{ kind: 'human_active' }, 8_000],
      [{ kind: 'ended', outcome: 'agent_hangup' }, 8_000],
    ]);
    expect(offsets(plan({ ringSeconds: 1, handoffAfterSeconds: 6, talkSeconds: 6 }))).toEqual([
      [{ kind: 'answered' }, 1_000],
      [{ kind: 'ended', outcome: 'agent_hangup' }, 7_000],
    ]);
  });

  it('a callee that never hangs up reports only the answer (and a handoff); the call ends it', () => {
    expect(offsets(plan({ talkSeconds: null, endOutcome: 'max_duration' }))).toEqual([[{ kind: 'answered' }, 3_000]]);
    expect(offsets(plan({ talkSeconds: null, endOutcome: 'max_duration', handoffAfterSeconds: 4 }))).toEqual([
      [{ kind: 'answered' }, 3_000],
      [{ kind: 'human_handoff' }, 7_000],
      [{ kind: 'human_active' }, 9_000],
    ]);
  });

  it('a setup error ends the line the moment it is answered; fractional waits round to the millisecond each', () => {
    expect(offsets(plan({ talkSeconds: 0, endOutcome: 'setup_error' }))).toEqual([
      [{ kind: 'answered' }, 3_000],
      [{ kind: 'ended', outcome: 'setup_error' }, 3_000],
    ]);
    expect(offsets(plan({ ringSeconds: 0.0004, talkSeconds: 1.2346 }))).toEqual([
      [{ kind: 'answered' }, 0],
      [{ kind: 'ended', outcome: 'agent_hangup' }, 1_235],
    ]);
  });
});
