import { Context } from '@temporalio/activity';
import type { Db } from 'mongodb';
import { drainEndpoint } from '../src/webhooks/drain';
import { perEventDelivery } from '../src/webhooks/perEventDelivery';
import type { AttemptInput, AttemptResult, DispatchEventInput, DispatchEventResult, DrainInput, DrainResult } from '../src/webhooks/contracts';

export interface WebhookDeliverySettings {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: deliver to loopback and private addresses (local development, tests). */
  allowPrivateUrls: boolean;
}

export interface WebhookActivityDeps {
  db: Db;
  /** Absent means the production rule: public addresses only. */
  webhooks?: WebhookDeliverySettings;
  now?: () => Date;
}

function activitySignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined; // called outside a worker (a test calling the function directly)
  }
}

export function createWebhookActivities({ db, webhooks, now = () => new Date() }: WebhookActivityDeps) {
  const allowPrivate = webhooks?.allowPrivateUrls ?? false;
  const perEvent = () => perEventDelivery({ db, allowPrivate, now, signal: activitySignal() });

  return {
    /**
     * One drain of an endpoint's deliveries (a local activity of the endpoint workflow; see
     * src/webhooks/drain.ts). Its schedule clock starts at the workflow's time and runs on
     * with the wall clock, never behind it.
     */
    async drainWebhookDeliveries(input: DrainInput): Promise<DrainResult> {
      const started = performance.now();
      const clock = () => Math.max(input.now + (performance.now() - started), now().getTime());
      return drainEndpoint({ db, allowPrivate, clock, now, signal: activitySignal() }, input);
    },

    /** Before issue 13 (dispatchEvent): the endpoints that receive the event (src/webhooks/perEventDelivery.ts). */
    listWebhookTargets: (input: DispatchEventInput): Promise<DispatchEventResult> => perEvent().listTargets(input),

    /** Before issue 13 (deliverWebhook): one attempt, recorded once (src/webhooks/perEventDelivery.ts). Not retried by the SDK. */
    attemptWebhookDelivery: (input: AttemptInput): Promise<AttemptResult> => perEvent().attempt(input),

    /** Before issue 13 (deliverWebhook): an attempt whose activity never reported (src/webhooks/perEventDelivery.ts). */
    recordLostWebhookAttempt: (input: AttemptInput & { error: string }): Promise<AttemptResult> => perEvent().recordLostAttempt(input),
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
