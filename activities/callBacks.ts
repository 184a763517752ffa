import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { placeCallBack } from '../src/calls';
import type { CallBackInput, CallBackResult } from '../src/calls/contracts';

export interface CallBackActivityDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  deploymentChannels: readonly string[];
  now?: () => Date;
}

/** A scheduled call-back's call (src/calls/callBack.ts). */
export function createCallBackActivities(deps: CallBackActivityDeps) {
  const now = deps.now ?? (() => new Date());
  return {
    /** Safe to retry: the call's id derives from the call-back, so a second attempt finds the call placed (placeCall's `callId`). */
    placeCallBack: (input: CallBackInput): Promise<CallBackResult> => placeCallBack(deps, input, now()),
  };
}

export type CallBackActivities = ReturnType<typeof createCallBackActivities>;
