import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { CallDoc } from './callStore';

/**
 * What other features do when a call ends or is read again (a campaign's run is told its
 * place is free; a campaign call's person is refolded), registered by the composition roots
 * (src/main/featureHooks.ts) so the generic call code names no campaign. Registering the
 * same hook again changes nothing.
 */

/** What a hook is given: the worker's database and, where there is one, its Temporal client. */
export interface CallHookDeps {
  db: Db;
  temporal?: Client;
}

export type CallEndedHook = (deps: CallHookDeps, call: CallDoc) => Promise<unknown>;
export type CallRereadHook = (deps: CallHookDeps, callId: string, at: Date) => Promise<unknown>;

const endedHooks = new Set<CallEndedHook>();
const rereadHooks = new Set<CallRereadHook>();

/** The call is over and its live place given back. */
export function onCallEnded(hook: CallEndedHook): void {
  endedHooks.add(hook);
}

/** A console re-read wrote a new ready result. */
export function onCallReread(hook: CallRereadHook): void {
  rereadHooks.add(hook);
}

/** Runs every call-end hook, each best effort: answers what failed, for the caller to log. */
export async function callEnded(deps: CallHookDeps, call: CallDoc): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (const hook of endedHooks) {
    try {
      await hook(deps, call);
    } catch (err) {
      failures.push(err);
    }
  }
  return failures;
}

/** Runs every re-read hook; a failure is the caller's (an activity retries). */
export async function callReread(deps: CallHookDeps, callId: string, at: Date): Promise<void> {
  for (const hook of rereadHooks) await hook(deps, callId, at);
}
