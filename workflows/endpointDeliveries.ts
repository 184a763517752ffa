import { condition, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import {
  DRAIN_BATCH,
  INBOX_LIMIT,
  deliverSignal,
  deliveryTotalsQuery,
  emptyRetryQueues,
  type DeliveryRef,
  type EndpointDeliveries,
  type EndpointDeliveriesInput,
  type EndpointDeliveryTotals,
  type RetryQueue,
} from '../src/webhooks/contracts';
import { WEBHOOK_DRAIN } from './activityOptions';
import { continueAsNewIfDue } from './continueAsNew';

// A local activity: a drain is bounded (WEBHOOK_DRAIN's deadline) and skipping the server's
// activity task round trip keeps the Temporal cost per drain small. A worker that dies
// mid-drain loses its workflow task; the next worker replays it and runs the same drain
// again, which is safe (src/webhooks/drain.ts).
const { drainWebhookDeliveries } = proxyLocalActivities<WebhookActivities>(WEBHOOK_DRAIN);

/** Continue as new well before the history is long: a drain adds about six events, a signal one. */
const HISTORY_LIMIT = 2_000;
/** With nothing pending and nothing arriving for this long the run closes; the next signal starts a new one. */
const IDLE_CLOSE_MS = 15 * 60_000;

function nextDueAt(queues: RetryQueue[]): number | null {
  let due: number | null = null;
  for (const q of queues) if (q.headDueAt !== null && (due === null || q.headDueAt < due)) due = q.headDueAt;
  return due;
}

/**
 * Every delivery to one endpoint, in one long-lived workflow (id `webhooks:<endpoint id>`):
 * publishers hand it deliveries by `deliverSignal` (signal-with-start), it drains them in
 * batches with bounded parallel POSTs, and owns each delivery's retry schedule through the
 * endpoint's queues in MongoDB, waking at the earliest next-attempt time. What it carries is
 * small: the inbox (at most INBOX_LIMIT deliveries; the rest are parked in MongoDB) and each
 * queue's head, tail and head due time. It continues as new past HISTORY_LIMIT
 * events, carrying that state, and closes when idle with nothing pending.
 */
export async function endpointDeliveries(input: EndpointDeliveriesInput): Promise<EndpointDeliveryTotals> {
  const inbox: DeliveryRef[] = [...(input.carried?.inbox ?? [])];
  let queues = input.carried?.queues ?? emptyRetryQueues();
  const totals: EndpointDeliveryTotals = { ...(input.carried?.totals ?? { attempts: 0, succeeded: 0, failed: 0, cancelled: 0 }) };
  // A delivery signalled twice before its drain (a sweeper and its producer) is taken once;
  // later repeats are recognised by the drain from the delivery record.
  const waiting = new Set(inbox.map((ref) => ref.deliveryId));
  setHandler(deliveryTotalsQuery, () => totals);
  setHandler(deliverSignal, (refs) => {
    for (const ref of refs) {
      if (waiting.has(ref.deliveryId)) continue;
      waiting.add(ref.deliveryId);
      inbox.push(ref);
    }
  });

  for (;;) {
    const dueAt = nextDueAt(queues);
    if (inbox.length === 0 && (dueAt === null || dueAt > Date.now())) {
      const woken = await condition(() => inbox.length > 0, dueAt === null ? IDLE_CLOSE_MS : dueAt - Date.now());
      if (!woken && dueAt === null) return totals;
    }
    const fresh = inbox.splice(0, DRAIN_BATCH);
    const park = inbox.length > INBOX_LIMIT ? inbox.splice(0) : [];
    for (const ref of [...fresh, ...park]) waiting.delete(ref.deliveryId);
    const drained = await drainWebhookDeliveries({ endpointId: input.endpointId, tenantId: input.tenantId, fresh, park, queues, now: Date.now() });
    queues = drained.queues;
    for (const key of ['attempts', 'succeeded', 'failed', 'cancelled'] as const) totals[key] += drained.totals[key];
    await continueAsNewIfDue<EndpointDeliveries>(
      () => [{ endpointId: input.endpointId, tenantId: input.tenantId, historyLimit: input.historyLimit, carried: { inbox: [...inbox], queues, totals } }],
      { maxHistoryEvents: input.historyLimit ?? HISTORY_LIMIT },
    );
  }
}
