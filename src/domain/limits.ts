/**
 * Every limit the contract states (api-core §8 and the campaigns document §8) that more than
 * one module enforces, in one place. Field length limits live beside their request schemas.
 */
export const LIMITS = {
  /** Requests per key per fixed clock minute. */
  requestsPerMinute: 120,
  rateWindowSeconds: 60,
  /** How long an Idempotency-Key's stored response replays. */
  idempotencyTtlHours: 24,
  /** What a retry with a key still held by a running request is told to wait. */
  idempotencyRetryAfterSeconds: 2,
  /**
   * How long an Idempotency-Key claim holds without a renewal before it counts as left by a
   * process that died, and another request may take it over. A running request renews it
   * every fifth of this; a dead one's lapses within about two of the waits a retry is told.
   */
  idempotencyLeaseSeconds: 5,
  /** What a request refused because the database did not answer (503 `unavailable`) is told to wait. */
  unavailableRetryAfterSeconds: 5,
  /** What a request refused because its workspace's lease stayed taken (503 `busy`: too many of its writes at once) is told to wait. */
  busyRetryAfterSeconds: 1,
  /** The old half of a rolled key keeps working this long. */
  rolledKeyGraceHours: 24,
  /** A key's name, as a person types it in the console. */
  keyNameMaxLength: 100,
  concurrentCallsPerWorkspace: 10,
  callsPerUtcDay: 100,
  reservedMinutesPerUtcDay: 600,
  /**
   * Largest request body read. The largest the contract allows is a campaign audience of
   * 50,000 contact ids (about 1.5 MB of JSON), so 4 MiB leaves room and still bounds memory.
   */
  maxBodyBytes: 4 * 1024 * 1024,
} as const;
