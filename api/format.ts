/**
 * REST timestamps (api-core §2): `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`. Dates carry
 * milliseconds, so the last three fraction digits are zeros; a value that cannot be
 * formatted is null.
 */
export function formatTimestamp(value: Date | null | undefined): string | null {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) return null;
  return `${value.toISOString().slice(0, 23)}000+00:00`;
}
