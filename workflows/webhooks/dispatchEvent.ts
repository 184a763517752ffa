import { ParentClosePolicy, proxyLocalActivities, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { WebhookActivities } from '../../activities/webhooks';
import { deliverWebhookDefinition, deliveryWorkflowId, type DeliverWebhook, type DispatchEventInput, type DispatchEventResult } from '../../src/webhooks/contracts';
import { WEBHOOK_TARGETS } from './activityOptions';

// Retried until MongoDB answers (bounded, see WEBHOOK_TARGETS); the event is already stored.
const { listWebhookTargets } = proxyLocalActivities<WebhookActivities>(WEBHOOK_TARGETS);

/**
 * Fans one stored event out to the workspace's endpoints that receive its type: one
 * delivery workflow each, abandoned on close so deliveries (which retry for a day or more)
 * outlive this short workflow. Its id is the event id.
 */
export async function dispatchEvent(input: DispatchEventInput): Promise<DispatchEventResult> {
  const { endpointIds } = await listWebhookTargets(input);
  await Promise.all(
    endpointIds.map(async (endpointId) => {
      const deliveryId = deliveryWorkflowId(input.eventId, endpointId);
      try {
        await startChild<DeliverWebhook>(deliverWebhookDefinition.name, {
          workflowId: deliveryId,
          args: [{ deliveryId, tenantId: input.tenantId, eventId: input.eventId, endpointId, trigger: 'event' }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (err) {
        // Delivered or delivering already: this fan-out ran before.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    }),
  );
  return { endpointIds };
}
