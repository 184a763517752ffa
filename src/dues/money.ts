/**
 * Money in the dues app (campaigns-tickets-dues §2, §8): amounts are rupees on the wire and in
 * the records, always a whole number of paise (at most two decimals, at least one paisa).
 * Every sum and every conversion goes through integer paise, so no float drift reaches a
 * total, a message or a gateway (0.1 + 0.2 is 30 paise, never 0.30000000000000004 rupees).
 * docs/decisions/dues.md, "Dues: dates, money and totals".
 */

/** Paise in `rupees`, rounded to the nearest paisa (a record written before whole paise were enforced may hold less). */
export function toPaise(rupees: number): number {
  return Math.round(rupees * 100);
}

/** The rupee number for whole paise: the double that prints with at most two decimals. */
export function fromPaise(paise: number): number {
  return paise / 100;
}

/**
 * True when `rupees` is exactly a whole number of paise as JSON carries it: 100.12 is,
 * 100.123 and 0.001 are not. Division by 100 is correctly rounded, so the paise divided back
 * give the very double that parsing the two-decimal text gives.
 */
export function isWholePaise(rupees: number): boolean {
  if (!Number.isFinite(rupees)) return false;
  const paise = toPaise(rupees);
  return Number.isSafeInteger(paise) && fromPaise(paise) === rupees;
}

/** For a message: `1,500` for whole rupees, `1,500.50` otherwise (Indian digit grouping). */
export function formatRupees(rupees: number): string {
  const paise = toPaise(rupees);
  const digits = paise % 100 === 0 ? 0 : 2;
  return fromPaise(paise).toLocaleString('en-IN', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
