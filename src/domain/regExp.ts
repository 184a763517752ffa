/** `text` as a regular expression that matches it literally (a phrase, a name typed in a search). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
