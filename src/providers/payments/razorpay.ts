import { createHmac, timingSafeEqual } from 'node:crypto';
import { fromPaise } from '../../dues/money';
import { belowLinkMinimum, type PaymentLinkProvider, type PaymentLinkRequest, type PaymentLinkResult } from '../../dues';

/**
 * Razorpay Payment Links: `POST /v1/payment_links` (amount in paise, `reference_id` = the due
 * id, so the paid webhook names the due) and `POST /v1/payment_links/{id}/cancel`, with HTTP
 * basic auth (key id and secret). The `payment_link.paid` webhook is signed with the webhook
 * secret: `X-Razorpay-Signature` is the hex HMAC-SHA256 of the raw body.
 */
export interface RazorpaySettings {
  baseUrl: string;
  keyId: string;
  keySecret: string;
  timeoutMs: number;
}

export class RazorpayPaymentLinkProvider implements PaymentLinkProvider {
  readonly name = 'razorpay' as const;
  constructor(private readonly settings: RazorpaySettings) {}

  private async post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const auth = Buffer.from(`${this.settings.keyId}:${this.settings.keySecret}`).toString('base64');
    const res = await fetch(`${this.settings.baseUrl.replace(/\/$/, '')}${path}`, {
      method: 'POST',
      headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.settings.timeoutMs),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      json = {};
    }
    return { status: res.status, json };
  }

  async createLink(request: PaymentLinkRequest): Promise<PaymentLinkResult> {
    const refused = belowLinkMinimum(request.amountPaise);
    if (refused) return refused;
    const { status, json } = await this.post('/v1/payment_links', {
      amount: request.amountPaise,
      currency: 'INR',
      reference_id: request.dueId,
      description: request.description,
      customer: { name: request.customer.name, contact: request.customer.phone, ...(request.customer.email ? { email: request.customer.email } : {}) },
      // The app's own chase sends the reminders; Razorpay's would be a second voice.
      notify: { sms: false, email: false },
      reminder_enable: false,
      notes: { tenant_id: request.tenantId, due_id: request.dueId },
    });
    if (status >= 200 && status < 300 && typeof json.id === 'string' && typeof json.short_url === 'string') return { ok: true, id: json.id, url: json.short_url };
    const error = json.error as { description?: string } | undefined;
    if (status >= 500) throw new Error(`Razorpay answered ${status}: ${error?.description ?? 'no description'}`);
    return { ok: false, reason: 'refused', message: error?.description ?? `Razorpay answered ${status}` };
  }

  async cancelLink(id: string): Promise<void> {
    // Best effort: a 4xx (already paid, cancelled or expired) is the answer, not a failure.
    const { status } = await this.post(`/v1/payment_links/${encodeURIComponent(id)}/cancel`, {});
    if (status >= 500) throw new Error(`Razorpay answered ${status} to a cancel`);
  }
}

/** Whether `signature` is the hex HMAC-SHA256 of the raw body under the webhook secret. */
export function razorpaySignatureValid(raw: Buffer, signature: string | undefined, secret: string): boolean {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

export interface PaymentLinkPaid {
  linkId: string;
  /** The due id given as `reference_id` at creation. */
  dueId: string;
  paymentId: string | null;
  /** Rupees. */
  amount: number | null;
}

/** The paid notice in a `payment_link.paid` event; null for any other event or shape. */
export function parsePaymentLinkPaid(payload: unknown): PaymentLinkPaid | null {
  const event = payload as { event?: unknown; payload?: { payment_link?: { entity?: Record<string, unknown> }; payment?: { entity?: Record<string, unknown> } } };
  if (event?.event !== 'payment_link.paid') return null;
  const link = event.payload?.payment_link?.entity;
  const payment = event.payload?.payment?.entity;
  if (!link || typeof link.id !== 'string' || typeof link.reference_id !== 'string') return null;
  const paise = typeof payment?.amount === 'number' ? payment.amount : typeof link.amount_paid === 'number' ? link.amount_paid : null;
  return { linkId: link.id, dueId: link.reference_id, paymentId: typeof payment?.id === 'string' ? payment.id : null, amount: paise === null ? null : fromPaise(paise) };
}
