import type { Db } from 'mongodb';
import { eventsCollection, undispatchedEvents } from './eventStore';
import type { EventDispatcher } from './publisher';
import { periodicPass } from '../async/periodicPass';

/**
 * Finds events a producer stored but never dispatched (it died between the two steps, or
 * Temporal did not answer) and dispatches them, so every stored event reaches its
 * endpoints: at least once overall. It reads the undispatched markers (eventStore.ts), never
 * the events collection as a whole. Runs in each worker process; several sweepers at once
 * are harmless because dispatching is idempotent (the engine refuses a second fan-out).
 */

export interface SweeperOptions {
  db: Db;
  dispatcher: EventDispatcher;
  /** Events younger than this are left to their producer, which is probably still dispatching. */
  graceMs?: number;
  intervalMs?: number;
  /** At most this many events per sweep; the next sweep takes the rest. */
  batchSize?: number;
  now?: () => Date;
  onError?: (err: unknown) => void;
}

export interface EventSweeper {
  /** One pass; the number of events dispatched. */
  sweepOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export const SWEEP_GRACE_MS = 30_000;
export const SWEEP_INTERVAL_MS = 15_000;

export function createEventSweeper({
  db,
  dispatcher,
  graceMs = SWEEP_GRACE_MS,
  intervalMs = SWEEP_INTERVAL_MS,
  batchSize = 200,
  now = () => new Date(),
  onError = () => undefined,
}: SweeperOptions): EventSweeper {
  const events = eventsCollection(db);
  const undispatched = undispatchedEvents(db);

  async function sweepOnce(): Promise<number> {
    const cutoff = new Date(now().getTime() - graceMs);
    // The markers' oldest end, unfiltered: a read FerretDB limits in SQL (src/db/oldestFirst.ts).
    const markers = await undispatched.find({}, { limit: batchSize }).toArray();
    let dispatched = 0;
    for (const marker of markers) {
      if (marker.created_at >= cutoff) continue;
      try {
        const event = await events.findOne({ _id: marker._id });
        if (event && !event.dispatched_at) {
          await dispatcher.dispatch(event);
          dispatched++;
        } else {
          // Dispatched but the marker survived, or the producer died before storing the event.
          await undispatched.deleteOne({ _id: marker._id });
        }
      } catch (err) {
        onError(err);
      }
    }
    return dispatched;
  }

  return { sweepOnce, ...periodicPass(sweepOnce, intervalMs, onError) };
}
