import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { eventsCollection, type EventDoc } from './eventStore';
import type { EventDispatcher } from './publisher';

/** The workflow that fans one stored event out to its endpoints; its id is the event id. */
export const DISPATCH_EVENT_WORKFLOW = 'dispatchEvent';

/**
 * Starts the event's fan-out workflow (the engine refuses a second start of the same event
 * id, so a repeat is harmless), then marks the event dispatched.
 */
export function createTemporalDispatcher(db: Db, temporal: Client, taskQueue: string): EventDispatcher {
  return {
    async dispatch(event: EventDoc) {
      try {
        await temporal.workflow.start(DISPATCH_EVENT_WORKFLOW, {
          workflowId: event._id,
          taskQueue,
          args: [{ eventId: event._id, tenantId: event.tenant_id }],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
      await eventsCollection(db).updateOne({ _id: event._id, dispatched_at: null }, { $set: { dispatched_at: new Date() } });
    },
  };
}
