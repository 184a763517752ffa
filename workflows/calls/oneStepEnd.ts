import type { CallWorkflowInput, CallWorkflowResult } from '../../src/calls/contracts';
import type { CallActivities } from '../../activities/calls';
import { durationSeconds, type CallState, type LifecycleWays, type LineFollowed } from './callPhases';
import { readAndRecord } from './callReading';
import { workflowNowIso } from '../time';

/**
 * The call's end as one local activity (`endCall`: hang-up, finish, and the result decided or
 * read), shared by `callLifecycle` on its `call-end-in-one-step` path and `callLifecycleV2`, so
 * both keep the same command sequence: a status shown, one marker, and the reader's own
 * activity only when the step could not read in time.
 */

type EndSteps = Pick<CallActivities, 'endCall' | 'recordReading'>;

/** A call the network did not place: `failed` `originate_error`, finished and its result decided in one step. */
export async function endUnplacedInOneStep(steps: EndSteps, input: CallWorkflowInput, state: CallState, ways: LifecycleWays): Promise<CallWorkflowResult> {
  state.status = 'failed';
  ways.showStatus(state.status);
  const end = { callId: input.callId, step: ++state.step, status: state.status, outcome: 'originate_error' as const, answeredAt: null, endedAt: workflowNowIso() };
  const ended = await steps.endCall({ end, hangUpLine: false, readAt: workflowNowIso() });
  return { status: state.status, outcome: end.outcome, durationSeconds: 0, resultState: ended.resultState === 'ready' ? 'ready' : 'failed' };
}

/** The line followed to its end: `completed`, then the end step; the reader's activity only when the step left the reading to it. */
export async function endInOneStep(steps: EndSteps, input: CallWorkflowInput, state: CallState, ways: LifecycleWays, line: LineFollowed): Promise<CallWorkflowResult> {
  // A hang-up that arrives from now on finds the call ending and answers `ended: false`.
  state.status = 'completed';
  ways.showStatus(state.status);
  // The line's own end when it ended the call; otherwise now (a hang-up, a deadline).
  const endedAt = line.lineEndedAt ?? workflowNowIso();
  const end = { callId: input.callId, step: ++state.step, status: state.status, outcome: line.outcome, answeredAt: line.answeredAt, endedAt };
  const ended = await steps.endCall({ end, hangUpLine: line.lineStillUp, readAt: workflowNowIso() });
  let resultState = ended.resultState;
  if (resultState === null) {
    // The reader did not answer within the step: its own activity reads, with heartbeats and
    // retries; the connected phase's timer must not fire meanwhile.
    ways.lineWait.cancel();
    resultState = await readAndRecord(input.callId, 1, false, steps.recordReading);
  }
  return { status: state.status, outcome: line.outcome, durationSeconds: durationSeconds(line.answeredAt, endedAt), resultState: resultState === 'ready' ? 'ready' : 'failed' };
}
