import { parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max';

/**
 * Reading a call's `to` (api-core §4 POST /calls): with `+` it is international; without,
 * first a number of the workspace's country, else international digits. The full
 * ("max") metadata is used because blocked ranges need the number's type.
 */

export const MIN_DESTINATION_DIGITS = 8;

/**
 * Satellite networks by calling code: 870 (Inmarsat), 881 (global mobile satellite:
 * Iridium, Globalstar), and Thuraya's range inside 882.
 */
const SATELLITE_PREFIXES = ['870', '881', '88216'];

export type Destination =
  | { kind: 'too_short' }
  | { kind: 'unusable' }
  | { kind: 'ok'; e164: string; digits: string; callingCode: string; blocked: 'premium_rate' | 'satellite' | null };

function valid(parsed: PhoneNumber | undefined): PhoneNumber | null {
  return parsed && parsed.isValid() ? parsed : null;
}

export function readDestination(to: string, workspaceCountry: string): Destination {
  const digits = to.replace(/^\+/, '');
  if (digits.length < MIN_DESTINATION_DIGITS) return { kind: 'too_short' };
  const parsed = to.startsWith('+')
    ? valid(parsePhoneNumberFromString(to))
    : (valid(parsePhoneNumberFromString(digits, workspaceCountry as CountryCode)) ?? valid(parsePhoneNumberFromString(`+${digits}`)));
  if (!parsed) return { kind: 'unusable' };
  const e164 = parsed.number;
  const e164Digits = e164.slice(1);
  const satellite = SATELLITE_PREFIXES.some((prefix) => e164Digits.startsWith(prefix));
  const blocked = satellite ? 'satellite' : parsed.getType() === 'PREMIUM_RATE' ? 'premium_rate' : null;
  return { kind: 'ok', e164, digits: e164Digits, callingCode: parsed.countryCallingCode, blocked };
}

/**
 * The number a search for calls looks for: read as POST /calls reads a `to`, in the workspace's
 * country, so `9811122233`, `09811122233` and `+91 98111 22233` all find the call placed to
 * `9811122233` in an IN workspace (its `to` is stored in E.164). Separators are dropped first,
 * as a pasted number carries them. A number that does not read is looked for as typed, its
 * digits behind a `+` (what the filter matched before numbers were read).
 */
export function searchedNumber(typed: string, workspaceCountry: string): string {
  const compact = typed.trim().replace(/(?!^\+)[^\d]/g, '');
  const destination = readDestination(compact, workspaceCountry);
  return destination.kind === 'ok' ? destination.e164 : `+${compact.replace(/^\+/, '')}`;
}
