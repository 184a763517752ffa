import { proxyLocalActivities } from '@temporalio/workflow';
import type { CallActivities } from '../../activities/calls';
import type { CallWorkflowInput, CallWorkflowResult } from '../../src/calls/contracts';
import { CALL_STEP_LOCAL } from './activityOptions';
import { callState, followLine, PhaseTimer, type LifecycleWays } from './callPhases';
import { placeOnce } from './callLifecycle';
import { endInOneStep, endUnplacedInOneStep } from './oneStepEnd';
import { workflowNowIso } from '../time';
import { showStatusInDetails } from '../visibility';

const steps = proxyLocalActivities<CallActivities>(CALL_STEP_LOCAL);

/**
 * One call's lifecycle (api-core §3): `callLifecycle`'s newest path (callLifecycle.ts, its
 * `call-end-in-one-step` patch taken) with no patch and no search-attribute upsert, so an
 * answered call's history is 21 events where `callLifecycle` writes 25 (issue 36 §3):
 *
 * - a new type, the version in its name as Temporal keys replay on the type: a run of it takes
 *   no `patched()` (each costs a run a marker and a `TemporalChangeVersion` upsert for good),
 *   while `callLifecycle` stays hosted, unchanged, for the runs started before;
 * - the call's status is the workflow's current details (workflows/visibility.ts), not a
 *   `ResourceStatus` upsert on every move (one event and one billed action each); the start
 *   sets no `ResourceStatus` (src/calls/startCall.ts), so no UI list shows a stale one.
 *
 * Placing and recording the placement are one local activity in the first workflow task, which
 * answers the API's update-with-start; the line is followed with one timer per deadline; the
 * end is one local activity that reads the call too (oneStepEnd.ts). The workflow id is the
 * call id.
 */
export async function callLifecycleV2(input: CallWorkflowInput): Promise<CallWorkflowResult> {
  const ways: LifecycleWays = { steps, showStatus: showStatusInDetails, lineTimes: true, takesLateAnswer: () => true, lineWait: new PhaseTimer() };
  // Nothing on the line happened before the workflow began (it places the call).
  const begun = Date.now();
  const state = callState(input);
  ways.showStatus(state.status);

  const answeredAt: string | null = input.direction === 'inbound' ? workflowNowIso() : null;
  state.placement = await placeOnce({ callId: input.callId, requestedAt: input.createdAt, step: ++state.step, status: state.status, at: answeredAt ?? workflowNowIso() });
  // The update's handler answered in this task, before the workflow ends (update-with-start
  // delivers it with the start), so the API gets a refusal, not a completed workflow.
  if (!state.placement.placed) return endUnplacedInOneStep(steps, input, state, ways);

  const line = await followLine(input, state, ways, begun, answeredAt);
  return endInOneStep(steps, input, state, ways, line);
}
