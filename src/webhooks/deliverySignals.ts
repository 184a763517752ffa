import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { batchWhileBusy } from '../async/batchWhileBusy';
import { visibilityOptions } from '../temporal/searchAttributes';
import { signalWithStartWorkflow } from '../temporal/startWorkflow';
import { deliverSignal, endpointDeliveriesDefinition, endpointWorkflowId, wakeSignal, type DeliveryRef } from './contracts';
import { INBOX_STALE_MS, createInboxClaimer, type InboxClaimer } from './inbox';

/** At most this many deliveries per signal, so a signal's payload stays small. */
const MAX_REFS_PER_SIGNAL = 200;

/**
 * One signal-with-start of an endpoint's workflow with these deliveries. Two at once can race
 * to start it and one be refused as already started (seen on the time-skipping test server);
 * by then the workflow runs, so signalling again delivers.
 */
export async function signalEndpoint(temporal: Client, taskQueue: string, tenantId: string, endpointId: string, refs: DeliveryRef[] | 'wake'): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const common = {
        workflowId: endpointWorkflowId(endpointId),
        taskQueue,
        args: [{ endpointId, tenantId }] as [{ endpointId: string; tenantId: string }],
        ...visibilityOptions({ workspaceId: tenantId, kind: 'webhook_endpoint', id: endpointId }),
      };
      if (refs === 'wake') await signalWithStartWorkflow(temporal, endpointDeliveriesDefinition, { ...common, signal: wakeSignal, signalArgs: [] });
      else await signalWithStartWorkflow(temporal, endpointDeliveriesDefinition, { ...common, signal: deliverSignal, signalArgs: [refs] });
      return;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || attempt >= 5) throw err;
    }
  }
}

/**
 * Parks deliveries in the endpoint's inbox and, if its workflow needs it, wakes it: with
 * `wakeSignal` when the inbox state says the workflow went idle (signal-with-start, which
 * also starts a closed one), with the deliveries themselves (`deliverSignal`) when the
 * endpoint has no inbox state yet (a run of an earlier release, which does not read the
 * inbox, may be live; a new run takes them from its signal or its inbox, once). A workflow
 * that is draining is not signalled at all: it reads the inbox before it may sleep. A state
 * not written for INBOX_STALE_MS while it says "draining" (no drain is that long: its
 * deadline is a minute) means the workflow stopped without saying so (terminated by an
 * operator, say): the publisher wakes it too, which starts a new run if none is running.
 */
export async function handOver(
  claimer: InboxClaimer,
  temporal: Client,
  taskQueue: string,
  tenantId: string,
  endpointId: string,
  refs: DeliveryRef[],
  now: () => Date = () => new Date(),
): Promise<void> {
  const state = await claimer.claim(endpointId, refs);
  if (!state) await signalEndpoint(temporal, taskQueue, tenantId, endpointId, refs);
  else if (state.idle || now().getTime() - state.updated_at.getTime() > INBOX_STALE_MS) await signalEndpoint(temporal, taskQueue, tenantId, endpointId, 'wake');
}

export interface DeliverySignaller {
  /** Resolves once the delivery is in the endpoint's inbox and its workflow, if asleep, was woken. */
  deliver(tenantId: string, endpointId: string, ref: DeliveryRef): Promise<void>;
}

/**
 * Hands deliveries to their endpoint (`handOver`). While one hand-over to an endpoint is in
 * flight, further deliveries to it wait and go together in the next one: no delay when
 * traffic is light, one insert (and at most one Temporal call) for many deliveries under a
 * burst, and never two claims of one process racing for the same slots.
 */
export function createDeliverySignaller(db: Db, temporal: Client, taskQueue: string, claimer: InboxClaimer = createInboxClaimer(db)): DeliverySignaller {
  const batches = batchWhileBusy<string, { tenantId: string; ref: DeliveryRef }>(MAX_REFS_PER_SIGNAL, (endpointId, items) =>
    handOver(claimer, temporal, taskQueue, items[0]!.tenantId, endpointId, items.map((item) => item.ref)),
  );
  return { deliver: (tenantId, endpointId, ref) => batches.add(endpointId, { tenantId, ref }) };
}
