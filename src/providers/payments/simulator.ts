import { createHash } from 'node:crypto';
import { belowLinkMinimum, type PaymentLinkProvider, type PaymentLinkRequest, type PaymentLinkResult } from '../../dues';
import type { SimulatorScripting } from './simulatorScript';

/**
 * The default payment-link provider: deterministic (the same due always gets the same link),
 * no network. Its behaviour per workspace comes from the console's script
 * (simulatorScript.ts): never paid (the default), link creation refused, or paid N minutes
 * after creation through the same path as a real gateway's paid webhook. Without scripting
 * (unit tests) every link is created and never paid. The console's `gateway-payment` route
 * pays a simulated link by hand.
 */
export class SimulatedPaymentLinkProvider implements PaymentLinkProvider {
  readonly name = 'simulator' as const;
  readonly cancelled: string[] = [];
  constructor(private readonly scripting: SimulatorScripting | null = null) {}

  async createLink(request: PaymentLinkRequest): Promise<PaymentLinkResult> {
    const refused = belowLinkMinimum(request.amountPaise);
    if (refused) return refused;
    const script = this.scripting ? await this.scripting.scriptFor(request.tenantId) : null;
    if (script?.create === 'fail') return { ok: false, reason: 'refused', message: 'simulated: link creation refused' };
    const id = `plink_sim_${createHash('sha256').update(`${request.tenantId}\u0000${request.dueId}`).digest('hex').slice(0, 14)}`;
    if (script && script.paid_after_minutes !== null) {
      await this.scripting!.payLater({ tenantId: request.tenantId, dueId: request.dueId, linkId: id, afterMs: Math.round(script.paid_after_minutes * 60_000) });
    }
    return { ok: true, id, url: `https://pay.example.com/l/${id}` };
  }

  cancelLink(id: string): Promise<void> {
    this.cancelled.push(id);
    return Promise.resolve();
  }
}
