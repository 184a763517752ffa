import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { visibilityOptions } from '../temporal/searchAttributes';
import { signalWithStartWorkflow } from '../temporal/startWorkflow';
import { deliverSignal, endpointDeliveriesDefinition, endpointWorkflowId, type DeliveryRef } from './contracts';

/** At most this many deliveries per signal, so a signal's payload stays small. */
const MAX_REFS_PER_SIGNAL = 200;

/**
 * One signal-with-start of an endpoint's workflow with these deliveries. Two at once can race
 * to start it and one be refused as already started (seen on the time-skipping test server);
 * by then the workflow runs, so signalling again delivers.
 */
export async function signalEndpoint(temporal: Client, taskQueue: string, tenantId: string, endpointId: string, refs: DeliveryRef[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await signalWithStartWorkflow(temporal, endpointDeliveriesDefinition, {
        workflowId: endpointWorkflowId(endpointId),
        taskQueue,
        args: [{ endpointId, tenantId }],
        signal: deliverSignal,
        signalArgs: [refs],
        ...visibilityOptions({ workspaceId: tenantId, kind: 'webhook_endpoint', id: endpointId }),
      });
      return;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError) || attempt >= 5) throw err;
    }
  }
}

export interface DeliverySignaller {
  /** Resolves once the endpoint's workflow holds the delivery (signal-with-start accepted). */
  deliver(tenantId: string, endpointId: string, ref: DeliveryRef): Promise<void>;
}

/**
 * Hands deliveries to their endpoint's workflow with signal-with-start (starting it if it is
 * not running). While one signal to an endpoint is in flight, further deliveries to it wait
 * and go together in the next one: no delay when traffic is light, one Temporal call for
 * many deliveries under a burst.
 */
export function createDeliverySignaller(temporal: Client, taskQueue: string): DeliverySignaller {
  interface Batch {
    tenantId: string;
    refs: DeliveryRef[];
    waiters: { resolve: () => void; reject: (err: unknown) => void }[];
  }
  const waiting = new Map<string, Batch[]>();
  const inFlight = new Set<string>();

  async function flush(endpointId: string): Promise<void> {
    const queue = waiting.get(endpointId);
    const batch = queue?.shift();
    if (!batch) return;
    if (queue!.length === 0) waiting.delete(endpointId);
    inFlight.add(endpointId);
    try {
      await signalEndpoint(temporal, taskQueue, batch.tenantId, endpointId, batch.refs);
      for (const w of batch.waiters) w.resolve();
    } catch (err) {
      for (const w of batch.waiters) w.reject(err);
    } finally {
      inFlight.delete(endpointId);
      void flush(endpointId);
    }
  }

  return {
    deliver(tenantId, endpointId, ref) {
      return new Promise<void>((resolve, reject) => {
        const queue = waiting.get(endpointId) ?? [];
        waiting.set(endpointId, queue);
        let batch = queue.at(-1);
        if (!batch || batch.refs.length >= MAX_REFS_PER_SIGNAL) queue.push((batch = { tenantId, refs: [], waiters: [] }));
        batch.refs.push(ref);
        batch.waiters.push({ resolve, reject });
        if (!inFlight.has(endpointId)) void flush(endpointId);
      });
    },
  };
}
