import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { z } from 'zod';
import { simulatedLinkPaymentDefinition, simulatedLinkPaymentWorkflowId } from '../../dues/contracts';
import { visibilityOptions } from '../../temporal/searchAttributes';
import { startWorkflow } from '../../temporal/startWorkflow';
import { replaceUpserting } from '../../db/upsert';

/**
 * How the simulated payment-link gateway behaves for one workspace, set through the console
 * (`PUT /console/v1/workspaces/{id}/simulator/payment-links`) so tests and people can produce
 * each outcome: links are created and never paid (the default), links are refused, or every
 * link is paid `paid_after_minutes` after it is created (as the gateway's paid webhook would).
 */
export const paymentLinkScript = z
  .object({
    /** `fail`: the gateway refuses to create links (the due's `failure_reason` `payment_link_failed`). */
    create: z.enum(['ok', 'fail']).default('ok'),
    /** Minutes from a link's creation to its payment (fractions allowed); null: never paid. */
    paid_after_minutes: z.number().min(0).max(525_600).nullable().default(null),
  })
  .strict();

export type PaymentLinkScript = z.infer<typeof paymentLinkScript>;

export interface PaymentLinkScriptDoc {
  /** The workspace id: one script per workspace. */
  _id: string;
  script: PaymentLinkScript;
  updated_at: Date;
}

export function paymentLinkScripts(db: Db) {
  return db.collection<PaymentLinkScriptDoc>('simulator_payment_link_scripts');
}

export async function findPaymentLinkScript(db: Db, tenantId: string): Promise<PaymentLinkScript> {
  const doc = await paymentLinkScripts(db).findOne({ _id: tenantId });
  return doc ? doc.script : paymentLinkScript.parse({});
}

/** Stores the workspace's script, replacing any it had. */
export async function putPaymentLinkScript(db: Db, tenantId: string, script: PaymentLinkScript, now: Date): Promise<void> {
  await replaceUpserting(paymentLinkScripts(db), { _id: tenantId }, { script, updated_at: now });
}

/** Forgets the workspace's script (nothing happens when it had none). */
export async function deletePaymentLinkScript(db: Db, tenantId: string): Promise<void> {
  await paymentLinkScripts(db).deleteOne({ _id: tenantId });
}

/** What the simulator needs to follow the console's scripts: reading them, and paying a link later. */
export interface SimulatorScripting {
  scriptFor(tenantId: string): Promise<PaymentLinkScript>;
  /** Pays the link after `afterMs` (a durable timer); scheduling the same link twice pays it once. */
  payLater(input: { tenantId: string; dueId: string; linkId: string; afterMs: number }): Promise<void>;
}

export function scriptingFromConsole(db: Db, temporal: Client, taskQueue: string): SimulatorScripting {
  return {
    scriptFor: (tenantId) => findPaymentLinkScript(db, tenantId),
    payLater: async (input) => {
      try {
        await startWorkflow(temporal, simulatedLinkPaymentDefinition, {
          workflowId: simulatedLinkPaymentWorkflowId(input.linkId),
          taskQueue,
          args: [input],
          ...visibilityOptions({ workspaceId: input.tenantId, kind: 'payment_link', id: input.linkId }),
        });
      } catch (err) {
        // A retried link creation: the payment is already on its way.
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
  };
}
