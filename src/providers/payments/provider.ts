/**
 * A payment-link provider (the dues app's gateway collection mode): create a link for a due,
 * cancel it. Two implementations: the deterministic simulator (the default) and Razorpay
 * Payment Links (razorpay.ts). A paid link reaches the app through the provider's signed
 * webhook (api/providerWebhooks/razorpay.ts), which records the payment with source `gateway`.
 */
export interface PaymentLinkRequest {
  tenantId: string;
  dueId: string;
  /** Rupees. */
  amount: number;
  description: string;
  customer: { name: string; phone: string; email: string | null };
}

export type PaymentLinkResult = { ok: true; id: string; url: string } | { ok: false; message: string };

export interface PaymentLinkProvider {
  readonly name: 'simulator' | 'razorpay';
  /** Idempotent per due: the provider is told the due id as its reference. */
  createLink(request: PaymentLinkRequest): Promise<PaymentLinkResult>;
  /** Best effort: a link already paid, cancelled or expired is not an error. */
  cancelLink(id: string): Promise<void>;
}
