import { ActivityFailure, ApplicationFailure, isCancellation, patched, proxyLocalActivities, TemporalFailure } from '@temporalio/workflow';
import type { CallActivities, PlaceAndRecordInput } from '../../activities/calls';
import { FailureType } from '../../src/temporal/failures';
import type { CallWorkflowInput, CallWorkflowResult, Placement } from '../../src/calls/contracts';
import { CALL_STEP_LOCAL } from './activityOptions';
import { callState, endUnplaced, finishAndRead, followLine, PhaseTimer, waitWithTimerPerWait, type LifecycleWays } from './callPhases';
import { endInOneStep, endUnplacedInOneStep } from './oneStepEnd';
import { workflowNowIso } from '../time';
import { setStatusAttribute } from '../visibility';

const steps = proxyLocalActivities<CallActivities>(CALL_STEP_LOCAL);

/**
 * Issue 36 §3: the call's end is one local activity (`endCall`: hang-up, finish, and the result
 * decided or read by a reader that answers within a few seconds, else by the reader's activity
 * as before), and each deadline is one timer, never cancelled by a line event nor at the end.
 * Runs started before keep a step per part, the reader's activity task, and a timer per wait.
 */
const ONE_STEP_END_PATCH = 'call-end-in-one-step';

/** The network's answer to placing the call; a placing step that failed for good is a refusal, as on `callWorkflow`'s newest path. */
export async function placeOnce(request: PlaceAndRecordInput): Promise<Placement> {
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
 * Since `call-end-in-one-step` (issue 36 §3, its two events the price of keeping earlier runs
 * replaying until the patch is retired): the end is one local activity, the reader included
 * when it answers within `READ_IN_END_STEP_MS`, and each deadline one timer left to lapse.
 *
 * The workflow id is the call id.
 */
export async function callLifecycle(input: CallWorkflowInput): Promise<CallWorkflowResult> {
  // Decided before the first step, once per run.
  const oneStepEnd = patched(ONE_STEP_END_PATCH);
  const ways: LifecycleWays = {
    steps,
    showStatus: setStatusAttribute,
    lineTimes: true,
    takesLateAnswer: () => true,
    lineWait: oneStepEnd ? new PhaseTimer() : waitWithTimerPerWait,
  };
  // Nothing on the line happened before the workflow began (it places the call).
  const begun = Date.now();
  const state = callState(input);

  const answeredAt: string | null = input.direction === 'inbound' ? workflowNowIso() : null;
  state.placement = await placeOnce({ callId: input.callId, requestedAt: input.createdAt, step: ++state.step, status: state.status, at: answeredAt ?? workflowNowIso() });
  // The update's handler answered in this task, before the workflow ends (update-with-start
  // delivers it with the start), so the API gets a refusal, not a completed workflow.
  if (!state.placement.placed) return oneStepEnd ? endUnplacedInOneStep(steps, input, state, ways) : endUnplaced(input, state, ways);

  const line = await followLine(input, state, ways, begun, answeredAt);
  return oneStepEnd ? endInOneStep(steps, input, state, ways, line) : finishAndRead(input, state, ways, line);
}
