import { randomBytes } from 'node:crypto';

/**
 * `<prefix>_` then 12 hex digits of milliseconds and 12 random hex digits: ids sort by
 * creation time (campaign and message ids must be time-ordered) and do not collide.
 */
export function newId(prefix: string, now: Date = new Date()): string {
  const time = now.getTime().toString(16).padStart(12, '0');
  return `${prefix}_${time}${randomBytes(6).toString('hex')}`;
}
