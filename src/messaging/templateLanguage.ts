/**
 * Which language variant of a template a send uses (api-core §4, template `language`):
 * exact match, then the same base language, then an English variant, then any approved
 * variant; with no language asked for, the English variant when there is one.
 *
 * Languages compare case-insensitively with `-` and `_` alike (`en-us` finds `en_US`).
 * Within each step the choice is fixed so a send never depends on storage order: the bare
 * base language first (`en` before `en_GB`), then `en_US` for English, then alphabetical.
 */

export interface LanguageVariant {
  language: string;
  status: string;
}

export function normaliseLanguage(code: string): string {
  return code.trim().replace(/-/g, '_').toLowerCase();
}

export function baseLanguage(code: string): string {
  return normaliseLanguage(code).split('_')[0]!;
}

function preference(base: string) {
  return (a: LanguageVariant, b: LanguageVariant): number => {
    const rank = (v: LanguageVariant) => {
      const code = normaliseLanguage(v.language);
      if (code === base) return 0;
      if (base === 'en' && code === 'en_us') return 1;
      return 2;
    };
    return rank(a) - rank(b) || normaliseLanguage(a.language).localeCompare(normaliseLanguage(b.language));
  };
}

/** The approved variant to send, or null when the template has none approved. */
export function selectTemplateVariant<T extends LanguageVariant>(variants: T[], requested?: string | null): T | null {
  const approved = variants.filter((v) => v.status === 'approved');
  if (approved.length === 0) return null;
  const english = approved.filter((v) => baseLanguage(v.language) === 'en').sort(preference('en'));
  const anyVariant = [...approved].sort(preference(''));
  if (requested === undefined || requested === null || requested.trim() === '') {
    return english[0] ?? anyVariant[0]!;
  }
  const wanted = normaliseLanguage(requested);
  const exact = approved.find((v) => normaliseLanguage(v.language) === wanted);
  if (exact) return exact;
  const base = baseLanguage(requested);
  const sameBase = approved.filter((v) => baseLanguage(v.language) === base).sort(preference(base));
  return sameBase[0] ?? english[0] ?? anyVariant[0]!;
}
