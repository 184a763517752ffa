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
