import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

/**
 * The one rule for a person's email and phone, wherever a request names one (contacts,
 * ticket requesters, dues subscribers, campaign audiences): what is refused here is refused
 * everywhere, and what is kept is kept in the same form.
 */

/** Control and format characters (NUL, newlines, zero-width marks) belong in no address or number. */
const INVISIBLE = /[\p{Cc}\p{Cf}]/u;

/** Emails match after trimming and lower-casing. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Enough to refuse what cannot be an address; delivery is the only real check. */
export function isPlausibleEmail(email: string): boolean {
  return !INVISIBLE.test(email) && /^[^\s@]+@[^\s@]+\.[^\s@.]+$/.test(email);
}

/**
 * A phone number in E.164: with a leading `+` (or the country's international prefix) it
 * is read as international, otherwise as a number of the workspace's country. Null when the
 * text is anything but a phone number (libphonenumber's extraction from surrounding text is
 * off), holds a control character, carries an extension (E.164 has no place for one, so
 * keeping the rest would store a different number than given), or is not a valid number
 * for its country.
 */
export function toE164(raw: string, country: string): string | null {
  if (INVISIBLE.test(raw)) return null;
  const parsed = parsePhoneNumberFromString(raw.trim(), { defaultCountry: country as CountryCode, extract: false });
  return parsed?.isValid() && !parsed.ext ? parsed.number : null;
}
