/**
 * The dues app's limits (campaigns-tickets-dues §4, §8) and its console settings' bounds, in
 * one place: the request schemas and the use cases read them from here.
 */
export const DUES_LIMITS = {
  nameMaxChars: 140,
  phoneMinChars: 6,
  phoneMaxChars: 24,
  emailMaxChars: 200,
  planNameMaxChars: 120,
  /** Rupees, in whole paise (src/dues/money.ts): at least one paisa, at most ten million rupees. */
  amountMin: 0.01,
  amountMax: 10_000_000,
  /**
   * `start_date` bounds (docs/decisions/dues.md, "Dues: dates"): the cycle math carries
   * `YYYY-MM-DD` dates up to 9999-12-31; a start in this range keeps every due raised at a
   * create, its chase and thousands of years of cycles inside that.
   */
  startDateMin: '1970-01-01',
  startDateMax: '2999-12-31',
  cycleDaysMin: 1,
  cycleDaysMax: 730,
  dueDayMin: 1,
  dueDayMax: 31,
  referenceMaxChars: 140,
  listDefaultLimit: 25,
  listMaxLimit: 200,
  /** One reminder and at most two follow-ups per due; fixed (§3). */
  followUps: 2,
  /** Dues raised at once when a subscriber is created (§4). */
  duesRaisedAtCreate: 2,
  notesMaxChars: 1_000,
  tagsMax: 20,
} as const;

/** Where the 412 for an app not installed points (`details.docs`). */
export const DUES_APP_DOCS_URL = 'https://docs.orchestrator.dev/apps/dues';
