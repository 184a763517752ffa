import { formatZonedStamp } from '../campaigns';

/**
 * The CLI's one clock: every time the console API answers (RFC 3339, UTC) that a command
 * prints is shown in the workspace's zone, which the API names in the `Workspace-Time-Zone`
 * header of every workspace route, and the zone is named once under those times. `--json`
 * prints the answer as it came. The web console and `campaigns watch` speak the same zone.
 */

/** What the API's timestamps look like (api/format.ts `formatTimestamp`, and plain ISO strings). */
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

export const WORKSPACE_ZONE_HEADER = 'workspace-time-zone';

/** The answer with each timestamp as `2026-11-27 18:43:05` in `zone`, and those texts (so the zone is named only under times a command showed). */
export function timesInZone(value: unknown, zone: string): { value: unknown; zone: string; shown: Set<string> } {
  const shown = new Set<string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && STAMP.test(v)) {
      const at = new Date(v);
      if (Number.isNaN(at.getTime())) return v;
      const text = formatZonedStamp(at, zone);
      shown.add(text);
      return text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { value: walk(value), zone, shown };
}

/** The command's output with the zone named under it when it shows one of the answer's times. */
export function withZoneNote(text: string, clock: { zone: string; shown: Set<string> }): string {
  return [...clock.shown].some((t) => text.includes(t)) ? `${text}\n${zoneNote(clock.zone)}` : text;
}

/** The line naming the zone, once, under output that showed a time. */
export const zoneNote = (zone: string): string => `(times in ${zone}, the workspace's time zone)`;
