import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { batchWhileBusy } from '../async/batchWhileBusy';
import { ID_IN_MAX } from '../db/findByIds';
import { eventsCollection, undispatchedEvents, type EventDoc } from '../events/eventStore';
import type { EventDispatcher } from '../events/publisher';
import { deliveryWorkflowId } from './contracts';
import { createDeliverySignaller } from './deliverySignals';
import { createEndpointDirectory, type EndpointDirectory } from './endpointDirectory';

/**
 * Hands a stored event to each enabled endpoint of its workspace that receives its type: a
 * signal to that endpoint's delivery workflow (signal-with-start; src/webhooks/
 * deliverySignals.ts), then marks the event dispatched and drops its undispatched marker. An
 * event no endpoint receives costs no Temporal call, and usually no dispatch at all: the
 * publisher asks `hasReceivers` (the same cached directory) before storing and stores such
 * an event already dispatched. Dispatching twice (the sweeper, reading the markers, after a
 * producer that died before marking) signals again; the endpoint's workflow and its drain
 * recognise the delivery (src/webhooks/drain.ts), so nothing is delivered twice.
 */
export function createTemporalDispatcher(
  db: Db,
  temporal: Client,
  taskQueue: string,
  options: { endpoints?: EndpointDirectory } = {},
): EventDispatcher {
  const endpoints = options.endpoints ?? createEndpointDirectory(db);
  const signals = createDeliverySignaller(db, temporal, taskQueue);
  const marks = dispatchMarks(db);
  return {
    async hasReceivers(tenantId, type) {
      return (await endpoints.receivers(tenantId, type)).length > 0;
    },
    async dispatch(event: EventDoc) {
      const receivers = await endpoints.receivers(event.tenant_id, event.type);
      await Promise.all(
        receivers.map((endpointId) =>
          signals.deliver(event.tenant_id, endpointId, { deliveryId: deliveryWorkflowId(event._id, endpointId), eventId: event._id, trigger: 'event' }),
        ),
      );
      await marks.mark(event._id);
    },
  };
}

/**
 * Marks events dispatched and drops their markers. While one mark is in flight, the events
 * dispatched meanwhile wait and are marked together: one `updateMany` and one `deleteMany`
 * for many events under a burst (two writes per event before), none delayed when traffic is
 * light. Filters are `_id $in` alone (ID_IN_MAX at most), which FerretDB answers from its
 * `_id` index; anything else would scan the collection. A second dispatch just moves the time.
 */
function dispatchMarks(db: Db) {
  const batches = batchWhileBusy<'events', string>(ID_IN_MAX, async (_key, ids) => {
    const filter = { _id: { $in: ids } };
    await eventsCollection(db).updateMany(filter, { $set: { dispatched_at: new Date() } });
    await undispatchedEvents(db).deleteMany(filter);
  });
  return { mark: (eventId: string) => batches.add('events', eventId) };
}
