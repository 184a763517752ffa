import type { Workflow } from '@temporalio/workflow';

/**
 * A workflow's type name bound to its signature, so a start by name still type-checks its
 * arguments and result. Contracts declare one per workflow (`defineWorkflow<CallWorkflow>(
 * 'callWorkflow')`); callers start it through src/temporal/startWorkflow.ts, workflows start
 * children with `startChild<W>(definition.name, …)`. A unit test checks each name against the
 * function workflows/index.ts exports, so the two cannot drift.
 *
 * Imported by workflow code: no Node built-ins, no I/O.
 */
export interface WorkflowDefinition<W extends Workflow> {
  readonly name: string;
  /** Never set: carries the signature for the type checker only. */
  readonly signature?: W;
}

export function defineWorkflow<W extends Workflow>(name: string): WorkflowDefinition<W> {
  return Object.freeze({ name });
}
