import { condition, getExternalWorkflowHandle, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { LineEvent } from '../../src/calls/voiceLine';
import { lineEventSignal, stopCalleeSignal, type SimulatedCallPlan } from '../../src/calls/contracts';

/** Issue 26: each event carries its planned time (`at`); runs started before send none. */
const LINE_EVENT_TIMES_PATCH = 'line-event-times';

/**
 * The simulated person and network on the other end of a call: what a telephony provider
 * would report by webhook, sent as signals to the call workflow on real timers, so every
 * stage can be watched (and time-skipped in tests).
 */
export async function simulatedCallee(plan: SimulatedCallPlan): Promise<void> {
  let stopped = false;
  setHandler(stopCalleeSignal, () => {
    stopped = true;
  });
  const call = getExternalWorkflowHandle(plan.callId);
  const stamped = patched(LINE_EVENT_TIMES_PATCH);
  // The plan's clock: offsets from when this workflow started (the placement), as lineSchedule
  // plans them, not from when each timer's task happened to run.
  let planned = workflowInfo().startTime.getTime();
  const report = async (event: LineEvent): Promise<void> => {
    if (stopped) return;
    try {
      await call.signal(lineEventSignal, stamped ? { ...event, at: new Date(planned).toISOString() } : event);
    } catch {
      // The call already finished (hung up or timed out): nothing left to tell it.
      stopped = true;
    }
  };
  /** Waits `seconds` unless the call is stopped first; true when the wait ran out. */
  const wait = async (seconds: number): Promise<boolean> => {
    planned += Math.round(seconds * 1000);
    return !(await condition(() => stopped, Math.round(seconds * 1000)));
  };

  if (!(await wait(plan.ringSeconds))) return;
  if (!plan.answer) {
    // `no_answer`: keep ringing; the call's own ring time decides.
    if (plan.networkOutcome !== 'no_answer') await report({ kind: 'ended', outcome: plan.networkOutcome });
    return;
  }
  await report({ kind: 'answered' });
  let elapsed = 0;
  if (plan.handoffAfterSeconds !== null && (plan.talkSeconds === null || plan.handoffAfterSeconds < plan.talkSeconds)) {
    if (!(await wait(plan.handoffAfterSeconds))) return;
    await report({ kind: 'human_handoff' });
    if (!(await wait(2))) return;
    await report({ kind: 'human_active' });
    elapsed = plan.handoffAfterSeconds + 2;
  }
  if (plan.talkSeconds === null) {
    await condition(() => stopped);
    return;
  }
  if (!(await wait(Math.max(0, plan.talkSeconds - elapsed)))) return;
  await report({ kind: 'ended', outcome: plan.endOutcome });
}
