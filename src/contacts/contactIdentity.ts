import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/** Emails match after trimming and lower-casing. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Enough to refuse what cannot be an address; delivery is the only real check. */
export function isPlausibleEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@.]+$/.test(email);
}

/**
 * A phone number in E.164: with a leading `+` (or the country's international prefix) it
 * is read as international, otherwise as a number of the workspace's country. Null when
 * the result is not a valid number for its country.
 */
export function toE164(raw: string, country: string): string | null {
  const parsed = parsePhoneNumberFromString(raw.trim(), country as CountryCode);
  return parsed?.isValid() ? parsed.number : null;
}
