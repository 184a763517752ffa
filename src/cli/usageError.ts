/** A mistake in how the console CLI was called: it prints the message and how the command is written (src/cli/errorText.ts), and exits 2. */
export class UsageError extends Error {}
