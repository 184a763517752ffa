import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { CallActivities } from '../../activities/calls';
import type { ReadingState } from '../../src/calls/contracts';
import { CALL_READER, CALL_STEP } from './activityOptions';
import { workflowNowIso } from '../time';

const { recordReading } = proxyActivities<CallActivities>(CALL_STEP);
const reader = proxyActivities<CallActivities>(CALL_READER);

/**
 * Reads a finished call and records the result; shared by the call workflow and console
 * re-reads. `record` is the recording step as the caller schedules it (the call workflow's
 * are local activities on its new path).
 */
export async function readAndRecord(
  callId: string,
  reading: number,
  reread: boolean,
  record: CallActivities['recordReading'] = recordReading,
): Promise<ReadingState> {
  try {
    const read = await reader.readCall({ callId });
    return await record({ callId, reading, outcome: { kind: 'read', reading: read }, keepReadyOnFailure: reread, reread, readAt: workflowNowIso() });
  } catch (err) {
    // Attempts used up, a permanent refusal, or timeouts: the reading failed.
    if (!(err instanceof ActivityFailure)) throw err;
    return await record({ callId, reading, outcome: { kind: 'failed' }, keepReadyOnFailure: reread, reread, readAt: workflowNowIso() });
  }
}
