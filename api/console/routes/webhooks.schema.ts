import { z } from 'zod';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../src/events/types';
import { pageQuery } from '../../pagination';

/** Request shapes of the console's webhook routes (validated by the route definition, described in its OpenAPI document); the answers' shapes are api/console/webhookViews.ts. */

export const webhookUrl = z
  .string()
  .trim()
  .max(2048)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected an http or https URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'expected an http or https URL' });
    else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'credentials in the URL are not supported; verify the signature instead' });
  });

/** Ticked types, each once, in the list's order; `[]` (the default) means every type. */
const eventTypes = z
  .array(z.enum(SUBSCRIBABLE_EVENT_TYPES))
  .max(SUBSCRIBABLE_EVENT_TYPES.length)
  .transform((types) => SUBSCRIBABLE_EVENT_TYPES.filter((t) => types.includes(t)));

export const createWebhookBody = z.object({
  url: webhookUrl,
  event_types: eventTypes.default([]),
  enabled: z.boolean().default(true),
  description: z.string().trim().max(500).nullable().default(null),
});

export const updateWebhookBody = z
  .object({ url: webhookUrl, event_types: eventTypes, enabled: z.boolean(), description: z.string().trim().max(500).nullable() })
  .partial()
  .strict();

export const replayBody = z.object({ event_id: z.string().min(1).max(64) });

export const deliveriesQuery = pageQuery(200, 50).extend({
  status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']).optional(),
  event_id: z.string().min(1).max(64).optional(),
});
