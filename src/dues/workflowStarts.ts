import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { visibilityOptions } from '../temporal/searchAttributes';
import { startWorkflow } from '../temporal/startWorkflow';
import { zonedHourStart } from '../domain/sendWindow';
import { dueChaseDefinition, dueChaseWorkflowId, duesCycleDefinition, duesCycleWorkflowId, RAISE_AHEAD_CYCLES } from './contracts';
import { addDays, dueDateOf, parseDate, type Plan } from './cycle';

export interface WorkflowStarter {
  temporal: Client;
  taskQueue: string;
}

/**
 * Starts a workflow once per id: a retried raise (or create) finds the one already started,
 * running or finished, and starts nothing (`REJECT_DUPLICATE`).
 */
async function startOnce(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** `subscriberName` names the run in the Temporal UI (`ResourceName`, its memo and summary). */
export function startChase(deps: WorkflowStarter, tenantId: string, dueId: string, subscriberName: string): Promise<void> {
  return startOnce(() =>
    startWorkflow(deps.temporal, dueChaseDefinition, {
      workflowId: dueChaseWorkflowId(dueId),
      taskQueue: deps.taskQueue,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ tenantId, dueId }],
      ...visibilityOptions({ workspaceId: tenantId, kind: 'due', id: dueId, name: subscriberName, summary: `Chasing a due of ${subscriberName}` }),
    }),
  );
}

/**
 * When cycle `index` is raised: 00:00 in the zone on the day after the due date
 * `RAISE_AHEAD_CYCLES` cycles before it, that is once that due has passed. So the dues falling
 * today or later are always two, as a create raises them: a subscriber starting today has
 * today's due and the next, and the third is raised tomorrow, not seconds after the create (it
 * was raised on due 0's own date, which for a start today was at once: three dues, and an
 * outstanding total that grew under the operator's eyes; docs/decisions/dues.md).
 */
export function raiseAtMs(plan: Plan, index: number, timeZone: string): number {
  const before = index - RAISE_AHEAD_CYCLES;
  const day = before < 0 ? plan.start_date : addDays(dueDateOf(plan, before), 1);
  return zonedHourStart(parseDate(day), 0, timeZone).getTime();
}

export function startCycle(deps: WorkflowStarter, tenantId: string, subscriberId: string, nextIndex: number, subscriberName: string): Promise<void> {
  return startOnce(() =>
    startWorkflow(deps.temporal, duesCycleDefinition, {
      workflowId: duesCycleWorkflowId(subscriberId),
      taskQueue: deps.taskQueue,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ tenantId, subscriberId, nextIndex }],
      ...visibilityOptions({ workspaceId: tenantId, kind: 'subscriber', id: subscriberId, name: subscriberName, summary: `Raising the dues of ${subscriberName}` }),
    }),
  );
}
