import type { Client, Workflow, WorkflowHandleWithStartDetails, WorkflowResultType, WorkflowStartOptions } from '@temporalio/client';
import type { WorkflowDefinition } from './workflowDefinition';

/** Starts a workflow by its definition: `args` and the handle's result are typed from the contract. */
export function startWorkflow<W extends Workflow>(
  client: Client,
  definition: WorkflowDefinition<W>,
  options: WorkflowStartOptions<W>,
): Promise<WorkflowHandleWithStartDetails<W>> {
  return client.workflow.start<W>(definition.name, options);
}

/** Starts a workflow by its definition and waits for its result. */
export async function executeWorkflow<W extends Workflow>(
  client: Client,
  definition: WorkflowDefinition<W>,
  options: WorkflowStartOptions<W>,
): Promise<WorkflowResultType<W>> {
  return (await startWorkflow(client, definition, options)).result();
}
