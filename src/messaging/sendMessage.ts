import type { Db } from 'mongodb';
import { Refusal } from '../domain/refusal';
import { recordTurn } from '../conversations/recordTurn';
import { collections, type TemplateDoc } from '../db/collections';
import type { EventPublisher } from '../events/publisher';
import type { Logger } from '../observability/logger';
import type { ProviderErrorDetails, SendRequest, WhatsAppProvider } from '../providers/whatsapp/provider';
import { SEND_RETRY_POLICY, sendWithRetries, type RetryPolicy } from '../providers/whatsapp/retry';
import { allowanceLeft, consumeConversation, refundConversation, type AllowanceSource } from './allowance';
import { markdownToWhatsApp } from './markdown';
import { isSuppressed } from './optOut';
import { outboundMessagesCollection } from './outboundMessages';
import { resolveSender } from './senders';
import { windowOpen } from './sessionWindow';
import { selectTemplateVariant } from './templateLanguage';
import {
  TemplateVariablesError,
  renderTemplateText,
  resolveTemplateVariables,
  type TemplateVariablesInput,
} from './templateVariables';

/**
 * Sending one WhatsApp message for a workspace: every guard of POST /messages in one order,
 * the allowance, the provider with retries, and the record of what was sent (the outbound
 * message for delivery statuses, and a turn in the customer's conversation).
 *
 * Guard order (docs/decisions.md), mirroring the contract's order for calls: empty message,
 * channel not on the deployment, workspace suspended, allowance exhausted, channel dormant,
 * sender not connected, recipient suppressed, template not found, template media missing,
 * template variables, session window closed; then the billable conversation is taken, the
 * provider is tried, and a refusal gives the conversation back.
 */

export type SendRefusalReason =
  | 'empty_message'
  | 'unsupported_channel'
  | 'workspace_suspended'
  | 'allowance_exhausted'
  | 'channel_dormant'
  | 'channel_not_connected'
  | 'suppressed'
  | 'template_not_found'
  | 'template_media_missing'
  | 'template_variables'
  | 'session_window_closed'
  | 'provider_error';

/** Why a message was not sent; `api/refusals.ts` gives each reason its status. */
export class SendRefusal extends Refusal<SendRefusalReason> {
  override readonly name = 'SendRefusal';
}

/** Names the provider at the start of every provider refusal (api-core §7). */
export const PROVIDER_REFUSAL_PREFIX = 'WhatsApp provider refused the message';

export interface SendMessageDeps {
  db: Db;
  events: EventPublisher;
  provider: WhatsAppProvider;
  /** Channels this deployment offers (DEPLOYMENT_CHANNELS). */
  deploymentChannels: readonly string[];
  now: () => Date;
  retry?: RetryPolicy;
  logger?: Logger;
}

export interface TemplateRequest extends TemplateVariablesInput {
  name: string;
  language?: string | null;
}

export interface SendMessageInput {
  tenantId: string;
  /** `^\+?\d+$`, 6 to 20 characters (checked by the caller's schema). */
  to: string;
  text?: string | null;
  template?: TemplateRequest | null;
  senderId?: string | null;
  metadata?: Record<string, unknown>;
}

export interface SendMessageResult {
  message_id: string;
  channel: 'whatsapp';
  to: string;
  status: 'sent';
  conversation_id: string;
}

interface Prepared {
  request: SendRequest;
  transcriptText: string;
  template: { name: string; language: string } | null;
}

async function findTemplate(db: Db, tenantId: string, template: TemplateRequest): Promise<TemplateDoc> {
  const variants = await collections(db).templates.find({ tenant_id: tenantId, name: template.name }).toArray();
  const chosen = selectTemplateVariant(variants, template.language);
  if (!chosen) throw new SendRefusal('template_not_found', `No approved template named ${template.name}.`);
  return chosen;
}

function prepareTemplate(found: TemplateDoc, template: TemplateRequest): Omit<Prepared, 'request'> & { message: SendRequest['message'] } {
  const header = found.header;
  if (header && header.type !== 'text' && !header.media_url) {
    throw new SendRefusal(
      'template_media_missing',
      `Template ${found.name} (${found.language}) has a${header.type === 'image' ? 'n image' : ' video'} header with no file attached.`,
    );
  }
  let values;
  try {
    values = resolveTemplateVariables(found, template);
  } catch (err) {
    if (!(err instanceof TemplateVariablesError)) throw err;
    throw new SendRefusal('template_variables', err.message, { component: err.component, ...(err.counts ?? {}) });
  }
  return {
    message: {
      type: 'template',
      name: found.name,
      language: found.language,
      header:
        header === null
          ? null
          : header.type === 'text'
            ? { type: 'text', values: values.header }
            : { type: header.type, link: header.media_url! },
      body: values.body,
      buttons: values.buttons,
    },
    transcriptText: renderTemplateText(found, values),
    template: { name: found.name, language: found.language },
  };
}

