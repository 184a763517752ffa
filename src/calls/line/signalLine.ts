import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { callWorkflowId, lineEventSignal } from '../contracts';
import type { LineEvent } from '../voiceLine';

/**
 * Tells a call's workflow what happened on its line (a real line's webhooks, the media
 * bridge). `finished` when the workflow is gone: the call is over and the event changes nothing.
 */
export async function signalLineEvent(temporal: Client, callId: string, event: LineEvent): Promise<'reported' | 'finished'> {
  try {
    await temporal.workflow.getHandle(callWorkflowId(callId)).signal(lineEventSignal, event);
    return 'reported';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'finished';
    throw err;
  }
}
