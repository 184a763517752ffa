import { ActivityFailure, ApplicationFailure, isCancellation, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { CallActivities } from '../../activities/calls';
import type { CallWorkflowInput, CallWorkflowResult, Placement } from '../../src/calls/contracts';
import { FailureType } from '../../src/temporal/failures';
import { CALL_STEP, CALL_STEP_LOCAL } from './activityOptions';
import { callState, endUnplaced, finishAndRead, followLine, waitWithTimerPerWait, type LifecycleWays } from './callPhases';
import { workflowNowIso } from '../time';
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
 * maximum length; then read. The workflow id is the call id. Its phases are shared with
 * `callLifecycle` (callPhases.ts); the type is hosted for runs started before issue 36, its
 * command sequence unchanged.
 */
export async function callWorkflow(input: CallWorkflowInput): Promise<CallWorkflowResult> {
  // Decided before the first step, once per run: every step of a run takes the same kind.
  const calls = patched(LOCAL_CALL_STEPS_PATCH) ? localSteps : remoteSteps;
  const lineTimes = patched(LINE_EVENT_TIMES_PATCH);
  const ways: LifecycleWays = {
    steps: calls,
    showStatus,
    lineTimes,
    takesLateAnswer: () => lineTimes && patched(ANSWER_REPORTED_LATE_PATCH),
    lineWait: waitWithTimerPerWait,
  };
  // Nothing on the line happened before the workflow began (it places the call).
  const begun = Date.now();
  const state = callState(input);

  // An activity task on both paths. Run locally, a call the network would not place ran to
  // its end in the task that took the placement update, and the API waiting on that update
  // answered 500 internal instead of originate_failed (test/integration/calls/api.test.ts).
  state.placement = await placeOnce(input);
  if (!state.placement.placed) return endUnplaced(input, state, ways);
  const answeredAt: string | null = input.direction === 'inbound' ? workflowNowIso() : null;
  await calls.recordCallProgress({ callId: input.callId, step: ++state.step, status: state.status, at: answeredAt ?? workflowNowIso(), placed: true });

  const line = await followLine(input, state, ways, begun, answeredAt);
  return finishAndRead(input, state, ways, line);
}
