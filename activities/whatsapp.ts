import type { Db } from 'mongodb';
import type { EventPublisher } from '../src/events/publisher';
import { applyDeliveryStatus } from '../src/messaging/deliveryStatus';
import type { RecordSimulatedStatusInput } from '../src/messaging/contracts';

export interface WhatsAppActivityDeps {
  db: Db;
  events: EventPublisher;
}

export function createWhatsAppActivities(deps: WhatsAppActivityDeps) {
  return {
    /**
     * Safe to retry: the status only moves forward and the event id derives from the message
     * id and status; the time comes from the workflow.
     */
    async recordSimulatedStatus(input: RecordSimulatedStatusInput): Promise<void> {
      await applyDeliveryStatus(deps, {
        tenantId: input.tenantId,
        messageId: input.messageId,
        status: input.status,
        at: new Date(input.at),
        error: input.failure,
      });
    },
  };
}

export type WhatsAppActivities = ReturnType<typeof createWhatsAppActivities>;