export async function sendWhatsAppMessage(deps: SendMessageDeps, input: SendMessageInput): Promise<SendMessageResult> {
  const { db } = deps;
  const to = `+${input.to.replace(/^\+/, '')}`;
  const template = input.template ?? null;
  if (!template && (input.text === undefined || input.text === null || input.text === '')) {
    throw new SendRefusal('empty_message', 'Send text or a template: the message is empty.');
  }
  if (!deps.deploymentChannels.includes('whatsapp')) {
    throw new SendRefusal('unsupported_channel', 'WhatsApp is not available on this deployment.', { supported: [...deps.deploymentChannels] });
  }
  const workspace = await collections(db).workspaces.findOne({ _id: input.tenantId });
  if (!workspace || workspace.suspended) {
    throw new SendRefusal('workspace_suspended', 'This workspace is suspended for billing; nothing was sent.');
  }
  if (!allowanceLeft(workspace.plan)) {
    throw new SendRefusal('allowance_exhausted', "The plan's conversations for this month are used up and there are no prepaid credits.");
  }
  if (!workspace.plan.chat_channel) {
    throw new SendRefusal('channel_dormant', 'The plan no longer includes the WhatsApp channel.');
  }
  const sender = await resolveSender(db, input.tenantId, input.senderId);
  if (!sender.ok) throw new SendRefusal('channel_not_connected', sender.message);
  if (await isSuppressed(db, input.tenantId, to)) {
    throw new SendRefusal('suppressed', `${to} opted out by replying STOP; nothing can be sent to this number.`);
  }

  let prepared: Prepared;
  const base = { tenantId: input.tenantId, senderId: sender.sender._id, from: sender.sender.phone, to };
  if (template) {
    const { message, ...rest } = prepareTemplate(await findTemplate(db, input.tenantId, template), template);
    prepared = { request: { ...base, message }, ...rest };
  } else {
    if (!(await windowOpen(db, { tenantId: input.tenantId, senderId: sender.sender._id, customer: to }, deps.now()))) {
      throw new SendRefusal('session_window_closed', `The 24-hour window with ${to} is closed; send a template instead.`);
    }
    const text = markdownToWhatsApp(input.text!);
    prepared = { request: { ...base, message: { type: 'text', text } }, transcriptText: text, template: null };
  }

  let billed: AllowanceSource | null = null;
  if (template) {
    const taken = await consumeConversation(db, input.tenantId);
    if (!taken.ok) {
      throw taken.reason === 'workspace_suspended'
        ? new SendRefusal('workspace_suspended', 'This workspace is suspended for billing; nothing was sent.')
        : new SendRefusal('allowance_exhausted', "The plan's conversations for this month are used up and there are no prepaid credits.");
    }
    billed = taken.source;
  }

  let attempt;
  try {
    attempt = await sendWithRetries(deps.provider, prepared.request, deps.retry ?? SEND_RETRY_POLICY);
  } catch (err) {
    if (billed) await refundConversation(db, input.tenantId, billed);
    throw err;
  }
  if (!attempt.ok) {
    if (billed) await refundConversation(db, input.tenantId, billed);
    throw providerRefusal(attempt.error);
  }

  const now = deps.now();
  const turn = await recordTurn(deps, {
    tenantId: input.tenantId,
    channel: 'whatsapp',
    customer: { phone: to },
    role: 'human',
    text: prepared.transcriptText,
    at: now,
    dedupeKey: `wa-out:${attempt.messageId}`,
  });
  await outboundMessagesCollection(db).insertOne({
    _id: attempt.messageId,
    tenant_id: input.tenantId,
    provider: deps.provider.name,
    sender_id: sender.sender._id,
    to,
    conversation_id: turn.conversationId,
    transcript_message_id: turn.messageId,
    kind: template ? 'template' : 'text',
    template: prepared.template,
    metadata: input.metadata ?? {},
    billed,
    status: 'sent',
    status_at: now,
    created_at: now,
  });
  try {
    await deps.provider.accepted?.(prepared.request, attempt.messageId);
  } catch (err) {
    // The message went out; failing the request now would invite a second send.
    deps.logger?.warn({ err, messageId: attempt.messageId }, 'provider was not told of an accepted message');
  }
  return { message_id: attempt.messageId, channel: 'whatsapp', to, status: 'sent', conversation_id: turn.conversationId };
}

function providerRefusal(error: ProviderErrorDetails): SendRefusal {
  const said = (error.provider_message ?? 'no reason given').replace(/\.+$/, '');
  const code = error.provider_code === null ? '' : ` (code ${error.provider_code})`;
  return new SendRefusal('provider_error', `${PROVIDER_REFUSAL_PREFIX}: ${said}${code}.`, { ...error });
}
