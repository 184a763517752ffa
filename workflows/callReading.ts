import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { CallActivities } from '../activities/calls';

const { recordReading } = proxyActivities<CallActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/** Temporary reader errors are retried with backoff; after five attempts the result is `failed`. */
const reader = proxyActivities<CallActivities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['ReaderPermanentError'],
  },
});

/** Reads a finished call and records the result; shared by the call workflow and console re-reads. */
export async function readAndRecord(callId: string, reading: number, reread: boolean): Promise<'ready' | 'failed' | 'pending' | 'none'> {
  try {
    const read = await reader.readCall({ callId });
    return await recordReading({ callId, reading, outcome: { kind: 'read', reading: read }, keepReadyOnFailure: reread, readAt: nowIso() });
  } catch (err) {
    // Attempts used up, a permanent refusal, or timeouts: the reading failed.
    if (!(err instanceof ActivityFailure)) throw err;
    return await recordReading({ callId, reading, outcome: { kind: 'failed' }, keepReadyOnFailure: reread, readAt: nowIso() });
  }
}

/** Workflow time, deterministic on replay. */
export function nowIso(): string {
  return new Date(Date.now()).toISOString();
}
