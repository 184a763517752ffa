import type { LineControl } from '../../src/calls/voiceLine';

/**
 * A LineControl that notes what the bridge asked of the network and then does what Twilio
 * does to the call's media stream: hanging up or moving the call ends the stream (`stop`,
 * then the socket closes). `onRequest` plays that part (the test's media-stream client).
 */
export class RecordingLineControl implements LineControl {
  readonly requests: ({ kind: 'end'; callId: string } | { kind: 'transfer'; callId: string; to: string })[] = [];
  onRequest: (callId: string) => Promise<void> = async () => undefined;

  async endCall(callId: string): Promise<void> {
    this.requests.push({ kind: 'end', callId });
    await this.onRequest(callId);
  }

  async transferCall(callId: string, to: string): Promise<void> {
    this.requests.push({ kind: 'transfer', callId, to });
    await this.onRequest(callId);
  }
}
