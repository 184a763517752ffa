import twilio from 'twilio';
import type { StreamProtocol } from '../../../calls/line/streamProtocol';
import { secretMatches } from '../../../calls/line/streamUrl';
import { readTwilioFrame } from './streamMessages';

/**
 * Who may open a stream: Twilio signs the WebSocket handshake (`X-Twilio-Signature`, HMAC of
 * the stream URL as the TwiML gave it, with the account's auth token), as its webhooks.
 */
export interface TwilioStreamAuth {
  authToken: string;
  /** TWILIO_MEDIA_STREAM_URL: the public URL each call's `<Stream url>` extends with its id and secret. */
  streamUrl: string;
}

/**
 * Twilio Media Streams (<Connect><Stream>, bidirectional) as the media bridge's stream
 * protocol: its messages read by streamMessages.ts; the agent's audio sent as `media`, marks as
 * `mark`, barge-in as `clear`, each with the stream's `streamSid`. Twilio always sends `stop`
 * before it closes a stream, so a close without one is a lost connection. Without `auth` (the
 * simulator's media process, tests without Twilio) no handshake is checked.
 */
export function twilioStreamProtocol(auth: TwilioStreamAuth | null): StreamProtocol {
  return {
    admit(req, { callId, secret }) {
      if (!auth) return null;
      const signature = req.headers['x-twilio-signature'];
      const url = `${auth.streamUrl.replace(/\/+$/, '')}/${callId}/${secret}`;
      if (typeof signature !== 'string' || !twilio.validateRequest(auth.authToken, signature, url, {})) return 'signature';
      return secretMatches(auth.authToken, callId, secret) ? null : 'secret';
    },
    reader: () => readTwilioFrame,
    media: (streamSid, payload) => JSON.stringify({ event: 'media', streamSid, media: { payload } }),
    mark: (streamSid, name) => JSON.stringify({ event: 'mark', streamSid, mark: { name } }),
    clear: (streamSid) => JSON.stringify({ event: 'clear', streamSid }),
    closedByProvider: () => false,
  };
}
