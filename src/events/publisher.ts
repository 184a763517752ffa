import type { Db } from 'mongodb';
import { appendEvent, type EventDoc, type EventInput } from './eventStore';

/** Starts the delivery of a stored event to the workspace's webhook endpoints. */
export interface EventDispatcher {
  /** Idempotent: dispatching the same event twice delivers it once per endpoint. */
  dispatch(event: EventDoc): Promise<void>;
}

/**
 * What producers (activities, API handlers) use to emit an event: store it once, then hand
 * it to the dispatcher. If the process dies between the two, the event stays undispatched
 * and the dispatcher's sweeper delivers it, so nothing is lost.
 */
export interface EventPublisher {
  publish(input: EventInput): Promise<EventDoc>;
}

export function createEventPublisher(db: Db, dispatcher: EventDispatcher): EventPublisher {
  return {
    async publish(input) {
      const event = await appendEvent(db, input);
      if (!event.dispatched_at) await dispatcher.dispatch(event);
      return event;
    },
  };
}
