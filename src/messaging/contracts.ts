/**
 * The simulated delivery reports of one accepted message. The workflow type is no longer
 * started (issue 13: the simulator's statuses cost no workflow, src/providers/whatsapp/
 * simulatedStatuses.ts); it stays defined and hosted for runs an earlier release left open.
 *
 * Imported by workflow code: no Node built-ins, no I/O.
 */
import { defineWorkflow } from '../temporal/workflowDefinition';

export type SimulatedStatus = 'sent' | 'delivered' | 'read' | 'failed';

export interface SimulatedDeliveryInput {
  tenantId: string;
  /** The provider message id the statuses are for. */
  messageId: string;
  steps: { status: SimulatedStatus; afterMs: number }[];
  /** Why the message failed, for a `failed` step. */
  failure: { code: number; title: string; message: string } | null;
}

export interface RecordSimulatedStatusInput {
  tenantId: string;
  messageId: string;
  status: SimulatedStatus;
  /** ISO time read by the workflow, so a retried activity records the same instant. */
  at: string;
  failure: { code: number; title: string; message: string } | null;
}

export type SimulatedWhatsAppDelivery = (input: SimulatedDeliveryInput) => Promise<void>;
/** The simulator's delivery reports for one accepted message (workflows/messaging/simulatedWhatsAppDelivery.ts). */
export const simulatedWhatsAppDeliveryDefinition = defineWorkflow<SimulatedWhatsAppDelivery>('simulatedWhatsAppDelivery');

/** One delivery per simulated message: a repeated start for the same message is refused. */
export function simulatedDeliveryWorkflowId(messageId: string): string {
  return `wa-sim-delivery-${messageId}`;
}
