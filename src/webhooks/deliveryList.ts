import type { Db, Filter } from 'mongodb';
import { findByIds } from '../db/findByIds';
import { webhookDeliveries, type DeliveryStatus, type WebhookDeliveryDoc } from './deliveries';
import {
  backfillEndpointEntries,
  deliveryEntries,
  deliveryEntryId,
  deliveryStatusEntries,
  deliveryStatusEntryId,
  endpointEntryRange,
  statusEntryRange,
  type DeliveryEntryDoc,
} from './deliveryEntries';

/**
 * A page of an endpoint's deliveries, newest first (`created_at`, then `_id`); optionally one
 * status or one event's, after a cursor's (created at, `_id`). Walks the endpoint's entries
 * (src/webhooks/deliveryEntries.ts; for one status, that status's) newest first with the event
 * filter on them, then reads their records by `_id`; an entry its record contradicts is skipped
 * and the walk reads on.
 */
export async function endpointDeliveriesPage(
  db: Db,
  tenantId: string,
  endpointId: string,
  query: { status?: DeliveryStatus; eventId?: string; before?: { at: Date; id: string } },
  limit: number,
  now: Date = new Date(),
): Promise<WebhookDeliveryDoc[]> {
  const deliveries = webhookDeliveries(db);
  await backfillEndpointEntries(db, tenantId, endpointId, deliveries, now);
  // One status: its own family of entries (src/webhooks/deliveryEntries.ts), so a rare one is not walked past.
  const status = query.status;
  const entries = status ? deliveryStatusEntries(db) : deliveryEntries(db);
  const range = status ? statusEntryRange(tenantId, endpointId, status) : endpointEntryRange(tenantId, endpointId);
  const keyOf = (at: Date, id: string) => (status ? deliveryStatusEntryId(tenantId, endpointId, status, at, id) : deliveryEntryId(tenantId, endpointId, at, id));
  let below = query.before ? keyOf(query.before.at, query.before.id) : range.$lt;
  const page: WebhookDeliveryDoc[] = [];
  while (page.length < limit) {
    const want = limit - page.length;
    const filter: Filter<DeliveryEntryDoc> = { _id: { $gt: range.$gt, $lt: below } };
    if (query.eventId) filter.event_id = query.eventId;
    const found = await entries.find(filter).sort({ _id: -1 }).limit(want).toArray();
    if (found.length === 0) break;
    const recordOf = new Map((await findByIds(deliveries, found.map((e) => e.delivery_id))).map((d) => [d._id, d] as const));
    for (const entry of found) {
      const d = recordOf.get(entry.delivery_id);
      if (!d || d.tenant_id !== tenantId || d.endpoint_id !== endpointId || d.created_at.getTime() !== entry.created_at.getTime()) continue;
      if ((query.status && d.status !== query.status) || (query.eventId && d.event_id !== query.eventId)) continue;
      page.push(d);
    }
    if (found.length < want) break;
    below = found[found.length - 1]!._id;
  }
  return page;
}
