import type { Db } from 'mongodb';
import { batchWhileBusy } from '../async/batchWhileBusy';
import { BULK_WRITE_MAX } from '../db/bulkWrite';
import { appendDispatchedEvent, appendDispatchedEvents, appendEvents, type EventDoc, type EventInput } from './eventStore';

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
   * stored in one `insertMany`, the others marker first in two `insertMany`s (BULK_WRITE_MAX
   * a write), then dispatched one after another in the inputs' order, so each endpoint is
   * handed its events in that order. Without it (tests'
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

  // Events some endpoint receives are stored marker first; those published while such a
  // store is in flight go together in the next (two inserts for many under a burst, none
  // delayed when publishes are apart), since SQLite's one writer serialises single inserts.
  const appends = batchWhileBusy<'events', { input: EventInput; stored?: EventDoc }>(BULK_WRITE_MAX, async (_key, items) => {
    const stored = await appendEvents(db, items.map((item) => item.input));
    for (const [i, item] of items.entries()) item.stored = stored[i];
  });
  async function appendReceived(input: EventInput): Promise<EventDoc> {
    const item: { input: EventInput; stored?: EventDoc } = { input };
    await appends.add('events', item);
    return item.stored!;
  }

  async function publish(input: EventInput): Promise<EventDoc> {
    const event = (await nobodyReceives(input)) ? await appendDispatchedEvent(db, input, new Date()) : await appendReceived(input);
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
      // The received ones marker first, BULK_WRITE_MAX to a write, then dispatched in order.
      const loud = inputs.filter((_, i) => !unreceived[i]);
      const received: EventDoc[] = [];
      for (let at = 0; at < loud.length; at += BULK_WRITE_MAX) received.push(...(await appendEvents(db, loud.slice(at, at + BULK_WRITE_MAX))));
      const published: EventDoc[] = [];
      let nextQuiet = 0;
      let nextLoud = 0;
      for (let i = 0; i < inputs.length; i++) {
        const event = unreceived[i] ? stored[nextQuiet++]! : received[nextLoud++]!;
        // Also an earlier attempt's event left undispatched, whichever path found it.
        if (!event.dispatched_at) await dispatcher.dispatch(event);
        published.push(event);
      }
      return published;
    },
  };
}
