/**
 * Issue 13's targets for the call benchmark, in one place: `bench:calls` prints its verdicts
 * against them and `npm run bench`'s summary reads the same numbers.
 */
export const CALL_TARGETS = {
  /** Calls that stay up, placed per second across workspaces. */
  holdPlacementsPerSecond: 30,
  /** Closed loop: each client places a call and polls it to its result. */
  sustainedCallsPerSecond: 5,
  /** Hang-up → result decided, p99. */
  readyP99Ms: 2_000,
} as const;

/**
 * Issue 28's targets for the webhook benchmark: `bench:webhooks` prints each figure beside
 * its target and `npm run bench`'s summary reads the same numbers.
 */
export const WEBHOOK_TARGETS = {
  /** A burst of 500 events to one endpoint. */
  burstDeliveriesPerSecond: 500,
  /** Creation (the producer's publish call) → first attempt arriving, p99, in every paced phase. */
  firstAttemptP99Ms: 250,
  /** The paced phases: one endpoint at each rate, then MULTI_ENDPOINTS endpoints sharing MULTI_RATE. */
  pacedRates: [50, 200],
  multiEndpoints: 20,
  multiRate: 200,
} as const;
