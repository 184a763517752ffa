import type { Context } from 'koa';
import getRawBody from 'raw-body';

/**
 * The largest body each provider's webhook reads (issue 32: a 4 MB form of 400,000
 * parameters, parsed before its signature was checked, stalled the API for seconds). Each
 * is well above what the provider sends and far below the API's own 4 MiB, so a forged
 * request costs a bounded read and no parse: a declared length past it is refused before a
 * byte is read.
 */
export const PROVIDER_BODY_LIMITS = {
  /** Twilio's form posts are a few KB (about 30 parameters; a voice request with SIP headers under 100). */
  twilio: 64 * 1024,
  /** Plivo's form posts are of the same size (about 20 to 40 parameters). */
  plivo: 64 * 1024,
  /** Meta documents webhook payloads of up to 3 MB (batches of up to 1,000 changes). */
  whatsapp: 3 * 1024 * 1024,
  /** Razorpay's events are a few KB (one payment, one link). */
  razorpay: 256 * 1024,
} as const;

/**
 * Twilio and Plivo sign the URL with the sorted form parameters, so the form must be parsed to
 * check it: past this many parameters (counted in the raw bytes, before parsing) it is refused.
 */
export const SIGNED_FORM_MAX_PARAMETERS = 500;
export const TWILIO_MAX_PARAMETERS = SIGNED_FORM_MAX_PARAMETERS;

const tooLarge = (ctx: Context) => {
  ctx.status = 413;
  ctx.body = { status: 'too_large' };
  return undefined;
};

/**
 * The raw body up to `maxBytes`, or undefined after answering 413 `{"status":"too_large"}`
 * (the provider webhooks' plain answers, signedJson.ts). A JSON webhook checks its signature
 * on these bytes before parsing them; Twilio, which signs the parsed form, bounds the parse
 * instead (readProviderForm).
 */
export async function readProviderBody(ctx: Context, maxBytes: number): Promise<Buffer | undefined> {
  try {
    return await getRawBody(ctx.req, { limit: maxBytes, length: ctx.get('content-length') || undefined });
  } catch (err) {
    if ((err as { type?: string }).type !== 'entity.too.large') throw err;
    return tooLarge(ctx);
  }
}

/** How many `name=value` pairs a form holds, counted without parsing it. */
function formParameterCount(raw: Buffer): number {
  if (raw.length === 0) return 0;
  let count = 1;
  for (let at = raw.indexOf(0x26); at !== -1; at = raw.indexOf(0x26, at + 1)) count += 1;
  return count;
}

/** A form post's parameters, parsed only once it is within `maxBytes` and `maxParameters`; else 413 as above. */
export async function readProviderForm(ctx: Context, maxBytes: number, maxParameters: number): Promise<Record<string, string> | undefined> {
  const raw = await readProviderBody(ctx, maxBytes);
  if (!raw) return undefined;
  if (formParameterCount(raw) > maxParameters) return tooLarge(ctx);
  return Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
}
