import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { conversationIdFor } from '../src/conversations/store';
import { eventsCollection } from '../src/events/eventStore';
import { simulatedCalleeWorkflowId } from '../src/calls/contracts';
import { distribution, type Distribution } from './benchStats';
import { actionsIn } from './workflowCost';

/**
 * What one call costs the engine: the history of its own workflow, of its simulated callee,
 * and of the fan-out workflow of each event it emitted (the event id is that workflow's id),
 * with the activities, local activities, timers, signals and updates in them.
 */

export interface WorkflowFootprint {
  workflowId: string;
  type: string;
  events: number;
  /** Temporal Cloud's billable actions in the history (bench/workflowCost.ts). */
  actions: number;
  activities: number;
  localActivities: number;
  timers: number;
  signals: number;
  updates: number;
}

export interface CallFootprint {
  callId: string;
  call: WorkflowFootprint;
  callee: WorkflowFootprint | null;
  dispatches: WorkflowFootprint[];
}

async function footprint(client: Client, workflowId: string): Promise<WorkflowFootprint | null> {
  let history;
  try {
    history = await client.workflow.getHandle(workflowId).fetchHistory();
  } catch {
    return null;
  }
  const events = history.events ?? [];
  const count = (has: (e: (typeof events)[number]) => unknown) => events.filter((e) => has(e)).length;
  return {
    workflowId,
    type: events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '?',
    events: events.length,
    actions: actionsIn(events),
    activities: count((e) => e.activityTaskScheduledEventAttributes),
    localActivities: count((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
    timers: count((e) => e.timerStartedEventAttributes),
    signals: count((e) => e.workflowExecutionSignaledEventAttributes),
    updates: count((e) => e.workflowExecutionUpdateAcceptedEventAttributes),
  };
}

/** Footprints of the given calls; one scan of the event store finds each call's events. */
export async function callFootprints(client: Client, db: Db, calls: { callId: string; tenantId: string }[]): Promise<CallFootprint[]> {
  const wanted = new Map<string, string>();
  for (const c of calls) {
    wanted.set(c.callId, c.callId);
    wanted.set(conversationIdFor(c.tenantId, 'voice', c.callId), c.callId);
  }
  const eventIds = new Map<string, string[]>();
  const cursor = eventsCollection(db).find({}, { projection: { _id: 1, 'data.call_id': 1, 'data.conversation_id': 1 } });
  for await (const e of cursor) {
    const data = (e.data ?? {}) as { call_id?: string; conversation_id?: string };
    const owner = wanted.get(data.call_id ?? '') ?? wanted.get(data.conversation_id ?? '');
    if (owner) eventIds.set(owner, [...(eventIds.get(owner) ?? []), e._id]);
  }
  const out: CallFootprint[] = [];
  for (const c of calls) {
    const call = await footprint(client, c.callId);
    if (!call) continue;
    const dispatches: WorkflowFootprint[] = [];
    for (const id of eventIds.get(c.callId) ?? []) {
      const f = await footprint(client, id);
      if (f) dispatches.push(f);
    }
    out.push({ callId: c.callId, call, callee: await footprint(client, simulatedCalleeWorkflowId(c.callId)), dispatches });
  }
  return out;
}

export interface FootprintSummary {
  sampled: number;
  callHistoryEvents: Distribution;
  calleeHistoryEvents: Distribution;
  dispatchHistoryEvents: Distribution;
  /** All workflows of one call: call + callee + fan-outs. */
  workflowsPerCall: Distribution;
  /** Activity tasks scheduled through the server (call + callee + fan-outs). */
  activitiesPerCall: Distribution;
  localActivitiesPerCall: Distribution;
  historyEventsPerCall: Distribution;
  /** Billable actions of all workflows of one call. */
  actionsPerCall: Distribution;
  /** The call workflow's own activity tasks, by count, e.g. {7: 20}. */
  callActivities: Record<string, number>;
}

export function summariseFootprints(footprints: CallFootprint[]): FootprintSummary {
  const all = (f: CallFootprint) => [f.call, ...(f.callee ? [f.callee] : []), ...f.dispatches];
  const sum = (f: CallFootprint, pick: (w: WorkflowFootprint) => number) => all(f).reduce((n, w) => n + pick(w), 0);
  const callActivities: Record<string, number> = {};
  for (const f of footprints) callActivities[f.call.activities] = (callActivities[f.call.activities] ?? 0) + 1;
  return {
    sampled: footprints.length,
    callHistoryEvents: distribution(footprints.map((f) => f.call.events)),
    calleeHistoryEvents: distribution(footprints.flatMap((f) => (f.callee ? [f.callee.events] : []))),
    dispatchHistoryEvents: distribution(footprints.flatMap((f) => f.dispatches.map((d) => d.events))),
    workflowsPerCall: distribution(footprints.map((f) => all(f).length)),
    activitiesPerCall: distribution(footprints.map((f) => sum(f, (w) => w.activities))),
    localActivitiesPerCall: distribution(footprints.map((f) => sum(f, (w) => w.localActivities))),
    historyEventsPerCall: distribution(footprints.map((f) => sum(f, (w) => w.events))),
    actionsPerCall: distribution(footprints.map((f) => sum(f, (w) => w.actions))),
    callActivities,
  };
}

/** Workflows of each type the engine holds, from its visibility store. */
/** Workflows of each type in the namespace; with `since`, only those started from then (a cluster's namespace holds other runs' too). */
export async function workflowCounts(client: Client, types: string[], since?: Date): Promise<Record<string, number | null>> {
  const counts: Record<string, number | null> = {};
  for (const type of types) {
    try {
      counts[type] = (await client.workflow.count(`WorkflowType = "${type}"${since ? ` AND StartTime >= "${since.toISOString()}"` : ''}`)).count;
    } catch {
      counts[type] = null;
    }
  }
  return counts;
}

/** The last events of a call's workflow, to say where a call that is still pending waits. */
export async function lastEvents(client: Client, workflowId: string, count = 8): Promise<string[]> {
  let history;
  try {
    history = await client.workflow.getHandle(workflowId).fetchHistory();
  } catch (err) {
    return [`(no history: ${err instanceof Error ? err.message : String(err)})`];
  }
  const events = history.events ?? [];
  const t0 = Number(events[0]?.eventTime?.seconds ?? 0) * 1000 + Math.round((events[0]?.eventTime?.nanos ?? 0) / 1e6);
  return events.slice(-count).map((e) => {
    const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6) - t0;
    const name = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]) ?? '?';
    const attrs = (e as Record<string, any>)[name];
    const detail = attrs?.activityType?.name ?? attrs?.failure?.message ?? attrs?.lastFailure?.message ?? '';
    return `+${at} ms ${name.replace('EventAttributes', '')} ${detail}`.trim();
  });
}
