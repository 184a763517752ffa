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

/** What a sending campaign's finish estimate rests on (the console's campaign page and `campaigns watch`). */
export interface CampaignEtaInput {
  /** People not yet sent to (or dialled). */
  remaining: number;
  throttlePerMinute: number;
  /** Sends a minute seen lately (`campaigns watch` measures it), or null when not known. */
  observedPerMinute: number | null;
  schedule: { start_at: Date | null; timezone: string; send_window_start_hour: number; send_window_end_hour: number };
  now: Date;
}

export interface CampaignEta {
  /** When the last send should go, or null when it cannot be said (an empty window, past the horizon). */
  at: Date | null;
  /** The rate the estimate assumes. */
  perMinute: number;
  /** True when that is the rate seen, lower than the throttle. */
  observed: boolean;
}

/**
 * The one finish estimate: the remaining people at the throttle, or at the rate seen when that
 * is lower, from now or from a start still ahead, inside the send window in the campaign's zone.
 */
export function campaignEta(input: CampaignEtaInput): CampaignEta {
  const throttle = input.throttlePerMinute;
  const seen = input.observedPerMinute;
  const perMinute = seen !== null && seen > 0 ? Math.min(throttle, seen) : throttle;
  const startAt = input.schedule.start_at;
  const from = startAt && startAt > input.now ? startAt : input.now;
  const at = estimateFinish({
    remaining: input.remaining,
    perMinute,
    window: { startHour: input.schedule.send_window_start_hour, endHour: input.schedule.send_window_end_hour },
    timeZone: input.schedule.timezone,
    from,
  });
  return { at, perMinute, observed: seen !== null && perMinute < throttle };
}
