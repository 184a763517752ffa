/**
 * What other features use of webhooks: the signing (Standard Webhooks), the URL policy (no
 * private, loopback or link-local addresses) and the bounded POST, so whatever else the
 * service sends out to a business's URL (an agent's HTTP tools) is signed, checked and bounded
 * exactly as a webhook is.
 */
export { sendWebhook, type SendRequest, type SendResult } from './send';
export { newSigningSecret, signedHeaders, type SignedHeaders } from './signature';
export { checkWebhookUrl, type UrlCheck } from './urlPolicy';
