import { allHandlersFinished, condition, continueAsNew, patched, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks';
import {
  DRAIN_BATCH,
  INBOX_DELETE_BATCH,
  INBOX_LIMIT,
  INBOX_PATCH,
  deliverSignal,
  deliveryTotalsQuery,
  emptyRetryQueues,
  type DeliveryRef,
  type EndpointDeliveries,
  type EndpointDeliveriesInput,
  type EndpointDeliveryTotals,
  type RetryQueue,
  wakeSignal,
} from '../../src/webhooks/contracts';
import { WEBHOOK_DRAIN } from './activityOptions';
import { continueAsNewDue, continueAsNewIfDue } from '../continueAsNew';

// A local activity: a drain is bounded (WEBHOOK_DRAIN's deadline) and skipping the server's
// activity task round trip keeps the Temporal cost per drain small. A worker that dies
// mid-drain loses its workflow task; the next worker replays it and runs the same drain
// again, which is safe (src/webhooks/drain.ts).
const { drainWebhookDeliveries } = proxyLocalActivities<WebhookActivities>(WEBHOOK_DRAIN);

/** Continue as new well before the history is long: a drain adds about six events, a signal one. */
const HISTORY_LIMIT = 2_000;
/** With nothing pending and nothing arriving for this long the run closes; the next signal starts a new one. */
const IDLE_CLOSE_MS = 15 * 60_000;
/**
 * A run hands over once its history is this close to its limit, after a drain that did not
 * declare it idle: publishers signal only an idle workflow, so none signals one mid-hand-over.
 */
const HANDOVER_MARGIN = 50;
/** DRAIN_BATCH before issue 28: what runs of earlier releases took from their inbox per drain. */
const EARLIER_DRAIN_BATCH = 32;

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
 *
 * Since issue 28 (runs that record INBOX_PATCH) new deliveries are parked in the endpoint's
 * MongoDB inbox by the publishers (src/webhooks/inbox.ts): each drain also takes them from the
 * inbox's head, and the run drains again at once while the inbox had more. Only when a drain
 * found it empty does the run sleep, the inbox state saying so; a publisher that finds it
 * asleep wakes it with `wakeSignal` (a lost wake-up delays, never loses: the event's dispatch
 * is not marked, so the sweeper hands it over again). A run continues as new only after a
 * drain that did not declare it idle, so no publisher signals it mid-hand-over. Runs of
 * earlier releases (no marker in their history) keep the loop below `patched`.
 */
export async function endpointDeliveries(input: EndpointDeliveriesInput): Promise<EndpointDeliveryTotals> {
  const inbox: DeliveryRef[] = [...(input.carried?.inbox ?? [])];
  let queues = input.carried?.queues ?? emptyRetryQueues();
  const totals: EndpointDeliveryTotals = { ...(input.carried?.totals ?? { attempts: 0, succeeded: 0, failed: 0, cancelled: 0 }) };
  // A delivery signalled twice before its drain (a sweeper and its producer) is taken once;
  // later repeats are recognised by the drain from the delivery record.
  const waiting = new Set(inbox.map((ref) => ref.deliveryId));
  setHandler(deliveryTotalsQuery, () => totals);
  let woken = false;
  setHandler(deliverSignal, (refs) => {
    woken = true;
    for (const ref of refs) {
      if (waiting.has(ref.deliveryId)) continue;
      waiting.add(ref.deliveryId);
      inbox.push(ref);
    }
  });
  setHandler(wakeSignal, () => void (woken = true));
  const historyLimit = input.historyLimit ?? HISTORY_LIMIT;

  if (patched(INBOX_PATCH)) {
    let inboxHead = input.carried?.inboxHead ?? null;
    let deletedUpTo = input.carried?.inboxDeletedUpTo ?? inboxHead;
    // Inbox entries may go once the drain that took them is in the history: a head a drain
    // returned is safe once the history has grown past where it stood then (a workflow task
    // completed since, recording the drain). The carried head is safe (continue-as-new
    // recorded it); so is one read from the inbox state by a new run.
    let safeHead = inboxHead;
    const returned: { head: number; historyLength: number }[] = [];
    let inboxEmpty = false;
    for (;;) {
      const dueAt = nextDueAt(queues);
      if (inbox.length === 0 && inboxEmpty && !woken && (dueAt === null || dueAt > Date.now())) {
        const stirred = await condition(() => woken || inbox.length > 0, dueAt === null ? IDLE_CLOSE_MS : dueAt - Date.now());
        if (!stirred && dueAt === null) return totals;
      }
      woken = false;
      const fresh = inbox.splice(0, DRAIN_BATCH);
      const park = inbox.length > INBOX_LIMIT ? inbox.splice(0) : [];
      for (const ref of [...fresh, ...park]) waiting.delete(ref.deliveryId);
      const handingOver = continueAsNewDue({ maxHistoryEvents: historyLimit - Math.min(HANDOVER_MARGIN, Math.floor(historyLimit / 4)) });
      while (returned.length > 0 && returned[0]!.historyLength < workflowInfo().historyLength) safeHead = returned.shift()!.head;
      const deleteFrom = deletedUpTo ?? 0;
      const deleteTo = safeHead === null || deletedUpTo === null ? deleteFrom : Math.max(deleteFrom, Math.min(safeHead, deleteFrom + INBOX_DELETE_BATCH));
      const drained = await drainWebhookDeliveries({
        endpointId: input.endpointId,
        tenantId: input.tenantId,
        fresh,
        park,
        queues,
        now: Date.now(),
        inbox: { head: inboxHead, mayIdle: !handingOver, deleteFrom, deleteTo },
      });
      queues = drained.queues;
      for (const key of ['attempts', 'succeeded', 'failed', 'cancelled'] as const) totals[key] += drained.totals[key];
      if (inboxHead === null) safeHead = drained.inbox!.head;
      else returned.push({ head: drained.inbox!.head, historyLength: workflowInfo().historyLength });
      inboxHead = drained.inbox!.head;
      deletedUpTo = drained.inbox!.deletedUpTo;
      inboxEmpty = drained.inbox!.empty;
      if (handingOver) {
        await condition(allHandlersFinished);
        await continueAsNew<EndpointDeliveries>({
          endpointId: input.endpointId,
          tenantId: input.tenantId,
          historyLimit: input.historyLimit,
          carried: { inbox: [...inbox], queues, totals, inboxHead, inboxDeletedUpTo: deletedUpTo ?? undefined },
        });
      }
    }
  }

  // Runs of earlier releases: new deliveries only by deliverSignal, in batches of the size
  // their recorded drains took (a replay must leave the same deliveries in the inbox).
  for (;;) {
    const dueAt = nextDueAt(queues);
    if (inbox.length === 0 && (dueAt === null || dueAt > Date.now())) {
      const signalled = await condition(() => inbox.length > 0, dueAt === null ? IDLE_CLOSE_MS : dueAt - Date.now());
      if (!signalled && dueAt === null) return totals;
    }
    const fresh = inbox.splice(0, EARLIER_DRAIN_BATCH);
    const park = inbox.length > INBOX_LIMIT ? inbox.splice(0) : [];
    for (const ref of [...fresh, ...park]) waiting.delete(ref.deliveryId);
    const drained = await drainWebhookDeliveries({ endpointId: input.endpointId, tenantId: input.tenantId, fresh, park, queues, now: Date.now() });
    queues = drained.queues;
    for (const key of ['attempts', 'succeeded', 'failed', 'cancelled'] as const) totals[key] += drained.totals[key];
    await continueAsNewIfDue<EndpointDeliveries>(
      () => [{ endpointId: input.endpointId, tenantId: input.tenantId, historyLimit: input.historyLimit, carried: { inbox: [...inbox], queues, totals } }],
      { maxHistoryEvents: historyLimit },
    );
  }
}
