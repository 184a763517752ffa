import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { collections } from '../db/collections';
import { visibilityOptions } from '../temporal/searchAttributes';
import { startWorkflow } from '../temporal/startWorkflow';
import { callBackDefinition, type CallBackInput, type CallBackResult } from './contracts';
import { placeCall, placeCallDeps, type WorkerPlacingDeps } from './placeCall';

/**
 * A call-back an agent promised: one workflow per call-back (a durable timer, then the call
 * placed through POST /calls's use case), the only Temporal cost it adds. Its id derives from
 * the tool run's key, so a retried run finds the call-back it scheduled, and the call it
 * places is named by the call-back, so a retried placing never rings twice.
 */

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

export function callBackIdFor(tenantId: string, runKey: string): string {
  return `cb_${sha(`${tenantId}\u0000${runKey}`).slice(0, 24)}`;
}

/** The call the call-back places: shaped as every call id (the time it rings, then 12 hex of the call-back). */
export function callBackCallId(input: Pick<CallBackInput, 'callBackId' | 'at'>): string {
  return `call_${Date.parse(input.at).toString(16).padStart(12, '0')}${sha(input.callBackId).slice(0, 12)}`;
}

/** Starts the call-back's workflow; `scheduled: false` when this call-back was scheduled before (a retried run). */
export async function scheduleCallBack(deps: { temporal: Client; taskQueue: string }, input: CallBackInput): Promise<{ scheduled: boolean }> {
  try {
    await startWorkflow(deps.temporal, callBackDefinition, {
      workflowId: input.callBackId,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      taskQueue: deps.taskQueue,
      args: [input],
      ...visibilityOptions({ workspaceId: input.tenantId, kind: 'call', id: input.callBackId, status: 'scheduled', phoneNumber: input.to, name: input.to }),
    });
    return { scheduled: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { scheduled: false };
    throw err;
  }
}

/** The call-back's time has come: the call is placed as POST /calls places one, its guards checked now. */
export async function placeCallBack(
  deps: WorkerPlacingDeps,
  input: CallBackInput,
  now: Date,
): Promise<CallBackResult> {
  const workspace = await collections(deps.db).workspaces.findOne({ _id: input.tenantId });
  if (!workspace) return { callId: null, refusal: 'workspace_gone' };
  const outcome = await placeCall(
    placeCallDeps(deps, now),
    workspace,
    {
      to: input.to,
      agent_id: input.agentId,
      from_number: input.fromNumber,
      purpose: input.purpose,
      script: null,
      details: {},
      capture: null,
      ring_seconds: 30,
      metadata: { call_back_id: input.callBackId },
    },
    { callId: callBackCallId(input) },
  );
  return outcome.kind === 'refused' ? { callId: null, refusal: outcome.refusal.reason } : { callId: outcome.call._id, refusal: null };
}
