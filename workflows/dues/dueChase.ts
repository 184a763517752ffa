import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { DuesActivities } from '../../activities/dues';
import { CHASE_STEPS, dueChaseStateQuery, stopChaseSignal, type DueChaseInput, type DueChaseState } from '../../src/dues/contracts';
import { DUES_STEP } from './activityOptions';
import { workflowNowIso } from '../time';

const { planDueChase, runDueChaseStep, finishDueChase } = proxyActivities<DuesActivities>(DUES_STEP);

/**
 * One due's chase (campaigns-tickets-dues §3; workflow id = due id): the reminder, follow-up
 * 1, follow-up 2, then `declined`, each at the time planned when the chase starts
 * (src/dues/chasePlan.ts: offsets and intervals from the console settings, messages held to
 * the 09:00–21:00 window in the workspace's zone). Waits are timers raced with the stop
 * signal, so a payment, a waiver or a cancellation ends it at once; after a payment it
 * cancels a live payment link (unless the gateway was paid) and sends the receipt when the
 * settings ask for one. About twenty history events: no continue-as-new.
 */
export async function dueChase(input: DueChaseInput): Promise<DueChaseState> {
  let stopped = false;
  const state: DueChaseState = { next: null, nextAtMs: null, ended: null };
  setHandler(stopChaseSignal, () => {
    stopped = true;
  });
  setHandler(dueChaseStateQuery, () => state);
  const finish = (ended: 'declined' | 'stopped') => Object.assign(state, { next: null, nextAtMs: null, ended });
  /** Sleeps until `atMs` unless stopped first; true when stopped. */
  const waitUntil = async (atMs: number) => {
    if (atMs > Date.now()) await condition(() => stopped, atMs - Date.now());
    return stopped;
  };

  const plan = await planDueChase({ ...input, nowMs: Date.now() });
  if (plan.open) {
    for (const [i, step] of CHASE_STEPS.entries()) {
      state.next = step;
      state.nextAtMs = plan.stepsAtMs[step];
      const following = CHASE_STEPS[i + 1];
      let result;
      for (;;) {
        if (await waitUntil(state.nextAtMs)) break;
        result = await runDueChaseStep({
          ...input,
          step,
          at: workflowNowIso(),
          nextActionAt: following ? new Date(Math.max(plan.stepsAtMs[following], Date.now())).toISOString() : null,
        });
        if (result.kind !== 'closed') break;
        state.nextAtMs = result.opensAtMs;
      }
      if (stopped || result?.kind === 'stopped') break;
      if (step === 'decline') return finish('declined');
    }
  }
  finish('stopped');
  await finishDueChase(input);
  return state;
}
