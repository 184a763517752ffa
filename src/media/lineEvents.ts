import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { callWorkflowId, lineEventSignal } from '../calls/contracts';
import type { LineEvent } from '../providers/voice/types';

/** Where the bridge tells a call's workflow what happened on the line. */
export interface LineEventSink {
  report(callId: string, event: LineEvent): Promise<void>;
}

/**
 * The call workflow's `lineEvent` signal. A call whose workflow has finished (it already
 * ended, say by the network's own report) has nothing left to hear: that is not an error.
 */
export function temporalLineEvents(temporal: Client): LineEventSink {
  return {
    async report(callId, event) {
      try {
        await temporal.workflow.getHandle(callWorkflowId(callId)).signal(lineEventSignal, event);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
  };
}
