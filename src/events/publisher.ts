import type { Db } from 'mongodb';
import { appendDispatchedEvent, appendDispatchedEvents, appendEvent, type EventDoc, type EventInput } from './eventStore';

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
  /**
   * `publish` for many inputs, answering in their order: the events no endpoint receives are
   * stored in one `insertMany`, the others one after another in the inputs' order, as
   * `publish` would, so each endpoint is handed its events in that order. Without it (tests'
   * stubs), `publishEach` publishes them one by one.
   */
  publishAll?(inputs: readonly EventInput[]): Promise<EventDoc[]>;
}

/** Publishes `inputs` in order, through `publishAll` when the publisher has it. */
export async function publishEach(events: EventPublisher, inputs: readonly EventInput[]): Promise<EventDoc[]> {
  if (events.publishAll) return events.publishAll(inputs);
  const published: EventDoc[] = [];
  for (const input of inputs) published.push(await events.publish(input));
  return published;
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

  async function publish(input: EventInput): Promise<EventDoc> {
    const event = (await nobodyReceives(input)) ? await appendDispatchedEvent(db, input, new Date()) : await appendEvent(db, input);
    // Also an earlier attempt's event left undispatched, whichever path found it.
    if (!event.dispatched_at) await dispatcher.dispatch(event);
    return event;
  }

  return {
    publish,
    async publishAll(inputs) {
      const unreceived = await Promise.all(inputs.map(nobodyReceives));
      const quiet = inputs.filter((_, i) => unreceived[i]);
      const stored = await appendDispatchedEvents(db, quiet, new Date());
      const published: EventDoc[] = [];
      let next = 0;
      for (const [i, input] of inputs.entries()) {
        if (!unreceived[i]) {
          published.push(await publish(input));
          continue;
        }
        const event = stored[next++]!;
        // An earlier attempt's event that found receivers and was left undispatched.
        if (!event.dispatched_at) await dispatcher.dispatch(event);
        published.push(event);
      }
      return published;
    },
  };
}
