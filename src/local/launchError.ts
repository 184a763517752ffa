/**
 * A start-up problem the launcher explains in one line (a port taken, naming its holder): the
 * process prints the message and exits 1, with no stack, as for a bad setting.
 */
export class LaunchError extends Error {
  override name = 'LaunchError';
}
