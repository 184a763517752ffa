import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { CallDoc } from './callStore';

/**
 * What other features do when a call ends or is read again (a campaign's run is told its
 * place is free; a campaign call's person is refolded). The set is a dependency of the code
 * that ends and reads calls (`FinishCallDeps.hooks`, the call activities' `callHooks`), built
 * once by the composition root (src/main/featureHooks.ts `FEATURE_HOOKS`, handed to the
 * worker's activities by src/worker/activityDeps.ts), so the generic call code names no
 * campaign and a caller without the hooks does not compile.
 */

/** What a hook is given: the worker's database and, where there is one, its Temporal client. */
export interface CallHookDeps {
  db: Db;
  temporal?: Client;
}

export type CallEndedHook = (deps: CallHookDeps, call: CallDoc) => Promise<unknown>;
export type CallRereadHook = (deps: CallHookDeps, callId: string, at: Date) => Promise<unknown>;

/** Every reaction to calls, each list complete (an empty list says "none", not "forgotten"). */
export interface CallHooks {
  /** The call is over and its live place given back. */
  ended: readonly CallEndedHook[];
  /** A console re-read wrote a new ready result. */
  reread: readonly CallRereadHook[];
}

/** Runs every call-end hook, each best effort: answers what failed, for the caller to log. */
export async function callEnded(hooks: CallHooks, deps: CallHookDeps, call: CallDoc): Promise<unknown[]> {
  const failures: unknown[] = [];
  for (const hook of hooks.ended) {
    try {
      await hook(deps, call);
    } catch (err) {
      failures.push(err);
    }
  }
  return failures;
}

/** Runs every re-read hook; a failure is the caller's (an activity retries). */
export async function callReread(hooks: CallHooks, deps: CallHookDeps, callId: string, at: Date): Promise<void> {
  for (const hook of hooks.reread) await hook(deps, callId, at);
}
