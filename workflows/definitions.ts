/**
 * What the API, the worker and the workflows share: inputs, outputs and workflow-id
 * builders. Workflow ids are resource ids, so the engine itself refuses duplicates.
 * This file is imported by workflow code: no Node built-ins, no I/O.
 */

export interface SystemCheckInput {
  checkId: string;
  /** ISO time read once by the caller, so every retry records the same request time. */
  requestedAt: string;
}

export interface SystemCheckResult {
  checkId: string;
  recordedAt: string;
}

/** One workflow per check id: a repeated start of the same check is refused, not run twice. */
export function systemCheckWorkflowId(checkId: string): string {
  return `system-check-${checkId}`;
}
