/**
 * The system check's contract, shared by its runner (src/temporal/systemCheck.ts), the
 * workflow and its activity. Its workflow id carries the check id, so the engine itself
 * refuses a repeated start.
 *
 * Imported by workflow code: no Node built-ins, no I/O.
 */
import { defineWorkflow } from './workflowDefinition';

export interface SystemCheckInput {
  checkId: string;
  /** ISO time read once by the caller, so every retry records the same request time. */
  requestedAt: string;
}

export interface SystemCheckResult {
  checkId: string;
  recordedAt: string;
}

export type SystemCheck = (input: SystemCheckInput) => Promise<SystemCheckResult>;
/** A round trip through Temporal, a worker and MongoDB (workflows/system/systemCheck.ts). */
export const systemCheckDefinition = defineWorkflow<SystemCheck>('systemCheck');

/** One workflow per check id: a repeated start of the same check is refused, not run twice. */
export function systemCheckWorkflowId(checkId: string): string {
  return `system-check-${checkId}`;
}
