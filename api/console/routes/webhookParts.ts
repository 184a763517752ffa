import { webhookPrivateUrlsAllowed } from '../../../src/config';
import type { DeliveryStarter } from '../../../src/webhooks/endpointActions';
import { workspaceGroup, type ConsoleDeps } from '../deps';

/** What the console's webhook route modules share: the endpoint's path parameter, the not-found sentences, the deps the use cases take. */

export const WEBHOOK_NOT_FOUND = 'Webhook endpoint not found.';
export const DELIVERY_NOT_FOUND = 'Delivery not found.';

/** The routes of one endpoint, `webhooks/{webhook_id}…`: the endpoint of the workspace, or 404 (also when the id cannot name one). */
export const webhook = workspaceGroup().record('webhook_id', WEBHOOK_NOT_FOUND);

export const allowPrivateUrls = (deps: ConsoleDeps): boolean => webhookPrivateUrlsAllowed(deps.config);

export const deliveryStarter = (deps: ConsoleDeps): DeliveryStarter => ({ temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_TASK_QUEUE });
