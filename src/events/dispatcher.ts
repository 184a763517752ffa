import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { eventsCollection, undispatchedEvents, type EventDoc } from './eventStore';
import type { EventDispatcher } from './publisher';
import { startWorkflow } from '../temporal/startWorkflow';
import { dispatchEventDefinition } from '../webhooks/contracts';

/**
 * Starts the event's fan-out workflow (the engine refuses a second start of the same event
 * id, so a repeat is harmless), then marks the event dispatched and drops its marker. REJECT_DUPLICATE refuses
 * the id even after that run has closed: a producer that died after the start but before
 * marking, swept later, must not fan the event out (and deliver it) a second time.
 */
export function createTemporalDispatcher(db: Db, temporal: Client, taskQueue: string): EventDispatcher {
  return {
    async dispatch(event: EventDoc) {
      try {
        await startWorkflow(temporal, dispatchEventDefinition, {
          workflowId: event._id,
          taskQueue,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ eventId: event._id, tenantId: event.tenant_id }],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      // Filter on `_id` alone: FerretDB on SQLite answers only that from an index, and any
      // other condition scans the whole collection. A second dispatch just moves the time.
      await eventsCollection(db).updateOne({ _id: event._id }, { $set: { dispatched_at: new Date() } });
      await undispatchedEvents(db).deleteOne({ _id: event._id });
    },
  };
}
