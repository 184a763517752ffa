import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../../src/config';
import { recordPayment } from '../../src/dues/dueActions';
import { duesCollections } from '../../src/dues/store';
import type { EventPublisher } from '../../src/events/publisher';
import { parsePaymentLinkPaid, razorpaySignatureValid } from '../../src/providers/payments/razorpay';
import type { RequestState } from '../context';
import { createAppRouter } from '../routerMethods';
import { PROVIDER_BODY_LIMITS } from './providerBody';
import { readSignedJson } from './signedJson';

export const RAZORPAY_WEBHOOK_PATH = '/webhooks/razorpay';

/**
 * Razorpay's webhook: checks `X-Razorpay-Signature` over the raw bytes with the webhook
 * secret (401 otherwise, nothing applied), then a `payment_link.paid` marks its due (the
 * link's `reference_id`) paid with source `gateway`. Applied once: a retried delivery, or a
 * due already settled by hand, answers 200 and changes nothing. Other events are
 * acknowledged. A failure answers 500 so Razorpay delivers again (every step is safe to repeat).
 */
export function createRazorpayWebhookRouter(deps: {
  config: Pick<Config, 'RAZORPAY_WEBHOOK_SECRET'>;
  db: Db;
  temporal: Client;
  events: EventPublisher;
  now?: () => Date;
}): Router<RequestState> {
  const router = createAppRouter();
  const now = deps.now ?? (() => new Date());
  router.post(RAZORPAY_WEBHOOK_PATH, async (ctx) => {
    const signed = await readSignedJson(
      ctx,
      deps.config.RAZORPAY_WEBHOOK_SECRET,
      (raw, secret) => razorpaySignatureValid(raw, ctx.get('x-razorpay-signature') || undefined, secret),
      PROVIDER_BODY_LIMITS.razorpay,
    );
    if (!signed) return;
    const paid = parsePaymentLinkPaid(signed.payload);
    if (!paid) {
      ctx.body = { status: 'ignored' };
      return;
    }
    const due = await duesCollections(deps.db).dues.findOne({ _id: paid.dueId });
    if (!due || (due.payment_link_id !== null && due.payment_link_id !== paid.linkId)) {
      ctx.body = { status: 'unknown_link' };
      return;
    }
    const at = now();
    const result = await recordPayment(
      { db: deps.db, temporal: deps.temporal, events: deps.events },
      due.tenant_id,
      due._id,
      { expectedVersion: null, amount: paid.amount, reference: paid.paymentId ?? paid.linkId, paidAt: at, source: 'gateway', markedBy: null, markedByName: null },
      at,
    );
    ctx.body = { status: result.kind === 'paid' ? 'applied' : 'unchanged' };
  });
  return router;
}
