import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Polled<T> {
  data: T | undefined;
  error: Error | undefined;
  reload: () => Promise<void>;
}

/**
 * Loads now and again every `intervalMs` while the tab is visible (updates without a
 * reload); a failed load keeps the last data and shows its error. `key` restarts it.
 */
export function usePoll<T>(load: () => Promise<T>, intervalMs: number, key: unknown[]): Polled<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const loadRef = useRef(load);
  loadRef.current = load;
  // Only the latest load's answer is kept: a slow answer for filters already changed must not
  // overwrite the list for the new ones.
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const loaded = await loadRef.current();
      if (mine !== latest.current) return;
      setData(loaded);
      setError(undefined);
    } catch (err) {
      if (mine === latest.current) setError(err as Error);
    }
  }, []);
  useEffect(() => {
    setData(undefined);
    void reload();
    if (intervalMs <= 0) return;
    const timer = setInterval(() => {
      if (!document.hidden) void reload();
    }, intervalMs);
    return () => clearInterval(timer);
  }, key);
  return { data, error, reload };
}

export interface Action {
  busy: boolean;
  error: Error | undefined;
  run: (action: () => Promise<unknown>) => Promise<void>;
}

/** Runs an action, remembering whether it runs and how it failed. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error>();
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
