import { randomBytes } from 'node:crypto';

/**
 * `<prefix>_` then 12 hex digits of milliseconds and 12 random hex digits: ids sort by
 * creation time (campaign and message ids must be time-ordered) and do not collide.
 */
export function newId(prefix: string, now: Date = new Date()): string {
  const time = now.getTime().toString(16).padStart(12, '0');
  return `${prefix}_${time}${randomBytes(6).toString('hex')}`;
}

/**
 * Every id `newId(prefix)` makes, as a range of strings: above `<prefix>_` and below
 * `<prefix>` followed by the character after `_`. A filter on it matches the same documents on
 * MongoDB and FerretDB, and FerretDB's patched SQLite build answers it (with a sort on `_id`)
 * from its `_id` index, reading rows newest or oldest first until a page is full instead of
 * scanning the collection (docs/decisions/platform.md, "FerretDB's `_id` ranges").
 */
export function idRange(prefix: string): { $gt: string; $lt: string } {
  return { $gt: `${prefix}_`, $lt: `${prefix}${String.fromCharCode('_'.charCodeAt(0) + 1)}` };
}
