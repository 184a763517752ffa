import { CAMPAIGN_CATCH_UP_MS } from '../contracts';
import { CAMPAIGN_LIMITS } from '../limits';

/**
 * The throttle (campaigns-tickets-dues §4 `throttle_per_minute`, 1 to 600): sends are spread
 * evenly over the minute, one every 60/n seconds, never a burst at the top of the minute.
 */

export function assertThrottle(perMinute: number): void {
  if (!Number.isInteger(perMinute) || perMinute < CAMPAIGN_LIMITS.throttleMin || perMinute > CAMPAIGN_LIMITS.throttleMax) {
    throw new RangeError(`throttle_per_minute must be an integer from ${CAMPAIGN_LIMITS.throttleMin} to ${CAMPAIGN_LIMITS.throttleMax}`);
  }
}

/** Milliseconds between two sends (600 a minute: 100 ms). */
export function sendSpacingMs(perMinute: number): number {
  assertThrottle(perMinute);
  return 60_000 / perMinute;
}

/**
 * When each of `count` sends may go, counted from `start` (epoch ms), the n-th at
 * `start + n × spacing`, rounded to whole milliseconds without drifting.
 */
export function sendTimes(start: number, count: number, perMinute: number): number[] {
  const spacing = sendSpacingMs(perMinute);
  return Array.from({ length: count }, (_, n) => start + Math.round(n * spacing));
}

/**
 * When the send `offsetMs` into a batch (its planned offset from the batch's first) may go,
 * on this process's clock: the planned offset less what the batch is behind its plan (up to
 * `CAMPAIGN_CATCH_UP_MS`), but no sooner than half the offset after the batch started.
 */
export function catchUpSendAt(batch: { startedAt: number; plannedStartMs: number }, offsetMs: number): number {
  const behind = Math.min(CAMPAIGN_CATCH_UP_MS, Math.max(0, batch.startedAt - batch.plannedStartMs));
  return batch.startedAt + Math.max(offsetMs - behind, offsetMs / 2);
}
