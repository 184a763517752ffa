import { ConfigError } from '../config';
import { LaunchError } from '../local/launchError';

/**
 * Runs a process entry point: a configuration problem prints its message (which names the
 * variable) and a launcher's start-up problem its one line, and exits 1 without a stack;
 * anything else is logged as a crash.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (err instanceof ConfigError || err instanceof LaunchError) {
      process.stderr.write(`${err.message}\n`);
    } else {
      process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
    process.exit(1);
  });
}

/**
 * Resolves once on the first SIGINT or SIGTERM, so a process can shut down in order; or,
 * for a child the launcher started with an IPC channel, when that channel closes: the
 * launcher has gone (killed, even with SIGKILL), and its child must not outlive it.
 */
export function shutdownSignal(): Promise<NodeJS.Signals | 'parent gone'> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals | 'parent gone') => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('disconnect', onParentGone);
      resolve(signal);
    };
    const onParentGone = () => onSignal('parent gone');
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    if (process.channel) {
      process.once('disconnect', onParentGone);
      // The channel only listens: it must not keep a stopping process alive.
      process.channel.unref();
      if (!process.connected) onParentGone();
    }
  });
}
