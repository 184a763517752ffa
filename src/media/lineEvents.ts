import type { Client } from '@temporalio/client';
import { signalLineEvent } from '../calls/line/signalLine';
import type { LineEvent } from '../calls/voiceLine';

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
      await signalLineEvent(temporal, callId, event);
    },
  };
}
