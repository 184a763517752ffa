import type { IncomingMessage } from 'node:http';
import { validateV3Signature } from 'plivo';
import type { StreamProtocol } from '../../../calls/line/streamProtocol';
import { secretMatches } from '../../../calls/line/streamUrl';
import { plivoFrameReader } from './streamMessages';

/** No closing handshake at all (RFC 6455 §7.1.5): the connection was lost, not closed by Plivo. */
const ABNORMAL_CLOSURE = 1006;

export interface PlivoStreamAuth {
  authToken: string;
  /** PLIVO_MEDIA_STREAM_URL: the public URL each call's `<Stream>` extends with its id and secret. */
  streamUrl: string;
}

/**
 * Plivo Audio Streaming as the media bridge's stream protocol. The handshake proves its call by
 * the path's secret (an HMAC of the call id under the auth token, given to Plivo only in the
 * signed answer XML); Plivo documents no signature on the WebSocket handshake that can be relied
 * on, so one is checked only when its headers come (a wrong one is refused). The agent's audio
 * goes as `playAudio` in the stream's own format (8 kHz mu-law, as the XML asked), marks as
 * `checkpoint` (echoed as `playedStream`), barge-in as `clearAudio`. Plivo sends no `stop`: it
 * closes the socket when the call ends or moves, so a close with a closing handshake is Plivo
 * ending the stream, and only a connection lost without one ends the call `setup_error`.
 */
export function plivoStreamProtocol(auth: PlivoStreamAuth): StreamProtocol {
  return {
    admit(req, { callId, secret }) {
      if (!secretMatches(auth.authToken, callId, secret)) return 'secret';
      return handshakeSignatureHolds(req, auth, `${auth.streamUrl.replace(/\/+$/, '')}/${callId}/${secret}`) ? null : 'signature';
    },
    reader: () => plivoFrameReader(),
    media: (_streamId, payload) => JSON.stringify({ event: 'playAudio', media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload } }),
    mark: (streamId, name) => JSON.stringify({ event: 'checkpoint', streamId, name }),
    clear: (streamId) => JSON.stringify({ event: 'clearAudio', streamId }),
    closedByProvider: (code) => code !== ABNORMAL_CLOSURE,
  };
}

function handshakeSignatureHolds(req: IncomingMessage, auth: PlivoStreamAuth, url: string): boolean {
  const signature = req.headers['x-plivo-signature-v3'];
  const nonce = req.headers['x-plivo-signature-v3-nonce'];
  if (signature === undefined && nonce === undefined) return true;
  if (typeof signature !== 'string' || typeof nonce !== 'string') return false;
  return validateV3Signature('GET', url, nonce, auth.authToken, signature, {}).valueOf();
}
