import type { ResolvedVariables } from './templateVariables';

/**
 * The WhatsApp provider seen by the rest of the system: one send attempt at a time. Retries
 * of temporary failures, the allowance and the transcript live above it (src/messaging), so
 * the simulator and the Cloud API adapter behave identically to their callers.
 */

export interface TemplateMessage {
  type: 'template';
  name: string;
  language: string;
  /** A media header carries its file's address; a text header its values. */
  header: { type: 'text'; values: string[] } | { type: 'image' | 'video'; link: string } | null;
  body: string[];
  buttons: ResolvedVariables['buttons'];
}

export interface TextMessage {
  type: 'text';
  /** Already converted to WhatsApp formatting. */
  text: string;
}

export interface SendRequest {
  tenantId: string;
  senderId: string;
  /** The sender's business number, `+` and digits. */
  from: string;
  /** `+` and digits. */
  to: string;
  message: TextMessage | TemplateMessage;
  /**
   * The send's intent key (src/messaging/sendIntents.ts), given to the provider to hand back
   * with the message's statuses (the Cloud API's `biz_opaque_callback_data`), so a send whose
   * answer was never recorded is found from its statuses (src/messaging/unknownOutcomes.ts).
   * Absent on intents written before it, and for a key over `CALLBACK_DATA_MAX_CHARS`.
   */
  callbackData?: string;
}

/** The Cloud API's limit on `biz_opaque_callback_data` (docs/decisions/messaging.md, "Unknown outcomes resolved from the provider"). */
export const CALLBACK_DATA_MAX_CHARS = 512;

/** What a send gives the provider to hand back with its statuses: the intent key, when it fits. */
export function callbackDataOf(intentKey: string): { callbackData?: string } {
  return intentKey.length <= CALLBACK_DATA_MAX_CHARS ? { callbackData: intentKey } : {};
}

/** What the provider said when it did not accept a message (api-core §7, provider refusal). */
export interface ProviderErrorDetails {
  provider_code: number | null;
  provider_subcode: number | null;
  provider_message: string | null;
  provider_user_message: string | null;
}

export type SendAttempt =
  | { ok: true; messageId: string }
  | {
      ok: false;
      /** Rate limits and server errors: the same request may succeed if tried again. */
      retryable: boolean;
      error: ProviderErrorDetails;
    };

/** Marks a customer's message read (blue ticks) and, while an answer is being prepared, shows typing. */
export interface ReadMark {
  tenantId: string;
  senderId: string;
  /** The sender's business number, `+` and digits. */
  from: string;
  /** The provider's id of the customer's message. */
  providerMessageId: string;
  /** Also show "typing…" to the customer (the Cloud API clears it when the reply goes, or after 25 s). */
  typing: boolean;
}

export interface WhatsAppProvider {
  readonly name: 'simulator' | 'cloud';
  send(request: SendRequest): Promise<SendAttempt>;
  /** Marks a message read (and shows typing) where the provider can; one attempt, the caller decides what a failure means. */
  markRead?(mark: ReadMark): Promise<void>;
  /** Told once a sent message is recorded (the simulator then schedules its delivery statuses). */
  accepted?(request: SendRequest, messageId: string): Promise<void>;
  /**
   * Told of a campaign batch's recipients (`+` and digits) before their sends, so a provider
   * that reads something per recipient (the simulator's scripts) reads it for all at once.
   */
  prepare?(tenantId: string, recipients: readonly string[]): Promise<void>;
}

/**
 * Cloud API error codes that mean "try again shortly": throttling (4 application, 80007
 * account, 130429 throughput, 131056 pair rate) and temporary server trouble (1, 2, 131000,
 * 131016). Everything else is a refusal that repeating will not change.
 */
export const RETRYABLE_PROVIDER_CODES = new Set([1, 2, 4, 80007, 130429, 131000, 131016, 131056]);

export function isRetryable(httpStatus: number | null, code: number | null): boolean {
  if (code !== null && RETRYABLE_PROVIDER_CODES.has(code)) return true;
  return httpStatus !== null && (httpStatus === 429 || httpStatus >= 500);
}
