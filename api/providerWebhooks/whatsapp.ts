import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../../src/config';
import type { EventPublisher } from '../../src/events/publisher';
import { ingestCloudWebhook } from '../../src/messaging/cloudIngest';
import type { InboundHooks } from '../../src/messaging/inboundHooks';
import { parsePhoneNumberIds } from '../../src/providers/whatsapp';
import { parseCloudWebhook, signatureValid, verificationChallenge } from '../../src/providers/whatsapp/cloudWebhook';
import type { RequestState } from '../context';
import { createAppRouter } from '../routerMethods';
import { PROVIDER_BODY_LIMITS } from './providerBody';
import { readSignedJson } from './signedJson';

export const WHATSAPP_WEBHOOK_PATH = '/webhooks/whatsapp';

/**
 * The Cloud API's webhook: GET answers the subscription challenge; POST checks
 * `X-Hub-Signature-256` over the raw bytes with the app secret, then applies the inbound
 * messages, statuses and echoes before answering 200 (a failure answers 500, so the
 * provider delivers again; every step is safe to repeat). Outside /api/v1: no key, plain
 * JSON answers.
 */
export function createWhatsAppWebhookRouter(deps: {
  config: Pick<Config, 'WHATSAPP_CLOUD_APP_SECRET' | 'WHATSAPP_CLOUD_VERIFY_TOKEN' | 'WHATSAPP_CLOUD_PHONE_NUMBER_IDS' | 'TEMPORAL_TASK_QUEUE'>;
  db: Db;
  temporal: Client;
  events: EventPublisher;
  inboundHooks: InboundHooks;
  now?: () => Date;
}): Router<RequestState> {
  const router = createAppRouter();
  const now = deps.now ?? (() => new Date());
  const phoneByNumberId = Object.fromEntries(
    Object.entries(parsePhoneNumberIds(deps.config.WHATSAPP_CLOUD_PHONE_NUMBER_IDS)).map(([phone, id]) => [id, phone]),
  );

  router.get(WHATSAPP_WEBHOOK_PATH, (ctx) => {
    const challenge = verificationChallenge(ctx.query, deps.config.WHATSAPP_CLOUD_VERIFY_TOKEN);
    if (challenge === null) {
      ctx.status = 403;
      ctx.body = { status: 'forbidden' };
      return;
    }
    ctx.type = 'text/plain';
    ctx.body = challenge;
  });

  router.post(WHATSAPP_WEBHOOK_PATH, async (ctx) => {
    const signed = await readSignedJson(
      ctx,
      deps.config.WHATSAPP_CLOUD_APP_SECRET,
      (raw, secret) => signatureValid(raw, ctx.get('x-hub-signature-256') || undefined, secret),
      PROVIDER_BODY_LIMITS.whatsapp,
    );
    if (!signed) return;
    const inbound = { db: deps.db, events: deps.events, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_TASK_QUEUE, inboundHooks: deps.inboundHooks };
    const result = await ingestCloudWebhook(inbound, parseCloudWebhook(signed.payload, now()), phoneByNumberId, now());
    ctx.body = { status: 'ok', ...result };
  });
  return router;
}
