import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { DuesActivities } from '../../activities/dues';
import { duesCycleStateQuery, endCycleSignal, type DuesCycleInput, type DuesCycleState } from '../../src/dues/contracts';
import { DUES_STEP } from './activityOptions';
import { workflowNowIso } from '../time';

const { nextDuesRaise, raiseCycleDue } = proxyActivities<DuesActivities>(DUES_STEP);

/**
 * One subscriber's cycle (workflow id = subscriber id): sleeps until the next due is to be
 * raised (00:00 in the workspace's zone on the due date two cycles before it), raises it
 * (none while the subscriber is paused), then continues as new for the next cycle, so each
 * run's history is a handful of events however many years the plan lasts. One long-sleeping
 * workflow per subscriber; nothing polls. Cancelling the subscriber ends it.
 */
export async function duesCycle(input: DuesCycleInput): Promise<DuesCycleState> {
  let ended = false;
  const state: DuesCycleState = { nextIndex: input.nextIndex, raiseAtMs: null };
  setHandler(endCycleSignal, () => {
    ended = true;
  });
  setHandler(duesCycleStateQuery, () => state);

  const next = await nextDuesRaise({ subscriberId: input.subscriberId, index: input.nextIndex, nowMs: Date.now() });
  if (next.kind === 'ended') return state;
  // Cycles whose due date has passed are skipped (src/dues/cycleSteps.ts).
  state.nextIndex = next.index;
  state.raiseAtMs = next.atMs;
  if (next.atMs > Date.now()) await condition(() => ended, next.atMs - Date.now());
  if (ended) return { ...state, raiseAtMs: null };
  const raised = await raiseCycleDue({ subscriberId: input.subscriberId, index: next.index, at: workflowNowIso() });
  if (raised.kind === 'ended') return { ...state, raiseAtMs: null };
  await condition(allHandlersFinished);
  if (ended) return { ...state, raiseAtMs: null };
  return continueAsNew<typeof duesCycle>({ ...input, nextIndex: next.index + 1 });
}
