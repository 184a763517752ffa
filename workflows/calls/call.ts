import { ActivityFailure, ApplicationFailure, condition, isCancellation, patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { CallActivities } from '../../activities/calls';
import type { CallOutcome, CallStatus } from '../../src/calls/types';
import type { LineEvent } from '../../src/calls/voiceLine';
import {
  hangupUpdate,
  lineEventSignal,
  placementUpdate,
  statusQuery,
  type CallWorkflowInput,
  type CallWorkflowResult,
  type Placement,
} from '../../src/calls/contracts';
import { FailureType } from '../../src/temporal/failures';
import { CALL_STEP, CALL_STEP_LOCAL } from './activityOptions';
import { readAndRecord } from './callReading';
import { refuseArguments } from '../updateValidators';
import { workflowNowIso } from '../time';
import { answerReportedLate, CONNECTED_OUTCOMES, lineEventTime } from './lineTimes';
import { showStatus } from '../visibility';

const remoteSteps = proxyActivities<CallActivities>(CALL_STEP);
const localSteps = proxyLocalActivities<CallActivities>(CALL_STEP_LOCAL);

/** Issue 13: the call's short steps as local activities. Runs started before keep activity tasks. */
const LOCAL_CALL_STEPS_PATCH = 'call-steps-local';
/**
 * Issue 26: a line event's own time (`at`, the provider's) decides when the call connected and
 * ended, not when this workflow took the signal. Runs started before keep the workflow's time.
 */
const LINE_EVENT_TIMES_PATCH = 'line-event-times';
/**
 * Issue 32: a placement that fails for good (a failure the policy does not retry, or its last
 * attempt) ends the call `failed` `originate_error` like a refusal, so its live place is given
 * back and its events go out. Runs started before fail the workflow as they did.
 */
const PLACEMENT_FAILURE_ENDS_CALL_PATCH = 'placement-failure-ends-call';
/**
 * Issue 32: an end that only a connected call has (the media bridge's `setup_error` when the
 * model refused it, say) taken before the line's `answered` records the answer and the end as
 * the line reports them, rather than an unanswered call of 0 s. Runs started before keep
 * the end as they took it.
 */
const ANSWER_REPORTED_LATE_PATCH = 'answer-reported-late';

/** The network's answer to placing the call; a placing step that failed for good is a refusal (see the patch). */
async function placeOnce(input: CallWorkflowInput): Promise<Placement> {
  try {
    return await remoteSteps.placeCall({ callId: input.callId, requestedAt: input.createdAt });
  } catch (err) {
    // A call with no read model has nothing to end: its workflow fails, as it always did.
    const noCall = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === FailureType.ReadModelMissing;
    if (isCancellation(err) || !(err instanceof ActivityFailure) || noCall || !patched(PLACEMENT_FAILURE_ENDS_CALL_PATCH)) throw err;
    return { placed: false, error: `The call could not be placed: ${err.cause?.message ?? err.message}` };
  }
}

/**
 * One call's lifecycle (api-core §3): placed and ringing; answered (`in_progress`), maybe
 * handed to a human; ended by the line, by a hang-up, by the ring time or by the agent's
 * maximum length; then read. The workflow id is the call id.
 */
export async function callWorkflow(input: CallWorkflowInput): Promise<CallWorkflowResult> {
  // Decided before the first step, once per run: every step of a run takes the same kind.
  const calls = patched(LOCAL_CALL_STEPS_PATCH) ? localSteps : remoteSteps;
  const lineTimes = patched(LINE_EVENT_TIMES_PATCH);
  // Nothing on the line happened before the workflow began (it places the call).
  const begun = Date.now();
  let status: CallStatus = input.direction === 'inbound' ? 'in_progress' : 'ringing';
  let placement: Placement | null = null;
  let hangupRequested = false;
  // Set once the line has ended the call (a hang-up then finds it ending), even while its
  // answer is still awaited from the line's report.
  let outcome: CallOutcome | null = null;
  const lineEvents: LineEvent[] = [];
  let step = 1;

  setHandler(statusQuery, () => status);
  setHandler(
    placementUpdate,
    async () => {
      await condition(() => placement !== null);
      return placement!;
    },
    { validator: refuseArguments },
  );
  // A hang-up the call cannot take answers false (the API's `ended: false`) rather than being
  // refused by the validator: that answer is the contract.
  setHandler(
    hangupUpdate,
    () => {
      if (hangupRequested || outcome !== null || (status !== 'ringing' && status !== 'in_progress')) return false;
      hangupRequested = true;
      return true;
    },
    { validator: refuseArguments },
  );
  setHandler(lineEventSignal, (event) => {
    lineEvents.push(event);
  });

  // An activity task on both paths. Run locally, a call the network would not place ran to
  // its end in the task that took the placement update, and the API waiting on that update
  // answered 500 internal instead of originate_failed (test/integration/calls/api.test.ts).
  placement = await placeOnce(input);
  if (!placement.placed) {
    status = 'failed';
    showStatus(status);
    await calls.finishCall({ callId: input.callId, step: ++step, status, outcome: 'originate_error', answeredAt: null, endedAt: workflowNowIso() });
    // Never answered: `unanswered`, decided without reading (api-core §2).
    const state = await calls.recordReading({
      callId: input.callId,
      reading: 1,
      outcome: { kind: 'decided', decided: 'unanswered' },
      keepReadyOnFailure: false,
      readAt: workflowNowIso(),
    });
    return { status, outcome: 'originate_error', durationSeconds: 0, resultState: state === 'ready' ? 'ready' : 'failed' };
  }
  let answeredAt: string | null = input.direction === 'inbound' ? workflowNowIso() : null;
  await calls.recordCallProgress({ callId: input.callId, step: ++step, status, at: answeredAt ?? workflowNowIso(), placed: true });

  // Ringing, then connected: each phase has its own deadline.
  let deadline = Date.now() + (answeredAt ? input.maxCallSeconds : input.ringSeconds) * 1000;
  let lineStillUp = true;
  let lineEndedAt: string | null = null;
  while (outcome === null) {
    const woke = await condition(() => lineEvents.length > 0 || hangupRequested, Math.max(0, deadline - Date.now()));
    if (!woke) {
      outcome = answeredAt ? 'max_duration' : 'no_answer';
      break;
    }
    if (hangupRequested) {
      outcome = 'agent_hangup';
      break;
    }
    const event = lineEvents.shift()!;
    if (event.kind === 'ended') {
      outcome = event.outcome;
      lineStillUp = false;
      lineEndedAt = lineEventTime(event, lineTimes, answeredAt ? Date.parse(answeredAt) : begun);
      if (!answeredAt && lineTimes && (event.answeredAt !== undefined || CONNECTED_OUTCOMES.has(event.outcome)) && patched(ANSWER_REPORTED_LATE_PATCH)) {
        const late = await answerReportedLate(event, lineEvents, begun, lineEndedAt);
        if (late) {
          answeredAt = late.answeredAt;
          lineEndedAt = late.endedAt;
          status = 'in_progress';
          showStatus(status);
          await calls.recordCallProgress({ callId: input.callId, step: ++step, status, at: answeredAt });
        }
      }
    } else if (event.kind === 'answered' && !answeredAt) {
      answeredAt = lineEventTime(event, lineTimes, begun);
      status = 'in_progress';
      showStatus(status);
      // The maximum length counts from the answer itself, however late its signal was taken.
      deadline = (lineTimes ? Date.parse(answeredAt) : Date.now()) + input.maxCallSeconds * 1000;
      await calls.recordCallProgress({ callId: input.callId, step: ++step, status, at: answeredAt });
    } else if ((event.kind === 'human_handoff' || event.kind === 'human_active') && answeredAt) {
      status = event.kind;
      showStatus(status);
      await calls.recordCallProgress({ callId: input.callId, step: ++step, status, at: lineEventTime(event, lineTimes, Date.parse(answeredAt)) });
    }
  }
  // A hang-up that arrives from now on finds the call ending and answers `ended: false`.
  status = 'completed';
  showStatus(status);
  // The line's own end when it ended the call; otherwise now (a hang-up, a deadline).
  const endedAt = (lineTimes ? lineEndedAt : null) ?? workflowNowIso();
  if (lineStillUp) await calls.hangUpLine({ callId: input.callId });

  const finished = await calls.finishCall({ callId: input.callId, step: ++step, status, outcome, answeredAt, endedAt });
  const durationSeconds = answeredAt ? Math.max(0, Math.round((Date.parse(endedAt) - Date.parse(answeredAt)) / 1000)) : 0;
  const resultState = finished.decided
    ? await calls.recordReading({
        callId: input.callId,
        reading: 1,
        outcome: { kind: 'decided', decided: finished.decided },
        keepReadyOnFailure: false,
        readAt: workflowNowIso(),
      })
    : await readAndRecord(input.callId, 1, false, calls.recordReading);
  return { status, outcome, durationSeconds, resultState: resultState === 'ready' ? 'ready' : 'failed' };
}
