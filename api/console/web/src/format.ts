/**
 * How the console words values for people: no JSX, no DOM, so the unit tests
 * (test/unit/console/webFormat.test.ts) import it directly.
 */

/** What a missing value shows as, everywhere on the console. */
export const MISSING = '—';

/**
 * A captured field's value as text: a yes/no answer (the `yes_no` type's true/false) as
 * "Yes"/"No", lists and objects as JSON, absent as a dash.
 */
export function fieldValue(value: unknown): string {
  if (value === null || value === undefined) return MISSING;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/** What the console knows of a transcript turn when labelling who said it. */
export interface LabelledTurn {
  role: string;
  kind?: string;
  /** Set when the turn is a message the business sent from a campaign. */
  campaign_id?: string | null;
  /** Set when the turn is a template message the business sent. */
  template?: string | null;
  /** The team member's name on a reply sent from the inbox. */
  author_name?: string | null;
}

/**
 * Who said a turn. `human` covers both the business's own sends (a campaign's or an API
 * template message) and a team member's reply; the former read as the business's.
 */
export function turnLabel(turn: LabelledTurn): string {
  if (turn.kind === 'trail') return 'Trail';
  switch (turn.role) {
    case 'user':
      return 'Customer';
    case 'model':
      return 'AI agent';
    case 'human':
      return turn.campaign_id || turn.template ? 'Business' : turn.author_name ? `Team member (${turn.author_name})` : 'Team member';
    default:
      return turn.role;
  }
}

/* One clock (clock.ts): times in the workspace's zone. */

const formats = new Map<string, Intl.DateTimeFormat>();

/** `27 Nov 2026, 18:43`: a date and 24-hour time in the zone (the zone itself is named once on the page). */
export function formatInZone(at: string | Date, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formats.set(timeZone, format);
  }
  return format.format(typeof at === 'string' ? new Date(at) : at);
}

/** `Sat 28 Nov` style short day and time (a campaign's waiting start, the run's finish estimate). */
export function formatShortInZone(at: string | Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    typeof at === 'string' ? new Date(at) : at,
  );
}

/** `27 Nov 2026` for a `YYYY-MM-DD` calendar date (a due date: a day in the workspace's zone, not an instant). */
export function formatCalendarDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(Date.UTC(y!, m! - 1, d!)));
}

/** The zone's offset from UTC at an instant, in ms (what its wall clock reads minus UTC's). */
function offsetMs(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(
    new Date(at),
  );
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(at / 1000) * 1000;
}

/**
 * The instant a wall-clock time (`2026-11-28T10:00`, what a datetime-local field gives) names in
 * the zone: the form's "Start at" is read in the workspace's zone, as every time on the page is
 * shown, never the browser's. Null for a value that is not such a time.
 */
export function wallTimeInZone(wall: string, timeZone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(wall);
  if (!m) return null;
  const asUtc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  // Twice: the offset at the first guess may differ from the offset at the answer (a DST change between).
  const first = asUtc - offsetMs(asUtc, timeZone);
  return new Date(asUtc - offsetMs(first, timeZone));
}

/** `2026-11-28T10:00`: an instant as the zone's wall clock, what a datetime-local field shows (the inverse of `wallTimeInZone`). */
export function wallTimeText(at: string | Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(
    typeof at === 'string' ? new Date(at) : at,
  );
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}`;
}
