/**
 * Where Plivo calls this deployment back (mounted by api/providerWebhooks/plivo.ts). Calls we
 * place name their call id in the query, so a request finds its call before its CallUUID is
 * known; the query is part of what Plivo signs (X-Plivo-Signature-V3).
 */
export const PLIVO_WEBHOOK_PATHS = {
  /** answer_url of a call we place: Plivo asks what to do once it is answered (after machine detection). */
  answer: '/webhooks/plivo/answer',
  /** hangup_url and ring_url: the call rang (its CallUUID is learnt) or ended, with its status and hang-up cause. */
  status: '/webhooks/plivo/status',
  /** aleg_url of a transfer: the XML that dials the team line. */
  transfer: '/webhooks/plivo/transfer',
  /** The Dial's callbackUrl: the team line's leg answered or hung up. */
  dial: '/webhooks/plivo/dial',
  /** The Plivo application's answer URL: a call to one of our numbers. Its hangup URL is `status`. */
  voice: '/webhooks/plivo/voice',
} as const;

export function plivoWebhookUrl(publicUrl: string, route: keyof typeof PLIVO_WEBHOOK_PATHS, callId?: string): string {
  const path = `${publicUrl}${PLIVO_WEBHOOK_PATHS[route]}`;
  return callId ? `${path}?call_id=${encodeURIComponent(callId)}` : path;
}

/** Plivo writes numbers in E.164 without the `+` (its requests and its API alike). */
export function plivoNumber(e164: string): string {
  return e164.replace(/\D/g, '');
}

/** A number as Plivo gave it, in E.164 (`+` and digits); SIP URIs and names are passed on as they are. */
export function fromPlivoNumber(value: string): string {
  return /^\d{6,15}$/.test(value) ? `+${value}` : value;
}
