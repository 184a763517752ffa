export const TAG_MAX_CHARS = 32;

/**
 * Tags as the contract normalises them (tickets, and contacts the same way): trimmed,
 * lower-cased, each run of whitespace one hyphen, cut to 32 characters (code points, so a
 * character is never split), empty ones and duplicates dropped, first occurrence kept in order.
 */
export function normaliseTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const tag = Array.from(raw.trim().toLowerCase().replace(/\s+/g, '-')).slice(0, TAG_MAX_CHARS).join('');
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}
