import type { Db } from 'mongodb';
import { appendDispatchedEvent, appendEvent, type EventDoc, type EventInput } from './eventStore';

/** Starts the delivery of a stored event to the workspace's webhook endpoints. */
export interface EventDispatcher {
  /** Idempotent: dispatching the same event twice delivers it once per endpoint. */
  dispatch(event: EventDoc): Promise<void>;
  /**
   * Whether any endpoint of the workspace receives the type, as `dispatch` would see it now.
   * A dispatcher without it has every event stored undispatched first, then dispatched.
   */
  hasReceivers?(tenantId: string, type: string): Promise<boolean>;
}

/**
 * What producers (activities, API handlers) use to emit an event: store it once, then hand
 * it to the dispatcher. If the process dies between the two, the event stays undispatched
 * and the dispatcher's sweeper delivers it, so nothing is lost.
 *
 * An event no endpoint receives is stored already dispatched, in one write (no undispatched
 * marker, no dispatch): most events have no receiver, and the marker, the dispatch mark and
 * the marker's deletion were three writes for nothing. The receivers are asked before
 * storing; when that question fails, the event takes the undispatched path, so the sweeper
 * still owns it.
 */
export interface EventPublisher {
  publish(input: EventInput): Promise<EventDoc>;
}

export function createEventPublisher(db: Db, dispatcher: EventDispatcher): EventPublisher {
  async function nobodyReceives(input: EventInput): Promise<boolean> {
    if (!dispatcher.hasReceivers) return false;
    try {
      return !(await dispatcher.hasReceivers(input.tenantId, input.type));
    } catch {
      return false;
    }
  }

  return {
    async publish(input) {
      const event = (await nobodyReceives(input)) ? await appendDispatchedEvent(db, input, new Date()) : await appendEvent(db, input);
      // Also an earlier attempt's event left undispatched, whichever path found it.
      if (!event.dispatched_at) await dispatcher.dispatch(event);
      return event;
    },
  };
}
