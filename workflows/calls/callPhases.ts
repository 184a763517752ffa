import { CancellationScope, condition, setHandler, sleep } from '@temporalio/workflow';
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
import { readAndRecord } from './callReading';
import { answerReportedLate, CONNECTED_OUTCOMES, lineEventTime } from './lineTimes';
import { refuseArguments } from '../updateValidators';
import { workflowNowIso } from '../time';

/**
 * What both call lifecycles (`callWorkflow`, call.ts, and `callLifecycle`, callLifecycle.ts)
 * do alike: the call's state and its message handlers, the line followed from ringing to its
 * end, and the steps after it. Each lifecycle hands in how it differs (its steps' kind, its
 * status upsert, its patches), so each keeps its own command sequence exactly: both types'
 * stored histories replay (test/workflow/workflows/replay.test.ts).
 */

/** The call's steps as the lifecycle schedules them (activity tasks or local activities). */
export type CallSteps = Pick<CallActivities, 'recordCallProgress' | 'hangUpLine' | 'finishCall' | 'recordReading'>;

export interface CallState {
  status: CallStatus;
  placement: Placement | null;
  hangupRequested: boolean;
  /**
   * Set once the line has ended the call (a hang-up then finds it ending), even while its
   * answer is still awaited from the line's report.
   */
  outcome: CallOutcome | null;
  lineEvents: LineEvent[];
  /** The last step's number: each read-model write takes the next, so an earlier never overwrites a later. */
  step: number;
}

/** How a lifecycle differs in the phases below. */
export interface LifecycleWays {
  steps: CallSteps;
  /** Shows the new status in the Temporal UI (`showStatus` or `setStatusAttribute`, workflows/visibility.ts). */
  showStatus(status: CallStatus): void;
  /** Line events' own times decide the answer and the end (always, but on `callWorkflow` runs before issue 26). */
  lineTimes: boolean;
  /** Asked, in this order, only of an end taken before the answer that a connected call has: whether to await the line's report. */
  takesLateAnswer(): boolean;
  /** How the line is awaited against the phase's deadline (`waitWithTimerPerWait` or a `PhaseTimer`). */
  lineWait: LineWait;
}

/** Waits until `woken` holds (true) or the deadline (epoch ms, workflow time) passes (false). */
export interface LineWait {
  wait(woken: () => boolean, deadline: number): Promise<boolean>;
  /** Nothing more is awaited: a timer still pending is cancelled (a workflow going on waiting for something else). */
  cancel(): void;
}

/** A timer per wait, cancelled as the wait ends (`callWorkflow`, and `callLifecycle` runs before its one-step end). */
export const waitWithTimerPerWait: LineWait = {
  wait: (woken, deadline) => condition(woken, Math.max(0, deadline - Date.now())),
  cancel: () => undefined,
};

/**
 * One timer per deadline (ringing, then connected), however many line events are taken
 * meanwhile, cancelled only when the deadline moves (the answer): the last is left pending
 * when the workflow completes, which records nothing, where cancelling it cost an event.
 */
export class PhaseTimer implements LineWait {
  #deadline: number | null = null;
  #scope: CancellationScope | null = null;
  #expired = false;

