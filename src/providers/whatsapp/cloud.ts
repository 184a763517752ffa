import { isRetryable, type ProviderErrorDetails, type ReadMark, type SendAttempt, type SendRequest, type WhatsAppProvider } from '../../messaging';

/**
 * The real provider: the WhatsApp Business Platform Cloud API (Graph API
 * `POST /{phone-number-id}/messages`, bearer token). Text goes as `type: text`, templates as
 * `type: template` with header, body and URL-button components.
 */

export interface CloudSettings {
  /** Graph API root including its version, e.g. `https://graph.facebook.com/v21.0`. */
  baseUrl: string;
  accessToken: string;
  /** The phone-number id to send from when a sender's number has none of its own below. */
  phoneNumberId: string;
  /** Sender business number digits → phone-number id, for deployments with several numbers. */
  phoneNumberIds: Record<string, string>;
  timeoutMs: number;
}

type Parameter = { type: 'text'; text: string } | { type: 'image'; image: { link: string } } | { type: 'video'; video: { link: string } };

/** The Cloud API request body for one message. */
export function cloudMessageBody(request: SendRequest): Record<string, unknown> {
  const base = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: request.to.replace(/\D/g, ''),
    // Echoed by Meta in the message's status webhooks: how a send whose answer was lost is found.
    ...(request.callbackData ? { biz_opaque_callback_data: request.callbackData } : {}),
  };
  const message = request.message;
  if (message.type === 'text') return { ...base, type: 'text', text: { preview_url: false, body: message.text } };
  const text = (value: string): Parameter => ({ type: 'text', text: value });
  const components: Record<string, unknown>[] = [];
  if (message.header?.type === 'text' && message.header.values.length > 0) {
    components.push({ type: 'header', parameters: message.header.values.map(text) });
  } else if (message.header?.type === 'image') {
    components.push({ type: 'header', parameters: [{ type: 'image', image: { link: message.header.link } }] });
  } else if (message.header?.type === 'video') {
    components.push({ type: 'header', parameters: [{ type: 'video', video: { link: message.header.link } }] });
  }
  if (message.body.length > 0) components.push({ type: 'body', parameters: message.body.map(text) });
  for (const button of message.buttons) {
    components.push({ type: 'button', sub_type: 'url', index: String(button.index), parameters: button.values.map(text) });
  }
  return {
    ...base,
    type: 'template',
    template: { name: message.name, language: { code: message.language }, ...(components.length > 0 ? { components } : {}) },
  };
}

interface GraphError {
  message?: string;
  code?: number;
  error_subcode?: number;
  error_user_title?: string;
  error_user_msg?: string;
  error_data?: { details?: string };
}

function details(error: GraphError | undefined, fallback: string): ProviderErrorDetails {
  const detail = error?.error_data?.details;
  return {
    provider_code: typeof error?.code === 'number' ? error.code : null,
    provider_subcode: typeof error?.error_subcode === 'number' ? error.error_subcode : null,
    provider_message: error?.message ? (detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message) : fallback,
    provider_user_message: error?.error_user_msg ?? null,
  };
}

function parseJson(text: string): { messages?: { id?: string }[]; error?: GraphError } | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as { messages?: { id?: string }[]; error?: GraphError }) : null;
  } catch {
    return null;
  }
}

export class CloudWhatsAppProvider implements WhatsAppProvider {
  readonly name = 'cloud' as const;

  constructor(
    private readonly settings: CloudSettings,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  phoneNumberIdFor(senderPhone: string): string {
    return this.settings.phoneNumberIds[senderPhone.replace(/\D/g, '')] ?? this.settings.phoneNumberId;
  }

  private messagesUrl(from: string): string {
    return `${this.settings.baseUrl.replace(/\/+$/, '')}/${encodeURIComponent(this.phoneNumberIdFor(from))}/messages`;
  }

  /**
   * `status: read` on the customer's message, with `typing_indicator` when asked: the Cloud
   * API shows "typing…" until the reply goes or 25 s pass. A refusal throws (the caller logs it).
   */
  async markRead(mark: ReadMark): Promise<void> {
    const body = { messaging_product: 'whatsapp', status: 'read', message_id: mark.providerMessageId, ...(mark.typing ? { typing_indicator: { type: 'text' } } : {}) };
    const response = await this.fetchImpl(this.messagesUrl(mark.from), {
      method: 'POST',
      headers: { authorization: `Bearer ${this.settings.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(this.settings.timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`the Cloud API refused to mark ${mark.providerMessageId} read: HTTP ${response.status} ${details(parseJson(text)?.error, 'no reason given').provider_message}`);
  }

  async send(request: SendRequest): Promise<SendAttempt> {
    const url = this.messagesUrl(request.from);
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.settings.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(cloudMessageBody(request)),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      // A timeout may hide a message that went out, so it is not retried; a refused
      // connection certainly sent nothing, so it is.
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      return {
        ok: false,
        retryable: !timedOut,
        error: {
          provider_code: null,
          provider_subcode: null,
          provider_message: timedOut ? `no answer within ${this.settings.timeoutMs} ms` : `could not connect: ${(err as Error).message}`,
          provider_user_message: null,
        },
      };
    }
    const text = await response.text();
    const payload = parseJson(text);
    const id = payload?.messages?.[0]?.id;
    if (response.ok && typeof id === 'string') return { ok: true, messageId: id };
    const error = details(payload?.error, `HTTP ${response.status}${payload ? '' : ' with an unreadable body'}`);
    return { ok: false, retryable: isRetryable(response.status, error.provider_code), error };
  }
}
