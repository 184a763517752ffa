import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A sweep's pause between batches, cut short when the process stops: a stopping worker ends
 * its pass at once instead of sleeping out the pause first (the pass then ends before its
 * next batch, as the sweeps' `signal` promises).
 */
export async function pauseUnlessStopped(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return;
  await sleep(ms, undefined, { signal }).catch((err: unknown) => {
    if (!signal?.aborted) throw err;
  });
}