  async wait(woken: () => boolean, deadline: number): Promise<boolean> {
    if (deadline !== this.#deadline) this.#start(deadline);
    await condition(() => woken() || this.#expired);
    // A line event or hang-up taken with the deadline is taken: the line's word wins.
    return woken();
  }

  cancel(): void {
    this.#scope?.cancel();
    this.#scope = null;
  }

  #start(deadline: number): void {
    this.cancel();
    this.#deadline = deadline;
    this.#expired = false;
    const scope = new CancellationScope();
    this.#scope = scope;
    void scope
      .run(() => sleep(Math.max(1, deadline - Date.now())))
      .then(
        () => {
          if (this.#scope === scope) this.#expired = true;
        },
        () => undefined,
      );
  }
}

/** The call's state, with the status query, the placement and hang-up updates and the line-event signal handled. */
export function callState(input: CallWorkflowInput): CallState {
  const state: CallState = {
    status: input.direction === 'inbound' ? 'in_progress' : 'ringing',
    placement: null,
    hangupRequested: false,
    outcome: null,
    lineEvents: [],
    step: 1,
  };
  setHandler(statusQuery, () => state.status);
  setHandler(
    placementUpdate,
    async () => {
      await condition(() => state.placement !== null);
      return state.placement!;
    },
    { validator: refuseArguments },
  );
  // A hang-up the call cannot take answers false (the API's `ended: false`) rather than being
  // refused by the validator: that answer is the contract.
  setHandler(
    hangupUpdate,
    () => {
      if (state.hangupRequested || state.outcome !== null || (state.status !== 'ringing' && state.status !== 'in_progress')) return false;
      state.hangupRequested = true;
      return true;
    },
    { validator: refuseArguments },
  );
  setHandler(lineEventSignal, (event) => {
    state.lineEvents.push(event);
  });
  return state;
}

/** A call the network did not place: `failed` `originate_error`, its result decided `unanswered` without reading (api-core §2). */
export async function endUnplaced(input: CallWorkflowInput, state: CallState, ways: LifecycleWays): Promise<CallWorkflowResult> {
  state.status = 'failed';
  ways.showStatus(state.status);
  await ways.steps.finishCall({ callId: input.callId, step: ++state.step, status: state.status, outcome: 'originate_error', answeredAt: null, endedAt: workflowNowIso() });
  const result = await ways.steps.recordReading({
    callId: input.callId,
    reading: 1,
    outcome: { kind: 'decided', decided: 'unanswered' },
    keepReadyOnFailure: false,
    readAt: workflowNowIso(),
  });
  return { status: state.status, outcome: 'originate_error', durationSeconds: 0, resultState: result === 'ready' ? 'ready' : 'failed' };
}

/** How the line left the call. */
export interface LineFollowed {
  outcome: CallOutcome;
  answeredAt: string | null;
  /** The line's own end when it ended the call; null when we end it (a hang-up, a deadline). */
  lineEndedAt: string | null;
  lineStillUp: boolean;
}

/**
 * Ringing, then connected, each phase with its own deadline, until the line ends the call, a
 * hang-up is taken or a deadline passes. `begun` is when the workflow began (nothing on the
 * line happened before); `answeredAt` is set for a call already connected (inbound).
 */
export async function followLine(input: CallWorkflowInput, state: CallState, ways: LifecycleWays, begun: number, answeredAt: string | null): Promise<LineFollowed> {
  const { steps, lineTimes } = ways;
  let deadline = Date.now() + (answeredAt ? input.maxCallSeconds : input.ringSeconds) * 1000;
  let lineStillUp = true;
  let lineEndedAt: string | null = null;
  while (state.outcome === null) {
    const woke = await ways.lineWait.wait(() => state.lineEvents.length > 0 || state.hangupRequested, deadline);
    if (!woke) {
      state.outcome = answeredAt ? 'max_duration' : 'no_answer';
      break;
    }
    if (state.hangupRequested) {
      state.outcome = 'agent_hangup';
      break;
    }
    const event = state.lineEvents.shift()!;
    if (event.kind === 'ended') {
      state.outcome = event.outcome;
      lineStillUp = false;
      lineEndedAt = lineEventTime(event, lineTimes, answeredAt ? Date.parse(answeredAt) : begun);
      if (!answeredAt && (event.answeredAt !== undefined || CONNECTED_OUTCOMES.has(event.outcome)) && ways.takesLateAnswer()) {
        const late = await answerReportedLate(event, state.lineEvents, begun, lineEndedAt);
        if (late) {
          answeredAt = late.answeredAt;
          lineEndedAt = late.endedAt;
          state.status = 'in_progress';
          ways.showStatus(state.status);
          await steps.recordCallProgress({ callId: input.callId, step: ++state.step, status: state.status, at: answeredAt });
        }
      }
    } else if (event.kind === 'answered' && !answeredAt) {
      answeredAt = lineEventTime(event, lineTimes, begun);
      state.status = 'in_progress';
      ways.showStatus(state.status);
      // The maximum length counts from the answer itself, however late its signal was taken.
      deadline = (lineTimes ? Date.parse(answeredAt) : Date.now()) + input.maxCallSeconds * 1000;
      await steps.recordCallProgress({ callId: input.callId, step: ++state.step, status: state.status, at: answeredAt });
    } else if ((event.kind === 'human_handoff' || event.kind === 'human_active') && answeredAt) {
      state.status = event.kind;
      ways.showStatus(state.status);
      await steps.recordCallProgress({ callId: input.callId, step: ++state.step, status: state.status, at: lineEventTime(event, lineTimes, Date.parse(answeredAt)) });
    }
  }
  return { outcome: state.outcome, answeredAt, lineEndedAt, lineStillUp };
}

/** The call's end: `completed`, the line hung up if still up, the call finished, then its result read (or decided). */
export async function finishAndRead(input: CallWorkflowInput, state: CallState, ways: LifecycleWays, line: LineFollowed): Promise<CallWorkflowResult> {
  const { steps } = ways;
  const { outcome, answeredAt } = line;
  // A hang-up that arrives from now on finds the call ending and answers `ended: false`.
  state.status = 'completed';
  ways.showStatus(state.status);
  // The line's own end when it ended the call; otherwise now (a hang-up, a deadline).
  const endedAt = (ways.lineTimes ? line.lineEndedAt : null) ?? workflowNowIso();
  if (line.lineStillUp) await steps.hangUpLine({ callId: input.callId });

  const finished = await steps.finishCall({ callId: input.callId, step: ++state.step, status: 'completed', outcome, answeredAt, endedAt });
  const resultState = finished.decided
    ? await steps.recordReading({
        callId: input.callId,
        reading: 1,
        outcome: { kind: 'decided', decided: finished.decided },
        keepReadyOnFailure: false,
        readAt: workflowNowIso(),
      })
    : await readAndRecord(input.callId, 1, false, steps.recordReading);
  return { status: 'completed', outcome, durationSeconds: durationSeconds(answeredAt, endedAt), resultState: resultState === 'ready' ? 'ready' : 'failed' };
}

export function durationSeconds(answeredAt: string | null, endedAt: string): number {
  return answeredAt ? Math.max(0, Math.round((Date.parse(endedAt) - Date.parse(answeredAt)) / 1000)) : 0;
}
