import type { ManagedProcess } from './childProcess';

/**
 * Keeps one child of the launcher running: when it dies on its own, it is started again
 * (the same way it was first started, so Temporal and FerretDB come back on their data)
 * after a growing pause, while the other children keep running. A child that keeps dying
 * soon after each start is given up on: the launcher then stops everything and exits,
 * because a restart loop would hide a real fault (a broken data file, a port taken).
 */

export interface RestartPolicy {
  /** Pause before the first restart; doubled for each further fast failure in a row. */
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** A run shorter than this (exit or failed start) counts as a fast failure. */
  fastFailureMs: number;
  /** Give up after this many fast failures in a row. */
  maxFastFailures: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialBackoffMs: 1_000,
  maxBackoffMs: 30_000,
  fastFailureMs: 60_000,
  maxFastFailures: 5,
};

export interface Supervised {
  readonly name: string;
  /** The process running now (the last one started, if between restarts). */
  current(): ManagedProcess;
  /** Stops restarting, then stops the process; resolves when it has gone. */
  stop(): Promise<void>;
}

export interface SuperviseOptions {
  name: string;
  /** Starts the child and resolves once it answers; rejects if it did not come up. */
  start: () => Promise<ManagedProcess>;
  /** The first process, already started and ready. */
  first: ManagedProcess;
  policy?: RestartPolicy;
  log: (line: string) => void;
  /** Called once when the child is given up on. */
  onGiveUp: (reason: string) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function supervise(options: SuperviseOptions): Supervised {
  const policy = options.policy ?? DEFAULT_RESTART_POLICY;
  const { name, log } = options;
  let current = options.first;
  let stopping = false;
  let wake: (() => void) | null = null;

  const loop = async () => {
    let startedAt = Date.now();
    let fastFailures = 0;
    let exit: number | string = await current.exited;
    for (;;) {
      if (stopping) return;
      const ran = Date.now() - startedAt;
      fastFailures = ran < policy.fastFailureMs ? fastFailures + 1 : 1;
      if (fastFailures >= policy.maxFastFailures) {
        options.onGiveUp(
          `${name} failed ${fastFailures} times in a row, each within ${Math.round(policy.fastFailureMs / 1000)} s of its start (last: ${exit}); giving up. See ${current.logFile}:\n${current.tail()}`,
        );
        return;
      }
      const backoff = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (fastFailures - 1));
      log(`${name} exited unexpectedly (${exit}) after ${(ran / 1000).toFixed(1)} s; restarting in ${(backoff / 1000).toFixed(1)} s (fast failure ${fastFailures} of ${policy.maxFastFailures})`);
      await Promise.race([sleep(backoff), new Promise<void>((resolve) => (wake = resolve))]);
      wake = null;
      if (stopping) return;
      startedAt = Date.now();
      try {
        current = await options.start();
      } catch (err) {
        exit = `failed to start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
        continue;
      }
      if (stopping) {
        await current.stop();
        return;
      }
      log(`${name} restarted (pid ${current.child.pid})`);
      exit = await current.exited;
    }
  };
  const done = loop();

  return {
    name,
    current: () => current,
    async stop() {
      stopping = true;
      wake?.();
      await current.stop();
      await done;
    },
  };
}
