import { isEmptyWindow, nextOpenTime, windowCloseTime, type SendWindow } from '../domain/sendWindow';

/**
 * When a campaign's last send should go (the console's `campaigns watch`): the remaining
 * recipients at the send rate, evenly spaced, only inside the send window in the campaign's
 * zone, so a run that will wait overnight says so. Pure, so it is tested without a clock.
 */
export interface FinishEstimateInput {
  remaining: number;
  /** Sends a minute: the throttle, or what the run has shown it manages when that is lower. */
  perMinute: number;
  window: SendWindow;
  timeZone: string;
  /** Now, or a scheduled start still ahead. */
  from: Date;
}

/** Days looked ahead at most (50,000 at 1 a minute over one open hour a day is about 833). */
const HORIZON_DAYS = 1_000;

export function estimateFinish(input: FinishEstimateInput): Date | null {
  if (input.remaining <= 0) return input.from;
  if (!(input.perMinute > 0) || isEmptyWindow(input.window)) return null;
  const spacing = 60_000 / input.perMinute;
  const horizon = input.from.getTime() + HORIZON_DAYS * 86_400_000;
  let left = input.remaining;
  let at = input.from;
  while (at.getTime() < horizon) {
    at = nextOpenTime(at, input.window, input.timeZone);
    const closes = windowCloseTime(at, input.window, input.timeZone);
    const fit = Math.max(1, Math.ceil((closes.getTime() - at.getTime()) / spacing));
    if (left <= fit) return new Date(at.getTime() + (left - 1) * spacing);
    left -= fit;
    at = closes;
  }
  return null;
}
