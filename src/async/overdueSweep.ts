import type { Collection, Filter, WithId } from 'mongodb';
import { periodicPass, type PeriodicPass } from './periodicPass';

/**
 * The sweep of a simulator whose scheduled documents carry `due_at` (the WhatsApp statuses,
 * the voice line): a document overdue by the grace lost its owner (a process that stopped),
 * so the sweep hands it to `takeOver`, which answers whether it took it (false when this
 * process already runs it).
 */
export interface OverdueSweep {
  /** Takes over at most `limit` documents overdue by `graceMs`; how many it took. */
  once(graceMs: number, limit: number): Promise<number>;
  /** Sweeps now and every `intervalMs` with the default grace; a failed sweep goes to `onError` and is tried again next time. */
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function overdueSweep<T extends { due_at: Date }>(options: {
  collection: () => Collection<T>;
  takeOver: (doc: WithId<T>) => boolean;
  graceMs: number;
  clock: () => number;
  onError: (err: unknown) => void;
}): OverdueSweep {
  let pass: PeriodicPass | null = null;
  const once = async (graceMs: number, limit: number): Promise<number> => {
    const late = await options
      .collection()
      .find({ due_at: { $lt: new Date(options.clock() - graceMs) } } as Filter<T>)
      .limit(limit)
      .toArray();
    let taken = 0;
    for (const doc of late) if (options.takeOver(doc)) taken++;
    return taken;
  };
  return {
    once,
    start(intervalMs) {
      pass ??= periodicPass(() => once(options.graceMs, SWEEP_LIMIT), intervalMs, options.onError);
      pass.start();
    },
    async stop() {
      await pass?.stop();
      pass = null;
    },
  };
}

/** How many documents one periodic sweep takes over at the most. */
export const SWEEP_LIMIT = 200;
