import type { LineControl } from '../providers/voice/types';

/**
 * The line control the media process has on its own, before a telephony adapter gives it
 * one: ending a call is closing its media stream, which the bridge does after every end (a
 * <Connect><Stream> with no verb after it hangs up when its socket closes); a transfer needs
 * the network's API and is refused. src/main/media.ts takes this until VOICE_PROVIDER=twilio's
 * LineControl is wired in (the Twilio adapter implements LineControl).
 */
export const streamOnlyLineControl: LineControl = {
  async endCall() {
    // The bridge closes the stream right after this resolves.
  },
  async transferCall(callId) {
    throw new Error(`transfer of ${callId} needs the telephony adapter's LineControl (VOICE_PROVIDER=twilio)`);
  },
};
