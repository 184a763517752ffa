import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Referral } from '../../messaging/inbound';
import type { Business, CloudStatus, CloudWebhookBatch } from '../../messaging/cloudWebhookBatch';

/**
 * The Cloud API's webhook, as pure functions: the subscription challenge, the
 * `X-Hub-Signature-256` check (HMAC-SHA256 of the raw body with the app secret), and the
 * payload read into inbound messages, delivery statuses and business-app echoes.
 */

/** The `hub.challenge` to answer, or null when the request is not our subscription. */
export function verificationChallenge(query: Record<string, unknown>, verifyToken: string | undefined): string | null {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (!verifyToken || mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string') return null;
  const given = Buffer.from(token);
  const expected = Buffer.from(verifyToken);
  return given.length === expected.length && timingSafeEqual(given, expected) ? challenge : null;
}

export function signatureFor(rawBody: Buffer, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

export function signatureValid(rawBody: Buffer, header: string | undefined, appSecret: string): boolean {
  if (!header) return false;
  const given = Buffer.from(header.trim().toLowerCase());
  const expected = Buffer.from(signatureFor(rawBody, appSecret));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const seconds = (v: unknown, fallback: Date): Date => {
  const n = typeof v === 'string' || typeof v === 'number' ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000) : fallback;
};

/** The text form of a message, where it has one (text, a button's label, an interactive reply's title). */
function textOf(message: Json): string | null {
  return (
    str(obj(message.text).body) ??
    str(obj(message.button).text) ??
    str(obj(obj(message.interactive).button_reply).title) ??
    str(obj(obj(message.interactive).list_reply).title) ??
    str(obj(obj(message.image)).caption) ??
    str(obj(obj(message.video)).caption) ??
    str(obj(obj(message.document)).caption)
  );
}

function referralOf(message: Json): Referral | null {
  const r = obj(message.referral);
  if (Object.keys(r).length === 0) return null;
  const pick = (key: string) => str(r[key]);
  return {
    source_type: pick('source_type'),
    source_id: pick('source_id'),
    source_url: pick('source_url'),
    headline: pick('headline'),
    body: pick('body'),
    media_type: pick('media_type'),
    ctwa_clid: pick('ctwa_clid'),
    image_url: pick('image_url'),
    video_url: pick('video_url'),
    thumbnail_url: pick('thumbnail_url'),
  };
}

const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);

/** Reads a `whatsapp_business_account` payload; anything it does not know is skipped. */
export function parseCloudWebhook(payload: unknown, receivedAt: Date): CloudWebhookBatch {
  const batch: CloudWebhookBatch = { inbound: [], statuses: [], echoes: [] };
  for (const entry of list(obj(payload).entry)) {
    for (const change of list(entry.changes)) {
      const value = obj(change.value);
      const metadata = obj(value.metadata);
      const business: Business = { phoneNumberId: str(metadata.phone_number_id), displayPhoneNumber: str(metadata.display_phone_number) };
      const names = new Map(list(value.contacts).map((c) => [str(c.wa_id), str(obj(c.profile).name)]));
      for (const message of list(value.messages)) {
        const id = str(message.id);
        const from = str(message.from);
        if (!id || !from) continue;
        batch.inbound.push({
          ...business,
          id,
          from,
          profileName: names.get(from) ?? null,
          at: seconds(message.timestamp, receivedAt),
          type: str(message.type) ?? 'unknown',
          text: textOf(message),
          referral: referralOf(message),
        });
      }
      for (const status of list(value.statuses)) {
        const id = str(status.id);
        const name = str(status.status);
        if (!id || !name || !STATUSES.has(name)) continue;
        const first = list(status.errors)[0];
        batch.statuses.push({
          ...business,
          id,
          status: name as CloudStatus['status'],
          recipient: str(status.recipient_id),
          at: seconds(status.timestamp, receivedAt),
          error: first
            ? { code: typeof first.code === 'number' ? first.code : null, title: str(first.title), message: str(first.message) ?? str(obj(first.error_data).details) }
            : null,
          callbackData: str(status.biz_opaque_callback_data),
        });
      }
      for (const echo of list(value.message_echoes)) {
        const type = str(echo.type) ?? 'unknown';
        const to = str(echo.to);
        const id = type === 'revoke' ? str(obj(echo.revoke).original_message_id) ?? str(echo.id) : str(echo.id);
        if (!id || !to) continue;
        const edited = obj(obj(echo.edit).message);
        batch.echoes.push({
          ...business,
          id,
          to,
          action: type === 'edit' ? 'edited' : type === 'revoke' ? 'deleted' : 'sent',
          type,
          text: type === 'edit' ? textOf(edited) : type === 'revoke' ? null : textOf(echo),
          at: seconds(echo.timestamp, receivedAt),
        });
      }
    }
  }
  return batch;
}
