import type { Supervised } from './supervisor';

/** Stops supervised children in reverse start order: the processes that use the servers finish their work before the servers go. */
export async function stopInReverse(children: readonly Supervised[], say: (line: string) => void): Promise<void> {
  for (const child of [...children].reverse()) {
    say(`stopping ${child.name}`);
    await child.stop();
  }
}

/** On SIGINT, SIGTERM or SIGHUP, stops everything once (a second signal while stopping is ignored), then exits. */
export function stopOnSignals(stopping: () => boolean, stopAll: () => Promise<void>, say: (line: string) => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping()) return;
    say(`${signal}: shutting down`);
    void stopAll().then(() => {
      say('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
}
