/**
 * The calendar of a recurring plan (campaigns-tickets-dues §2, §4): which date the n-th due
 * falls on, its period label, and "today" in a workspace's zone. Pure and deterministic (no
 * clock, no I/O), so the cycle workflow and the API compute the same dates.
 *
 * - The first due (n = 0) is `start_date`.
 * - weekly: every 7 days; custom_days: every `cycle_days` days; `due_day` is not used
 *   (it names a day of the month).
 * - monthly, quarterly, half_yearly, yearly: every 1, 3, 6, 12 months from the start month,
 *   on `due_day` (or the start date's day when null); a day the month lacks becomes its
 *   last day, and the next month goes back to the asked day (31 Jan, 28 Feb, 31 Mar).
 */

export const CYCLE_UNITS = ['weekly', 'monthly', 'quarterly', 'half_yearly', 'yearly', 'custom_days'] as const;
export type CycleUnit = (typeof CYCLE_UNITS)[number];

export interface Plan {
  cycle_unit: CycleUnit;
  cycle_days: number | null;
  due_day: number | null;
  /** `YYYY-MM-DD`. */
  start_date: string;
}

export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

const MONTHS_PER_CYCLE: Partial<Record<CycleUnit, number>> = { monthly: 1, quarterly: 3, half_yearly: 6, yearly: 12 };

export function parseDate(text: string): CivilDate {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) throw new RangeError(`not a YYYY-MM-DD date: ${text}`);
  return { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
}

export function formatDate(d: CivilDate): string {
  return `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/** A real calendar date (2026-02-30 is not). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = parseDate(text);
  const utc = new Date(Date.UTC(d.year, d.month - 1, d.day));
  return utc.getUTCFullYear() === d.year && utc.getUTCMonth() === d.month - 1 && utc.getUTCDate() === d.day;
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export function addDays(date: string, days: number): string {
  const d = parseDate(date);
  const utc = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return formatDate({ year: utc.getUTCFullYear(), month: utc.getUTCMonth() + 1, day: utc.getUTCDate() });
}

/** The date of the n-th due (0 = the start date). */
export function dueDateOf(plan: Plan, n: number): string {
  if (n === 0) return plan.start_date;
  const months = MONTHS_PER_CYCLE[plan.cycle_unit];
  if (months === undefined) {
    const step = plan.cycle_unit === 'weekly' ? 7 : plan.cycle_days;
    if (!step) throw new RangeError('a custom_days plan needs cycle_days');
    return addDays(plan.start_date, step * n);
  }
  const start = parseDate(plan.start_date);
  const index = start.month - 1 + months * n;
  const year = start.year + Math.floor(index / 12);
  const month = (index % 12) + 1;
  const day = Math.min(plan.due_day ?? start.day, daysInMonth(year, month));
  return formatDate({ year, month, day });
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `March 2026` for month-based plans; `15 March 2026` for weekly and custom cycles. */
export function periodLabel(unit: CycleUnit, dueDate: string): string {
  const d = parseDate(dueDate);
  const monthYear = `${MONTH_NAMES[d.month - 1]} ${d.year}`;
  return MONTHS_PER_CYCLE[unit] === undefined ? `${d.day} ${monthYear}` : monthYear;
}

/** The date a zone's wall clock shows at an instant: the workspace's "today". */
export function zoneDate(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}
