import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { visibilityOptions } from '../temporal/searchAttributes';
import { startWorkflow } from '../temporal/startWorkflow';
import { callCollections, type CallDoc } from './callStore';
import { callNaming } from './callPerson';
import { rereadCallDefinition, rereadWorkflowId, type ReadCallInput } from './contracts';

/**
 * A console re-read of a finished call: counts the request and starts the re-read workflow of
 * the next reading (result `ready` and `call.outcome` sent again). The reading number comes
 * from the request count, so two requests at once start two readings; a reading whose workflow
 * already started is not started twice.
 */
export async function requestReread(db: Db, temporal: Client, taskQueue: string, call: CallDoc): Promise<{ reading: number; workflowId: string }> {
  const bumped = await callCollections(db).calls.findOneAndUpdate({ _id: call._id }, { $inc: { read_requests: 1 } }, { returnDocument: 'after' });
  const reading = Math.max(bumped!.read_requests + 1, call.readings + 1);
  const input: ReadCallInput = { callId: call._id, tenantId: call.tenant_id, reading, reread: true };
  const workflowId = rereadWorkflowId(call._id, reading);
  try {
    await startWorkflow(temporal, rereadCallDefinition, {
      workflowId,
      taskQueue,
      args: [input],
      // The call's status stays as it is: a reading changes only its result.
      ...visibilityOptions({ workspaceId: call.tenant_id, kind: 'call', id: call._id, phoneNumber: call.to, name: callNaming(call).name, summary: `Reading ${reading}: ${callNaming(call).summary}` }),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return { reading, workflowId };
}
