import { formatZonedStamp } from '../campaigns';

/**
 * The CLI's one clock: every time the console API answers (RFC 3339, UTC) is printed in the
 * workspace's zone, which the API names in the `Workspace-Time-Zone` header of every
 * workspace route, and the zone is named once under the output. `--json` prints the answer
 * as it came. The campaign page, `campaigns watch` and the web console speak the same zone.
 */

/** What the API's timestamps look like (api/format.ts `formatTimestamp`, and plain ISO strings). */
const STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

export const WORKSPACE_ZONE_HEADER = 'workspace-time-zone';

/** The answer with each timestamp as `2026-11-27 18:43:05` in `zone`; `changed` says whether there was any. */
export function timesInZone(value: unknown, zone: string): { value: unknown; changed: boolean } {
  let changed = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && STAMP.test(v)) {
      const at = new Date(v);
      if (Number.isNaN(at.getTime())) return v;
      changed = true;
      return formatZonedStamp(at, zone);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { value: walk(value), changed };
}

/** The line naming the zone, once, under output that showed a time. */
export const zoneNote = (zone: string): string => `(times in ${zone}, the workspace's time zone)`;
