import { webhookPrivateUrlsAllowed } from '../../../src/config';
import type { DeliveryStarter } from '../../../src/webhooks/endpointActions';
import { CONSOLE_PREFIX, type ConsoleDeps } from '../deps';

/** What the console's webhook route modules share: the path, the not-found sentences, the deps the use cases take. */

export const WEBHOOK_NOT_FOUND = 'Webhook endpoint not found.';
export const DELIVERY_NOT_FOUND = 'Delivery not found.';
export const WEBHOOKS_PATH = `${CONSOLE_PREFIX}/workspaces/{workspace_id}/webhooks`;

export const allowPrivateUrls = (deps: ConsoleDeps): boolean => webhookPrivateUrlsAllowed(deps.config);

export const deliveryStarter = (deps: ConsoleDeps): DeliveryStarter => ({ temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_TASK_QUEUE });
