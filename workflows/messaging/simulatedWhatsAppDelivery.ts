import { proxyActivities, sleep } from '@temporalio/workflow';
import type { WhatsAppActivities } from '../../activities/whatsapp';
import type { SimulatedDeliveryInput } from '../../src/messaging/contracts';
import { SIMULATED_STATUS } from './activityOptions';
import { workflowNowIso } from '../time';

const { recordSimulatedStatus } = proxyActivities<WhatsAppActivities>(SIMULATED_STATUS);

/**
 * The simulator's delivery reports for one accepted message: each scripted status after its
 * pause, as the real provider's status webhooks would arrive, recorded by an activity that
 * emits `message.status`.
 */
export async function simulatedWhatsAppDelivery(input: SimulatedDeliveryInput): Promise<void> {
  for (const step of input.steps) {
    if (step.afterMs > 0) await sleep(step.afterMs);
    await recordSimulatedStatus({
      tenantId: input.tenantId,
      messageId: input.messageId,
      status: step.status,
      at: workflowNowIso(),
      failure: step.status === 'failed' ? input.failure : null,
    });
  }
}
