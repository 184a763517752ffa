import { createHmac, timingSafeEqual } from 'node:crypto';

/** Where the media process takes streams (any provider's: the path and secret name no provider): `/media-stream/<call id>/<secret>` (docs/media.md). */
export const MEDIA_STREAM_PATH = '/media-stream';

/** Call ids are ours (`call_` and base-62); anything else in the path is refused unread. */
const CALL_ID = /^call_[A-Za-z0-9]{1,64}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/**
 * The call's stream secret: an HMAC of its id under the provider's auth token, which both the API
 * (that writes the answer) and the media process (that takes the stream) hold. Nothing is
 * stored, and no other call's URL can be made from one that leaked (docs/decisions/calls.md,
 * "How a stream proves its call").
 */
export function streamSecret(key: string, callId: string): string {
  return createHmac('sha256', key).update(`media-stream:${callId}`).digest('base64url');
}

/**
 * The `<Stream url>` of one call: the provider's media stream URL (which ends in `/media-stream`) with
 * the call id and its secret as path segments. Providers may allow no query string on a stream
 * URL, and sign the URL whole, so the handshake's signature is per call too.
 */
export function callStreamUrl(mediaStreamUrl: string, key: string, callId: string): string {
  return `${mediaStreamUrl.replace(/\/+$/, '')}/${callId}/${streamSecret(key, callId)}`;
}

/** The call id and secret a stream's request path names, or null for any other path. */
export function parseStreamPath(path: string): { callId: string; secret: string } | null {
  if (!path.startsWith(`${MEDIA_STREAM_PATH}/`)) return null;
  const [callId, secret, ...rest] = path.slice(MEDIA_STREAM_PATH.length + 1).split('/');
  if (rest.length > 0 || !callId || !secret || !CALL_ID.test(callId) || !SECRET.test(secret)) return null;
  return { callId, secret };
}

/** Whether `secret` is the call's, compared in constant time. */
export function secretMatches(key: string, callId: string, secret: string): boolean {
  const expected = Buffer.from(streamSecret(key, callId));
  const given = Buffer.from(secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
