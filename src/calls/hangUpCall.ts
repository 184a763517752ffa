import { isGrpcServiceError, ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { callWorkflowId, hangupUpdate } from './contracts';

/**
 * How many times a hang-up is sent when the call's workflow task it reached failed. It fails
 * when a signal (the person's own hang-up, the line's end) arrives while the workflow's
 * last local-activity task runs: the server then drops the update unapplied and answers
 * FAILED_PRECONDITION. The next attempt finds the call live (the hang-up applies), ending (the
 * workflow answers false) or over (not found).
 */
const HANGUP_ATTEMPTS = 4;
const HANGUP_RETRY_MS = 200;
/** gRPC's FAILED_PRECONDITION status code (@grpc/grpc-js is not a direct dependency). */
const FAILED_PRECONDITION = 9;

/** The update never reached a workflow task that completed: sending it again is safe. */
function droppedWithItsTask(err: unknown): boolean {
  const cause = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(cause) && cause.code === FAILED_PRECONDITION;
}

/**
 * Asks a ringing or connected call's workflow to hang up (api-core: POST /calls/{id}/hangup).
 * Answers whether a hang-up was sent: false when the call could no longer take one (it
 * finished, or is finishing, meanwhile).
 */
export async function hangUpCall(temporal: Client, callId: string): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await temporal.workflow.getHandle(callWorkflowId(callId)).executeUpdate(hangupUpdate);
    } catch (err) {
      // The call finished in the meantime (the workflow closed, or closed with the update unread): nothing to end.
      if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateFailedError) return false;
      if (!droppedWithItsTask(err) || attempt >= HANGUP_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, HANGUP_RETRY_MS));
    }
  }
}
