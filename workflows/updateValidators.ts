/**
 * Validators for updates that take no arguments. A validator runs before the update is
 * accepted, so a malformed request (an operator's update from the Temporal UI or CLI with a
 * payload, a caller built against another version) is refused without entering the history.
 * A validator throws to refuse; it must not change state.
 */
export function refuseArguments(...args: unknown[]): void {
  if (args.length > 0) throw new Error(`This update takes no arguments; got ${args.length}.`);
}
