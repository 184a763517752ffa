import type { Client } from '@temporalio/client';

/**
 * What a unit of work (a call, a send, a delivery, a due) costs Temporal, read from the
 * histories it wrote: history events (the dev server's CPU and storage) and Temporal Cloud's
 * billable actions, estimated from the history as Cloud's own "Billable Actions" column does
 * (docs.temporal.io/cloud/actions): a workflow started (client start, continue-as-new, child),
 * a signal, an update, an activity attempt, the local activities of one workflow task together,
 * a timer, a search-attribute upsert, a marker (patch, side effect). Queries and heartbeats
 * are billed too but leave no event: not counted here.
 */

type HistoryEvent = NonNullable<Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']>[number];

export interface WorkflowCost {
  events: number;
  actions: number;
}

/** The billable actions in one history (see the module comment for what counts). */
export function actionsIn(events: HistoryEvent[]): number {
  let actions = 0;
  const localActivityTasks = new Set<string>();
  for (const e of events) {
    if (e.workflowExecutionStartedEventAttributes || e.startChildWorkflowExecutionInitiatedEventAttributes) actions += 1;
    else if (e.workflowExecutionSignaledEventAttributes || e.signalExternalWorkflowExecutionInitiatedEventAttributes) actions += 1;
    else if (e.workflowExecutionUpdateAcceptedEventAttributes) actions += 1;
    // Each attempt of an activity is an action; the started event carries the attempt it ran.
    else if (e.activityTaskStartedEventAttributes) actions += Math.max(1, e.activityTaskStartedEventAttributes.attempt ?? 1);
    else if (e.timerStartedEventAttributes || e.upsertWorkflowSearchAttributesEventAttributes) actions += 1;
    else if (e.markerRecordedEventAttributes) {
      const marker = e.markerRecordedEventAttributes;
      if (marker.markerName === 'core_local_activity') localActivityTasks.add(String(marker.workflowTaskCompletedEventId ?? e.eventId));
      else actions += 1;
    }
  }
  return actions + localActivityTasks.size;
}

/** Events and actions of one workflow's every run (continue-as-new followed back from the last); null when it has no history. */
export async function workflowCost(client: Client, workflowId: string): Promise<WorkflowCost | null> {
  let runId: string | undefined;
  const cost: WorkflowCost = { events: 0, actions: 0 };
  try {
    for (let runs = 0; runs < 1_000; runs += 1) {
      const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
      cost.events += events.length;
      cost.actions += actionsIn(events);
      runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
      if (!runId) break;
    }
  } catch {
    return cost.events > 0 ? cost : null;
  }
  return cost;
}

/** The summed cost of the given workflows, per unit of work. */
export async function costPerUnit(client: Client, workflowIds: string[], units: number): Promise<{ events: number; actions: number; workflows: number }> {
  let events = 0;
  let actions = 0;
  let workflows = 0;
  for (const id of workflowIds) {
    const cost = await workflowCost(client, id);
    if (!cost) continue;
    events += cost.events;
    actions += cost.actions;
    workflows += 1;
  }
  return { events: events / Math.max(1, units), actions: actions / Math.max(1, units), workflows };
}

/** One line for a bench report: the measured cost per unit beside the physical minimum (bench/targets.ts, TEMPORAL_MINIMUM). */
export function formatUnitCost(unit: string, measured: { events: number; actions: number }, minimum: { events: number; actions: number; why: string }): string {
  return (
    `Temporal per ${unit}: ${measured.events.toFixed(2)} history events, ${measured.actions.toFixed(2)} actions` +
    ` (physical minimum ${minimum.events} events, ${minimum.actions} actions: ${minimum.why})`
  );
}
