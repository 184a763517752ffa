/**
 * Items that go out together while a send for their key is already under way: the first
 * item of an idle key goes at once (no added delay when traffic is light); those that come
 * while it is in flight wait and go in the next send, at most `max` a send (one write or one
 * call for many items under a burst). One send per key at a time, in arrival order. Each
 * item's promise settles with its send.
 */
export interface BatchWhileBusy<K, T> {
  add(key: K, item: T): Promise<void>;
}

export function batchWhileBusy<K, T>(max: number, send: (key: K, items: T[]) => Promise<void>): BatchWhileBusy<K, T> {
  interface Batch {
    items: T[];
    waiters: { resolve: () => void; reject: (err: unknown) => void }[];
  }
  const waiting = new Map<K, Batch[]>();
  const inFlight = new Set<K>();

  async function flush(key: K): Promise<void> {
    const queue = waiting.get(key);
    const batch = queue?.shift();
    if (!batch) return;
    if (queue!.length === 0) waiting.delete(key);
    inFlight.add(key);
    try {
      await send(key, batch.items);
      for (const w of batch.waiters) w.resolve();
    } catch (err) {
      for (const w of batch.waiters) w.reject(err);
    } finally {
      inFlight.delete(key);
      void flush(key);
    }
  }

  return {
    add(key, item) {
      return new Promise<void>((resolve, reject) => {
        const queue = waiting.get(key) ?? [];
        waiting.set(key, queue);
        let batch = queue.at(-1);
        if (!batch || batch.items.length >= max) queue.push((batch = { items: [], waiters: [] }));
        batch.items.push(item);
        batch.waiters.push({ resolve, reject });
        if (!inFlight.has(key)) void flush(key);
      });
    },
  };
}
