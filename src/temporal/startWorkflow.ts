import type {
  Client,
  Workflow,
  WorkflowHandleWithSignaledRunId,
  WorkflowHandleWithStartDetails,
  WorkflowResultType,
  WorkflowSignalWithStartOptions,
  WorkflowStartOptions,
} from '@temporalio/client';
import type { WithWorkflowArgs } from '@temporalio/common';
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

/**
 * Signals a workflow by its definition, starting it first if it is not running: the start
 * arguments are typed from the contract, the signal's from its definition.
 */
export function signalWithStartWorkflow<W extends Workflow, SignalArgs extends any[]>(
  client: Client,
  definition: WorkflowDefinition<W>,
  options: WithWorkflowArgs<W, WorkflowSignalWithStartOptions<SignalArgs>>,
): Promise<WorkflowHandleWithSignaledRunId<W>> {
  return client.workflow.signalWithStart<W, SignalArgs>(definition.name, options);
}
