import { ActivityFailure, ApplicationFailure, condition, isCancellation, proxyLocalActivities, setHandler, TemporalFailure } from '@temporalio/workflow';
import type { CallActivities, PlaceAndRecordInput } from '../../activities/calls';
import { FailureType } from '../../src/temporal/failures';
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
import { CALL_STEP_LOCAL } from './activityOptions';
import { readAndRecord } from './callReading';
import { answerReportedLate, CONNECTED_OUTCOMES, lineEventTime } from './lineTimes';
import { refuseArguments } from '../updateValidators';
import { workflowNowIso } from '../time';
import { setStatusAttribute } from '../visibility';

const steps = proxyLocalActivities<CallActivities>(CALL_STEP_LOCAL);

/** The network's answer to placing the call; a placing step that failed for good is a refusal, as on `callWorkflow`'s newest path. */
async function placeOnce(request: PlaceAndRecordInput): Promise<Placement> {
  try {
    return await steps.placeAndRecordCall(request);
  } catch (err) {
    // A local activity's failure reaches the workflow as the step's own failure (seen here:
    // an ApplicationFailure, not wrapped in an ActivityFailure); take any Temporal failure.
    const failure = err instanceof ActivityFailure ? err.cause : err;
    if (isCancellation(err) || !(err instanceof TemporalFailure)) throw err;
    // A call with no read model has nothing to end: its workflow fails.
    if (failure instanceof ApplicationFailure && failure.type === FailureType.ReadModelMissing) throw err;
    return { placed: false, error: `The call could not be placed: ${failure instanceof Error ? failure.message : String(failure)}` };
  }
}

/**
 * One call's lifecycle (api-core §3), issue 36's cheaper shape of `callWorkflow` (call.ts),
 * which stays hosted, unchanged, for runs started before: a new workflow type rather than a
 * fifth `patched()`, because every patch a run takes costs it two history events for good
 * (the marker and the `TemporalChangeVersion` upsert; `callWorkflow` pays six on every call),
 * and this shape has none. Same behaviour as `callWorkflow` on its newest path; what differs:
 *
 * - placing and recording the placement are one local activity (`placeAndRecordCall`), run in
 *   the first workflow task, so the API's update-with-start (src/calls/placeCall.ts) has the
 *   network's answer when the start returns: no activity task, no second workflow task;
 * - every short step is a local activity (the reader stays an activity task: heartbeats,
 *   minutes);
 * - the status search attribute is set without a patch.
 *
 * The workflow id is the call id.
 */
export async function callLifecycle(input: CallWorkflowInput): Promise<CallWorkflowResult> {
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

  let answeredAt: string | null = input.direction === 'inbound' ? workflowNowIso() : null;
  placement = await placeOnce({ callId: input.callId, requestedAt: input.createdAt, step: ++step, status, at: answeredAt ?? workflowNowIso() });
  if (!placement.placed) {
    // The update's handler answered in this task, before the workflow ends (update-with-start
    // delivers it with the start), so the API gets the refusal, not a completed workflow.
    status = 'failed';
    setStatusAttribute(status);
    await steps.finishCall({ callId: input.callId, step: ++step, status, outcome: 'originate_error', answeredAt: null, endedAt: workflowNowIso() });
    // Never answered: `unanswered`, decided without reading (api-core §2).
    const state = await steps.recordReading({
      callId: input.callId,
      reading: 1,
      outcome: { kind: 'decided', decided: 'unanswered' },
      keepReadyOnFailure: false,
      readAt: workflowNowIso(),
    });
    return { status, outcome: 'originate_error', durationSeconds: 0, resultState: state === 'ready' ? 'ready' : 'failed' };
  }

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
      lineEndedAt = lineEventTime(event, true, answeredAt ? Date.parse(answeredAt) : begun);
      if (!answeredAt && (event.answeredAt !== undefined || CONNECTED_OUTCOMES.has(event.outcome))) {
        const late = await answerReportedLate(event, lineEvents, begun, lineEndedAt);
        if (late) {
          answeredAt = late.answeredAt;
          lineEndedAt = late.endedAt;
          status = 'in_progress';
          setStatusAttribute(status);
          await steps.recordCallProgress({ callId: input.callId, step: ++step, status, at: answeredAt });
        }
      }
    } else if (event.kind === 'answered' && !answeredAt) {
      answeredAt = lineEventTime(event, true, begun);
      status = 'in_progress';
      setStatusAttribute(status);
      // The maximum length counts from the answer itself, however late its signal was taken.
      deadline = Date.parse(answeredAt) + input.maxCallSeconds * 1000;
      await steps.recordCallProgress({ callId: input.callId, step: ++step, status, at: answeredAt });
    } else if ((event.kind === 'human_handoff' || event.kind === 'human_active') && answeredAt) {
      status = event.kind;
      setStatusAttribute(status);
      await steps.recordCallProgress({ callId: input.callId, step: ++step, status, at: lineEventTime(event, true, Date.parse(answeredAt)) });
    }
  }
  // A hang-up that arrives from now on finds the call ending and answers `ended: false`.
  status = 'completed';
  setStatusAttribute(status);
  // The line's own end when it ended the call; otherwise now (a hang-up, a deadline).
  const endedAt = lineEndedAt ?? workflowNowIso();
  if (lineStillUp) await steps.hangUpLine({ callId: input.callId });

  const finished = await steps.finishCall({ callId: input.callId, step: ++step, status, outcome, answeredAt, endedAt });
  const durationSeconds = answeredAt ? Math.max(0, Math.round((Date.parse(endedAt) - Date.parse(answeredAt)) / 1000)) : 0;
  const resultState = finished.decided
    ? await steps.recordReading({
        callId: input.callId,
        reading: 1,
        outcome: { kind: 'decided', decided: finished.decided },
        keepReadyOnFailure: false,
        readAt: workflowNowIso(),
      })
    : await readAndRecord(input.callId, 1, false, steps.recordReading);
  return { status, outcome, durationSeconds, resultState: resultState === 'ready' ? 'ready' : 'failed' };
}
