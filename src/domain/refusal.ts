/**
 * A domain rule said no: a `reason` from the feature's own list, a sentence for people, and
 * the facts behind it. The domain knows nothing of HTTP; the API maps every refusal to its
 * error code in one table (`api/refusals.ts`).
 */
export class Refusal<Reason extends string = string> extends Error {
  constructor(
    readonly reason: Reason,
    message: string,
    /** Extra facts for the caller (counts, limits, the provider's fields); never the reason itself. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'Refusal';
  }
}
