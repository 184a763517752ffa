import type { ManagedProcess } from './childProcess';
import type { ChildState } from './childrenStatus';
import type { LivenessPolicy, LivenessProbe } from './liveness';

/**
 * Keeps one child of the launcher running: when it dies on its own, it is started again
 * (the same way it was first started, so Temporal and FerretDB come back on their data)
 * after a growing pause, while the other children keep running. A child that keeps dying is
 * never given up on: the pause grows to a cap and the restarts go on for as long as it fails,
 * each with a line that says the child is degraded, because stopping everything would turn
 * one broken part (a media process that cannot start) into an outage of every other
 * (docs/decisions/platform.md, "Supervision").
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
  /** From this many fast failures in a row each line says the child is degraded, with its log's tail the first time. */
  degradedAfter: number;
}

/** 1 s, doubling to 5 min: a child that cannot start costs a start every 5 min, and one that can comes back at most 5 min after its fault cleared. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialBackoffMs: 1_000,
  maxBackoffMs: 300_000,
  fastFailureMs: 60_000,
  degradedAfter: 3,
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
  /** Told each change: running (a process that came up), or restarting (and why, and when next). */
  onStatus?: (status: ChildState) => void;
  /** Asks the running child whether it still answers; none, and only exits are watched. */
  liveness?: { probe: LivenessProbe; policy: LivenessPolicy };
}

/** How long a child that stopped answering gets to stop on SIGTERM before SIGKILL. */
const HUNG_STOP_GRACE_MS = 5_000;

/** A span as the launcher's lines give it: `2.5 s`. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Why a liveness check failed, with one wording for a child that did not answer in time. A
 * probe's own deadline (fetch's `AbortSignal.timeout`, the driver's, gRPC's) can fire a little
 * before `timeoutMs` by `Date.now()`: a timer counts from the event loop's cached time, which
 * lags on a busy loop (CI saw "The operation was aborted due to timeout" in its place). So a
 * timeout error, or any failure in the deadline's last tenth, is the child not answering.
 */
export function livenessFailure(err: unknown, elapsedMs: number, timeoutMs: number): string {
  // By name: fetch's is a DOMException, an Error only in some realms.
  const timedOut = elapsedMs >= timeoutMs * 0.9 || (err as { name?: unknown } | null)?.name === 'TimeoutError';
  if (timedOut) return `no answer within ${seconds(timeoutMs)}`;
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}

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

  const report = options.onStatus ?? (() => undefined);
  report({ state: 'running', pid: current.child.pid!, since: new Date().toISOString() });

  const loop = async () => {
    let startedAt = Date.now();
    let fastFailures = 0;
    let downSince = 0;
    /** A restart that never came up counts however long it took to fail (a readiness wait is 60 s). */
    let cameUp = true;
    let exit: number | string = await current.exited;
    for (;;) {
      if (stopping) return;
      const ran = Date.now() - startedAt;
      fastFailures = !cameUp || ran < policy.fastFailureMs ? fastFailures + 1 : 1;
      if (fastFailures === 1) downSince = Date.now();
      const backoff = Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (fastFailures - 1));
      const how = stoppedForSilence ? 'was stopped for not answering' : 'exited unexpectedly';
      stoppedForSilence = false;
      report({
        state: 'restarting',
        since: new Date(downSince).toISOString(),
        failures: fastFailures,
        last_exit: String(exit),
        next_attempt_at: new Date(Date.now() + backoff).toISOString(),
      });
      if (fastFailures < policy.degradedAfter) {
        log(`${name} ${how} (${exit}) after ${seconds(ran)}; restarting in ${seconds(backoff)} (failure ${fastFailures} in a row)`);
      } else {
        const tail = fastFailures === policy.degradedAfter ? `:\n${current.tail()}` : '';
        log(
          `${name} is degraded: ${how} (${exit}) after ${seconds(ran)}, failure ${fastFailures} in a row, each within ${seconds(policy.fastFailureMs)} of its start; ` +
            `restarting in ${seconds(backoff)}, and on for as long as it fails (at most ${seconds(policy.maxBackoffMs)} apart) while the others keep serving. See ${current.logFile}${tail}`,
        );
      }
      await Promise.race([sleep(backoff), new Promise<void>((resolve) => (wake = resolve))]);
      wake = null;
      if (stopping) return;
      startedAt = Date.now();
      try {
        current = await options.start();
        cameUp = true;
      } catch (err) {
        exit = `failed to start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
        cameUp = false;
        continue;
      }
      if (stopping) {
        await current.stop();
        return;
      }
      log(`${name} restarted (pid ${current.child.pid})${fastFailures >= policy.degradedAfter ? `; no longer degraded, down for ${seconds(Date.now() - downSince)}` : ''}`);
      report({ state: 'running', pid: current.child.pid!, since: new Date().toISOString() });
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
    const began = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        probe.check(timeoutMs).then(
          () => null,
          (err: unknown) => livenessFailure(err, Date.now() - began, timeoutMs),
        ),
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve(livenessFailure(null, timeoutMs, timeoutMs)), timeoutMs))),
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
