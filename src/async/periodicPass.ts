/** A pass a process repeats on an interval (sweeps, retention), started and stopped with the process. */
export interface PeriodicPass {
  /** Runs a pass now and then every interval. Idempotent. */
  start(): void;
  /** Stops the interval and waits for a pass under way. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` now and then every `intervalMs`; a slow pass is never overlapped by the next
 * (that tick is skipped), a failed one goes to `onError` and the next tick tries again. The
 * timer is unreferenced: it never keeps a process alive on its own.
 */
export function periodicPass(pass: () => Promise<unknown>, intervalMs: number, onError: (err: unknown) => void): PeriodicPass {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    running = pass()
      .catch(onError)
      .finally(() => {
        busy = false;
      });
  };
  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
