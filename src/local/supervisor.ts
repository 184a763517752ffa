import type { ManagedProcess } from './childProcess';
import type { LivenessPolicy, LivenessProbe } from './liveness';

/**
 * Keeps one child of the launcher running: when it dies on its own, it is started again
 * (the same way it was first started, so Temporal and FerretDB come back on their data)
 * after a growing pause, while the other children keep running. A child that keeps dying
 * soon after each start is given up on: the launcher then stops everything and exits,
 * because a restart loop would hide a real fault (a broken data file, a port taken).
 *
 * A child that hangs without exiting is caught by its liveness probe: after `failures` checks
 * in a row without an answer it is stopped (SIGTERM and SIGCONT, SIGKILL after a grace), with
 * a line saying why, and then restarted like any child that died.
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
  /** Asks the running child whether it still answers; none, and only exits are watched. */
  liveness?: { probe: LivenessProbe; policy: LivenessPolicy };
}

/** How long a child that stopped answering gets to stop on SIGTERM before SIGKILL. */
const HUNG_STOP_GRACE_MS = 5_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function supervise(options: SuperviseOptions): Supervised {
  const policy = options.policy ?? DEFAULT_RESTART_POLICY;
  const { name, log } = options;
  let current = options.first;
  let stopping = false;
  let wake: (() => void) | null = null;
  /** Set when the liveness check stopped the current process: its exit was not its own. */
  let stoppedForSilence = false;
  const wakeLiveness = new Set<() => void>();

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
      const how = stoppedForSilence ? 'was stopped for not answering' : 'exited unexpectedly';
      stoppedForSilence = false;
      log(`${name} ${how} (${exit}) after ${(ran / 1000).toFixed(1)} s; restarting in ${(backoff / 1000).toFixed(1)} s (fast failure ${fastFailures} of ${policy.maxFastFailures})`);
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

  const running = (proc: ManagedProcess) => proc.child.exitCode === null && proc.child.signalCode === null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish() {
        clearTimeout(timer);
        wakeLiveness.delete(finish);
        resolve();
      }
      wakeLiveness.add(finish);
    });
  /** Null when the child answered in time, else why not (one wording for every probe's timeout). */
  const checkOnce = async (probe: LivenessProbe, timeoutMs: number): Promise<string | null> => {
    const silent = `no answer within ${(timeoutMs / 1000).toFixed(1)} s`;
    const began = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        probe.check(timeoutMs).then(
          () => null,
          (err: unknown) => (Date.now() - began >= timeoutMs ? silent : err instanceof Error ? err.message.split('\n')[0]! : String(err)),
        ),
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve(silent), timeoutMs))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  const watch = async ({ probe, policy: every }: NonNullable<SuperviseOptions['liveness']>) => {
    let watched = current;
    let failures = 0;
    while (!stopping) {
      await pause(every.intervalMs);
      if (stopping) break;
      // Between a death and its restart the exit loop is in charge.
      if (!running(current)) continue;
      if (current !== watched) {
        watched = current;
        failures = 0;
      }
      const problem = await checkOnce(probe, every.timeoutMs);
      if (stopping || current !== watched || !running(watched)) continue;
      failures = problem === null ? 0 : failures + 1;
      if (problem === null || failures < every.failures) continue;
      log(`${name} (pid ${watched.child.pid}) stopped answering: ${failures} checks in a row failed (last: ${problem}); stopping it to restart it`);
      failures = 0;
      stoppedForSilence = true;
      await watched.stop(HUNG_STOP_GRACE_MS);
    }
    await probe.close().catch(() => undefined);
  };
  const watching = options.liveness ? watch(options.liveness) : Promise.resolve();

  return {
    name,
    current: () => current,
    async stop() {
      stopping = true;
      wake?.();
      for (const wakeUp of [...wakeLiveness]) wakeUp();
      await current.stop();
      await done;
      await watching;
    },
  };
}
