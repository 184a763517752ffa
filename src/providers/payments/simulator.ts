import { createHash } from 'node:crypto';
import type { PaymentLinkProvider, PaymentLinkRequest, PaymentLinkResult } from './provider';

/**
 * The default payment-link provider: deterministic (the same due always gets the same link),
 * no network. `failCreate` scripts a provider that cannot create links; paying a simulated link
 * is the console's `gateway-payment` route (what a real gateway's paid webhook does).
 */
export class SimulatedPaymentLinkProvider implements PaymentLinkProvider {
  readonly name = 'simulator' as const;
  readonly cancelled: string[] = [];
  constructor(private readonly script: { failCreate?: boolean } = {}) {}

  createLink(request: PaymentLinkRequest): Promise<PaymentLinkResult> {
    if (this.script.failCreate) return Promise.resolve({ ok: false, message: 'simulated: link creation refused' });
    const id = `plink_sim_${createHash('sha256').update(`${request.tenantId}\u0000${request.dueId}`).digest('hex').slice(0, 14)}`;
    return Promise.resolve({ ok: true, id, url: `https://pay.example.com/l/${id}` });
  }

  cancelLink(id: string): Promise<void> {
    this.cancelled.push(id);
    return Promise.resolve();
  }
}
