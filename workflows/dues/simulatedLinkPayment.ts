import { proxyActivities, sleep } from '@temporalio/workflow';
import type { DuesActivities } from '../../activities/dues';
import type { SimulatedLinkPaymentInput } from '../../src/dues/contracts';
import { DUES_STEP } from './activityOptions';
import { workflowNowIso } from '../time';

const { paySimulatedLink } = proxyActivities<DuesActivities>(DUES_STEP);

/**
 * The simulated gateway's paid notice for one link, `afterMs` after the link was created (the
 * console's payment-link script): what Razorpay's `payment_link.paid` webhook does, recorded
 * with source `gateway`. A due settled meanwhile is left as it is.
 */
export async function simulatedLinkPayment(input: SimulatedLinkPaymentInput): Promise<void> {
  if (input.afterMs > 0) await sleep(input.afterMs);
  await paySimulatedLink({ tenantId: input.tenantId, dueId: input.dueId, linkId: input.linkId, at: workflowNowIso() });
}
