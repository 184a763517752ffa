import { proxyActivities, sleep } from '@temporalio/workflow';
import type { CallBackActivities } from '../../activities/callBacks';
import type { CallBackInput, CallBackResult } from '../../src/calls/contracts';
import { CALL_STEP } from './activityOptions';

const { placeCallBack } = proxyActivities<CallBackActivities>(CALL_STEP);

/**
 * A call-back an agent promised: waits until its time (a durable timer: a worker restart loses
 * nothing), then places the call as POST /calls would, its guards checked then (an empty
 * wallet or a suspended workspace refuses it, and the refusal is the result).
 */
export async function callBack(input: CallBackInput): Promise<CallBackResult> {
  const waitMs = Date.parse(input.at) - Date.now();
  if (waitMs > 0) await sleep(waitMs);
  return placeCallBack(input);
}
