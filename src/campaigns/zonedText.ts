import { localTime } from '../domain/sendWindow';

/**
 * Times as a person reads them in a zone: `10:00 today (Asia/Kolkata)`, `10:00 tomorrow
 * (Asia/Kolkata)`, `10:00 on Sat 28 Nov (Asia/Kolkata)` (the console's campaign page, launch
 * notices, the CLI). A 24-hour clock, and the zone by its IANA name: ICU's short names are
 * offsets for most zones in most locales (`GMT+5:30`), which read worse than the name.
 */

const clocks = new Map<string, Intl.DateTimeFormat>();
const days = new Map<string, Intl.DateTimeFormat>();

function cached(cache: Map<string, Intl.DateTimeFormat>, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let format = cache.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, ...options });
    cache.set(timeZone, format);
  }
  return format;
}

/** `10:00`, the wall clock in the zone. */
export function formatClock(at: Date, timeZone: string): string {
  return cached(clocks, timeZone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
}

/** `10:00 tomorrow (Asia/Kolkata)`: the clock, the day counted in the zone from `now`, the zone. */
export function formatZonedTime(at: Date, timeZone: string, now: Date): string {
  const dayNumber = (d: Date) => {
    const t = localTime(d, timeZone);
    return Date.UTC(t.year, t.month - 1, t.day) / 86_400_000;
  };
  const ahead = dayNumber(at) - dayNumber(now);
  const day =
    ahead === 0 ? 'today' : ahead === 1 ? 'tomorrow' : ahead === -1 ? 'yesterday' : `on ${cached(days, timeZone, { weekday: 'short', day: 'numeric', month: 'short' }).format(at).replace(',', '')}`;
  return `${formatClock(at, timeZone)} ${day} (${timeZone})`;
}

const stamps = new Map<string, Intl.DateTimeFormat>();

/** `2026-11-27 18:43:05`: a sortable wall-clock stamp in the zone (a CSV cell; the zone is named beside it). */
export function formatZonedStamp(at: Date, timeZone: string): string {
  const parts = cached(stamps, timeZone, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
}

/** `09:00–21:00`. */
export const formatHours = (startHour: number, endHour: number): string => `${String(startHour).padStart(2, '0')}:00–${String(endHour).padStart(2, '0')}:00`;

/** A count and its noun, the count grouped as in the rest of the explanation: `1 person`, `1,200 people`. */
export const plural = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
