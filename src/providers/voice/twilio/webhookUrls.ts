/**
 * Where Twilio calls this deployment back (mounted by api/providerWebhooks/twilio.ts). Calls
 * we place name their call id in the query, so a callback finds its call even before the
 * originate has stored the CallSid; the query is part of what Twilio signs.
 */
export const TWILIO_WEBHOOK_PATHS = {
  /** Call progress (initiated, ringing, answered, completed and the failures). */
  status: '/webhooks/twilio/status',
  /** The TwiML Twilio fetches when an outbound call is answered, after machine detection. */
  answer: '/webhooks/twilio/answer',
  /** Progress of the team line's leg during a hand-over. */
  transfer: '/webhooks/twilio/transfer',
  /** A call to one of the workspace's numbers (the number's "A call comes in" webhook). */
  voice: '/webhooks/twilio/voice',
} as const;

export function twilioWebhookUrl(publicUrl: string, route: keyof typeof TWILIO_WEBHOOK_PATHS, callId?: string): string {
  const path = `${publicUrl}${TWILIO_WEBHOOK_PATHS[route]}`;
  return callId ? `${path}?call_id=${encodeURIComponent(callId)}` : path;
}
