import { isCalendarDate } from './cycle';
import { DUES_LIMITS as L } from './limits';
import { isWholePaise } from './money';
import type { SubscriberSetupDoc } from './store';

/**
 * What a subscriber's plan may hold beyond its schema's types (campaigns-tickets-dues §4, §8;
 * docs/decisions/dues.md, "Dues: dates" and "Dues: money"): the request schemas refuse the rest
 * with 400, and the setup sweep gives up on a setup recorded before these rules held.
 */

export const START_DATE_MESSAGE = `expected a start date from ${L.startDateMin} to ${L.startDateMax}`;
export const AMOUNT_MESSAGE = 'expected rupees in whole paise: at most two decimals, at least 0.01';

/** Within the dates the cycle math carries (string order is date order for `YYYY-MM-DD`). */
export const startDateInRange = (date: string): boolean => date >= L.startDateMin && date <= L.startDateMax;

/** Whole paise, at least one paisa, at most the limit. */
export const amountAllowed = (rupees: number): boolean => isWholePaise(rupees) && rupees >= L.amountMin && rupees <= L.amountMax;

/** Why a recorded setup can never finish, or null: the rules above, which an older create did not check. */
export function setupInputProblem(input: SubscriberSetupDoc['input']): string | null {
  if (!isCalendarDate(input.start_date) || !startDateInRange(input.start_date)) return `start_date ${input.start_date}: ${START_DATE_MESSAGE}`;
  if (!amountAllowed(input.amount)) return `amount ${input.amount}: ${AMOUNT_MESSAGE}`;
  return null;
}
