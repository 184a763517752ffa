import { z } from 'zod';

/**
 * Call `details` (api-core §4 POST /calls): label → value pairs the agent confirms before
 * anything else. Normalised into the lines the agent is handed.
 */

export const DETAILS_LIMITS = { entries: 20, labelChars: 80, valueChars: 300, totalChars: 3_000 } as const;

export const detailsRequest = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .refine((value) => Object.keys(value).length <= DETAILS_LIMITS.entries, {
    message: `At most ${DETAILS_LIMITS.entries} details.`,
  })
  .meta({ maxProperties: DETAILS_LIMITS.entries })
  .default({});

export interface DetailLine {
  label: string;
  value: string;
}

function valueText(value: string | number | boolean | null): string {
  if (value === true) return 'yes';
  if (value === false) return 'no';
  if (value === null) return '';
  return String(value);
}

/**
 * Labels cut at 80 and values at 300 characters; true/false become yes/no; pairs with an
 * empty label or value dropped; a line that would take the total past 3,000 characters is
 * left out whole (later, shorter lines may still fit).
 */
export function normaliseDetails(details: Record<string, string | number | boolean | null>): DetailLine[] {
  const lines: DetailLine[] = [];
  let total = 0;
  for (const [rawLabel, rawValue] of Object.entries(details)) {
    const label = rawLabel.trim().slice(0, DETAILS_LIMITS.labelChars).trim();
    const value = valueText(rawValue).trim().slice(0, DETAILS_LIMITS.valueChars).trim();
    if (!label || !value) continue;
    const size = detailLine({ label, value }).length;
    if (total + size > DETAILS_LIMITS.totalChars) continue;
    total += size;
    lines.push({ label, value });
  }
  return lines;
}

export function detailLine(line: DetailLine): string {
  return `${line.label}: ${line.value}`;
}
