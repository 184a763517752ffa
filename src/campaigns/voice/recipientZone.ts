import { getCountry, getTimezone } from 'countries-and-timezones';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { isTimeZone } from '../../workspaces';

/**
 * The time zone a call campaign holds a person's call window to when its schedule asks for
 * `recipient_time_zone` (issue 15, beyond the contract): the zone of the number's country
 * (libphonenumber-js reads the country; countries-and-timezones lists its zones,
 * docs/decisions/campaigns.md "The recipient's own time zone"). A number cannot say where in a country
 * of several clocks its owner is, so there, and for a number of no known country, it is the
 * campaign's zone. Zones that always read the same clock (Germany's Berlin and Büsingen's
 * Zurich: the same standard and summer offsets) count as one.
 */
export function recipientTimeZone(e164: string, campaignZone: string): string {
  const country = parsePhoneNumberFromString(e164)?.country;
  const zones: readonly string[] = (country ? getCountry(country)?.timezones : null) ?? [];
  if (zones.length === 0) return campaignZone;
  if (zones.includes(campaignZone)) return campaignZone;
  const clocks = new Set(zones.map((name) => {
    const zone = getTimezone(name);
    return zone ? `${zone.utcOffset}/${zone.dstOffset}` : name;
  }));
  const only = zones[0]!;
  return clocks.size === 1 && isTimeZone(only) ? only : campaignZone;
}
