/**
 * The send window (campaigns-tickets-dues §4 `schedule`): whole local hours in an IANA time
 * zone, `[start, end)`. A schedule may narrow the 09:00 floor and the 21:00 ceiling, never
 * widen them; calls are further held to 10:00 to 19:00. Shared by campaigns and the dues
 * chase (reminders go out inside the message window), so it belongs to neither.
 *
 * Local time comes from Node's `Intl` (the ICU time-zone database that ships with Node and is
 * updated with it), so the workflow can use the same pure functions with its own clock.
 */

export interface SendWindow {
  startHour: number;
  endHour: number;
}

export interface WindowBounds {
  floorHour: number;
  ceilingHour: number;
}

/** Messages: 09:00 floor, 21:00 ceiling, in the recipient's (or the campaign's) zone. */
export const MESSAGE_BOUNDS: WindowBounds = { floorHour: 9, ceilingHour: 21 };
/** Calls are held to 10:00 to 19:00 whatever the schedule says. */
export const CALL_BOUNDS: WindowBounds = { floorHour: 10, ceilingHour: 19 };

export interface ClampedWindow extends SendWindow {
  /** True when an asked hour lay outside the bounds and was pulled in (`quiet_hours`). */
  clamped: boolean;
}

/** The window in force: each asked hour (or the default) pulled inside the bounds. */
export function clampWindow(asked: { startHour: number | null; endHour: number | null }, defaults: SendWindow, bounds: WindowBounds): ClampedWindow {
  const start = asked.startHour ?? defaults.startHour;
  const end = asked.endHour ?? defaults.endHour;
  const startHour = Math.max(start, bounds.floorHour);
  const endHour = Math.min(end, bounds.ceilingHour);
  const clamped = (asked.startHour !== null && asked.startHour < bounds.floorHour) || (asked.endHour !== null && asked.endHour > bounds.ceilingHour);
  return { startHour, endHour, clamped };
}

export const isEmptyWindow = (window: SendWindow): boolean => window.startHour >= window.endHour;

interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall-clock reading of an instant in a zone. */
export function localTime(at: Date, timeZone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(at)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** The zone's offset from UTC at an instant, in milliseconds (whole seconds). */
function offsetMs(at: Date, timeZone: string): number {
  const t = localTime(at, timeZone);
  const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The first instant whose wall clock in the zone reads at least `hour:00` on the given local
 * date. On a day the clock jumps over that hour (a DST gap) that is the jump itself; on a day
 * it repeats (a DST overlap) it is the first of the two.
 */
export function zonedHourStart(date: { year: number; month: number; day: number }, hour: number, timeZone: string): Date {
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour);
  // Try the offsets in force a day either side of the wall time: one of them is right.
  const candidates = [-1, 1]
    .map((side) => wall - offsetMs(new Date(wall + side * 86_400_000), timeZone))
    .sort((a, b) => a - b)
    .map((ms) => new Date(ms));
  const reading = (at: Date) => {
    const t = localTime(at, timeZone);
    return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  };
  const exact = candidates.find((c) => reading(c) === wall);
  if (exact) return exact;
  // A gap: the wall time never shows; the clock jumps from before it to after it between
  // the two candidates. Find the jump to the second.
  let [lo, hi] = [candidates[0]!.getTime(), candidates[1]!.getTime()];
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2000) * 1000;
    if (reading(new Date(mid)) >= wall) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
}

function addDays(date: { year: number; month: number; day: number }, days: number) {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Whether a send may go out at `at`. */
export function isWindowOpen(at: Date, window: SendWindow, timeZone: string): boolean {
  const hour = localTime(at, timeZone).hour;
  return hour >= window.startHour && hour < window.endHour;
}

/**
 * The next instant at or after `at` when the window is open: `at` itself inside the window,
 * else today's opening (before it) or tomorrow's (after it), in the zone's own wall time.
 */
export function nextOpenTime(at: Date, window: SendWindow, timeZone: string): Date {
  if (isEmptyWindow(window)) throw new RangeError(`send window ${window.startHour}-${window.endHour} is empty`);
  if (isWindowOpen(at, window, timeZone)) return at;
  const local = localTime(at, timeZone);
  const today = { year: local.year, month: local.month, day: local.day };
  const opening = zonedHourStart(today, window.startHour, timeZone);
  if (opening.getTime() > at.getTime()) return opening;
  return zonedHourStart(addDays(today, 1), window.startHour, timeZone);
}

/** When the window open at `at` shuts: today's closing hour in the zone (midnight for 24). */
export function windowCloseTime(at: Date, window: SendWindow, timeZone: string): Date {
  const local = localTime(at, timeZone);
  const today = { year: local.year, month: local.month, day: local.day };
  return window.endHour >= 24 ? zonedHourStart(addDays(today, 1), 0, timeZone) : zonedHourStart(today, window.endHour, timeZone);
}
