import type { LineControl } from '../calls/voiceLine';

/**
 * The line control the media process has without a telephony adapter (VOICE_PROVIDER is
 * simulator): ending a call is closing its media stream, which the bridge does after every end (a
 * <Connect><Stream> with no verb after it hangs up when its socket closes); a transfer needs
 * the network's API and is refused. With a real provider, src/main/media.ts takes its
 * adapter's LineControl instead (MEDIA_LINES).
 */
export const streamOnlyLineControl: LineControl = {
  async endCall() {
    // The bridge closes the stream right after this resolves.
  },
  async transferCall(callId) {
    throw new Error(`transfer of ${callId} needs the telephony adapter's LineControl (a VOICE_PROVIDER other than simulator)`);
  },
};
