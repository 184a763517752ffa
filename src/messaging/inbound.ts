import type { Db } from 'mongodb';
import type { SenderDoc } from '../db/collections';
import { recordTurn, phoneDigits, type Ctwa } from '../conversations';
import type { EventPublisher } from '../events';
import { inboundReceived, type InboundHookDeps, type InboundHooks } from './inboundHooks';
import { isOptOutReply, recordOptOut } from './optOut';
import { openWindow } from './sessionWindow';

/**
 * What a customer sends to a business number, and what a team member sends from the
 * business app on a number that stays on it (an echo). Both come from the provider's
 * webhook (Cloud API) or are injected through the console (simulator); either way they
 * land here. Every step is safe to repeat, since webhooks are delivered at least once.
 */

export interface MessagingDeps {
  db: Db;
  events: EventPublisher;
}

/** What recording a customer's message needs: messaging's deps, and the features' reactions to it with what they run on. */
export interface InboundDeps extends MessagingDeps, InboundHookDeps {
  inboundHooks: InboundHooks;
}

/** An ad referral as the channel reports it (Cloud API `referral`). */
export interface Referral {
  source_type?: string | null;
  source_id?: string | null;
  source_url?: string | null;
  headline?: string | null;
  body?: string | null;
  media_type?: string | null;
  ctwa_clid?: string | null;
  image_url?: string | null;
  video_url?: string | null;
  thumbnail_url?: string | null;
}

export interface InboundMessage {
  tenantId: string;
  senderId: string;
  /** The business number written to, `+` and digits. */
  senderPhone: string;
  /** The sender as the caller just read it to route the message (the webhook's routing read), so the hooks do not read it again. */
  sender?: SenderDoc;
  /** The customer, `+` and digits. */
  from: string;
  profileName?: string | null;
  /** The provider's id for the inbound message. */
  providerMessageId: string;
  /** `text`, `image`, `button`, …; non-text messages have no text form. */
  type: string;
  text: string | null;
  referral?: Referral | null;
  at: Date;
}

const CTWA_KEYS = ['source_type', 'source_id', 'source_url', 'headline', 'body', 'media_type', 'ctwa_clid'] as const;

/** The conversation's `acquisition.ctwa`: only keys with a value, plus when it was captured. */
export function ctwaFromReferral(referral: Referral, capturedAt: Date): Ctwa {
  const ctwa: Ctwa = {};
  for (const key of CTWA_KEYS) {
    const value = referral[key];
    if (typeof value === 'string' && value !== '') ctwa[key] = value;
  }
  ctwa.captured_at = capturedAt.toISOString();
  return ctwa;
}

function referralData(referral: Referral | null | undefined): Record<string, unknown> | null {
  if (!referral) return null;
  const { source_type, source_id, source_url, headline, body, media_type, ctwa_clid, image_url, video_url, thumbnail_url } = referral;
  return { source_type, source_id, source_url, headline, body, media_type, ctwa_clid, image_url, video_url, thumbnail_url };
}

/** What a customer's message is recorded under in the conversation: its provider id, once per message. */
const INBOUND_KEY_PREFIX = 'wa-in:';

/** The provider's id of a customer message recorded by receiveInbound, from the turn's dedupe key; null for any other turn. */
export function inboundProviderMessageId(dedupeKey: string): string | null {
  return dedupeKey.startsWith(INBOUND_KEY_PREFIX) ? dedupeKey.slice(INBOUND_KEY_PREFIX.length) : null;
}

export async function receiveInbound(
  deps: InboundDeps,
  message: InboundMessage,
): Promise<{ conversationId: string; messageId: string; optedOut: boolean }> {
  const from = `+${phoneDigits(message.from)}`;
  const customer = message.profileName ? { phone: from, name: message.profileName } : { phone: from };
  const turn = await recordTurn(deps, {
    tenantId: message.tenantId,
    channel: 'whatsapp',
    customer,
    role: 'user',
    text: message.text,
    at: message.at,
    dedupeKey: `${INBOUND_KEY_PREFIX}${message.providerMessageId}`,
    acquisition: message.referral ? { ctwa: ctwaFromReferral(message.referral, message.at) } : null,
  });
  await openWindow(deps.db, { tenantId: message.tenantId, senderId: message.senderId, customer: from, at: message.at });
  const optedOut = isOptOutReply(message.text);
  if (optedOut) {
    await recordOptOut(deps.db, { tenantId: message.tenantId, phone: from, sourceMessageId: message.providerMessageId, at: message.at });
  }
  await deps.events.publish({
    tenantId: message.tenantId,
    type: 'message.received',
    dedupeKey: `message.received:${message.providerMessageId}`,
    createdAt: message.at,
    data: {
      message_id: message.providerMessageId,
      conversation_id: turn.conversationId,
      channel: 'whatsapp',
      from,
      to: message.senderPhone,
      sender_id: message.senderId,
      profile_name: message.profileName ?? null,
      type: message.type,
      text: message.text,
      referral: referralData(message.referral),
      received_at: message.at.toISOString(),
    },
  });
  // Last: everything a reaction reads (the turn, the window, the opt-out) is recorded by now.
  await inboundReceived(deps.inboundHooks, deps, {
    tenantId: message.tenantId,
    senderId: message.senderId,
    conversationId: turn.conversationId,
    messageId: turn.messageId,
    providerMessageId: message.providerMessageId,
    customerPhone: from,
    text: message.text,
    at: message.at,
    optedOut,
    ...(message.sender ? { sender: message.sender } : {}),
  });
  return { conversationId: turn.conversationId, messageId: turn.messageId, optedOut };
}

export interface EchoMessage {
  tenantId: string;
  senderId: string;
  senderPhone: string;
  /** The customer the team member wrote to. */
  to: string;
  providerMessageId: string;
  /** `sent` adds a team turn to the conversation; edits and deletes are only announced. */
  action: 'sent' | 'edited' | 'deleted';
  type: string;
  text: string | null;
  at: Date;
}

/** A message a team member sent, edited or deleted in the business app: `message.echo`. */
export async function receiveEcho(deps: MessagingDeps, echo: EchoMessage): Promise<{ conversationId: string | null }> {
  const to = `+${phoneDigits(echo.to)}`;
  let conversationId: string | null = null;
  if (echo.action === 'sent') {
    const turn = await recordTurn(deps, {
      tenantId: echo.tenantId,
      channel: 'whatsapp',
      customer: { phone: to },
      role: 'human',
      text: echo.text,
      at: echo.at,
      dedupeKey: `wa-echo:${echo.providerMessageId}`,
    });
    conversationId = turn.conversationId;
  }
  await deps.events.publish({
    tenantId: echo.tenantId,
    type: 'message.echo',
    dedupeKey: `message.echo:${echo.providerMessageId}:${echo.action}:${echo.at.getTime()}`,
    createdAt: echo.at,
    data: {
      message_id: echo.providerMessageId,
      action: echo.action,
      conversation_id: conversationId,
      channel: 'whatsapp',
      from: echo.senderPhone,
      to,
      sender_id: echo.senderId,
      type: echo.type,
      text: echo.text,
      echoed_at: echo.at.toISOString(),
    },
  });
  return { conversationId };
}
