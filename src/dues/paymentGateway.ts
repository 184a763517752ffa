/**
 * A payment-link provider (the dues app's gateway collection mode): create a link for a due,
 * cancel it. Two implementations: the deterministic simulator (the default) and Razorpay
 * Payment Links (razorpay.ts). A paid link reaches the app through the provider's signed
 * webhook (api/providerWebhooks/razorpay.ts), which records the payment with source `gateway`.
 */
/**
 * The least a payment link may ask: Razorpay's documented minimum for a payment link, 100
 * paise (Rs 1). The simulator refuses below it too, so tests see what the gateway would do.
 */
export const PAYMENT_LINK_MIN_PAISE = 100;

export interface PaymentLinkRequest {
  tenantId: string;
  dueId: string;
  /** Whole paise (src/dues/money.ts), as the gateway takes it. */
  amountPaise: number;
  description: string;
  customer: { name: string; phone: string; email: string | null };
}

export type PaymentLinkResult =
  | { ok: true; id: string; url: string }
  /** `below_minimum`: refused before asking the gateway (PAYMENT_LINK_MIN_PAISE); `refused`: the gateway said no. */
  | { ok: false; reason: 'below_minimum' | 'refused'; message: string };

/** The refusal every provider gives, without a call, for an amount a link cannot ask; null when it can. */
export function belowLinkMinimum(amountPaise: number): PaymentLinkResult | null {
  if (Number.isSafeInteger(amountPaise) && amountPaise >= PAYMENT_LINK_MIN_PAISE) return null;
  return { ok: false, reason: 'below_minimum', message: `A payment link must ask at least ${PAYMENT_LINK_MIN_PAISE} paise (Rs ${PAYMENT_LINK_MIN_PAISE / 100}); this one would ask ${amountPaise}.` };
}

export interface PaymentLinkProvider {
  readonly name: 'simulator' | 'razorpay';
  /** Idempotent per due: the provider is told the due id as its reference. */
  createLink(request: PaymentLinkRequest): Promise<PaymentLinkResult>;
  /** Best effort: a link already paid, cancelled or expired is not an error. */
  cancelLink(id: string): Promise<void>;
}
