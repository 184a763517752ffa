import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/**
 * One clock for the whole console: every time is shown in the workspace's zone (its IANA
 * name), named once per page by the shell ("Times in Asia/Kolkata"), never the browser's
 * zone beside it. No JSX, so the unit tests import the formatting directly.
 */

/** The zone the pages format in: the chosen workspace's (App.tsx provides it); UTC until it is known. */
export const WorkspaceZone = createContext('UTC');

export const useWorkspaceZone = (): string => useContext(WorkspaceZone);

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
