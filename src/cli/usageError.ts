/** A mistake in how the console CLI was called: it prints the message and the usage, and exits 2. */
export class UsageError extends Error {}
