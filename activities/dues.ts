import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { ChaseStepInput } from '../src/dues/contracts';
import { finishChase, planChase, runChaseStep, type ChaseDeps } from '../src/dues/chaseSteps';
import { nextRaise, raiseCycle } from '../src/dues/cycleSteps';
import { recordPayment } from '../src/dues/dueActions';
import type { EventPublisher } from '../src/events/publisher';
import type { PaymentLinkProvider } from '../src/dues/paymentGateway';
import type { WhatsAppProvider } from '../src/messaging/whatsAppSender';

export interface DuesActivityDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  events: EventPublisher;
  whatsapp: WhatsAppProvider;
  deploymentChannels: readonly string[];
  payments: PaymentLinkProvider;
  now?: () => Date;
}

/** The due chase's and the dues cycle's activities (src/dues/chaseSteps.ts, cycleSteps.ts). */
export function createDuesActivities(deps: DuesActivityDeps) {
  const now = deps.now ?? (() => new Date());
  const chase: ChaseDeps = { db: deps.db, events: deps.events, whatsapp: deps.whatsapp, payments: deps.payments, deploymentChannels: deps.deploymentChannels, now };
  const raise = { db: deps.db, events: deps.events, temporal: deps.temporal, taskQueue: deps.taskQueue };
  return {
    /** Reads only; the time comes from the workflow. */
    planDueChase: (input: { tenantId: string; dueId: string; nowMs: number }) => planChase(chase, input.tenantId, input.dueId, input.nowMs),
    /** Safe to retry: the message's send intent is keyed by due and step; the due's writes are versioned and set whole values. */
    runDueChaseStep: (input: ChaseStepInput) => runChaseStep(chase, input),
    /** After the chase stops: a paid due's live payment link cancelled (best effort) and its receipt. Safe to retry: the receipt's send intent is keyed by the due. */
    finishDueChase: (input: { tenantId: string; dueId: string }) => finishChase(chase, input.tenantId, input.dueId),
    /** Reads only; the time comes from the workflow. */
    nextDuesRaise: (input: { subscriberId: string; index: number; nowMs: number }) => nextRaise(raise, input.subscriberId, input.index, input.nowMs),
    /** Safe to retry: the due's id derives from the subscriber and the index (src/dues/raise.ts). */
    raiseCycleDue: (input: { subscriberId: string; index: number; at: string }) => raiseCycle(raise, input.subscriberId, input.index, new Date(input.at)),
    /**
     * The simulated gateway's paid notice (workflows/dues/simulatedLinkPayment.ts), recorded as
     * Razorpay's webhook records it: source `gateway`, applied once. Safe to retry: a due no
     * longer open is left as it is.
     */
    paySimulatedLink: async (input: { tenantId: string; dueId: string; linkId: string; at: string }): Promise<{ applied: boolean }> => {
      const at = new Date(input.at);
      const paymentInput = { expectedVersion: null, amount: null, reference: input.linkId.replace('plink_', 'pay_'), paidAt: at, source: 'gateway' as const, markedBy: null, markedByName: null };
      const result = await recordPayment({ db: deps.db, temporal: deps.temporal, events: deps.events }, input.tenantId, input.dueId, paymentInput, now());
      // Chase steps kept winning the due's version: try again.
      if (result.kind === 'refused' && result.refusal.reason === 'version_conflict') throw new Error(`due ${input.dueId} kept changing; the simulated payment is retried`);
      return { applied: result.kind === 'paid' };
    },
  };
}

export type DuesActivities = ReturnType<typeof createDuesActivities>;
