import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { Refusal } from '../domain/refusal';
import { recordTurn, recordTurnsOfConversation, type RecordTurnInput, conversationIdFor, phoneDigits } from '../conversations';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { keepRenewing } from '../db/leaseRenewal';
import { LIMITS } from '../domain/limits';
import { collections, type SenderDoc, type TemplateDoc, type WorkspaceDoc } from '../db/collections';
import type { EventPublisher } from '../events';
import type { Logger } from '../observability/logger';
import { callbackDataOf, type ProviderErrorDetails, type SendRequest, type WhatsAppProvider } from './whatsAppSender';
import { SEND_RETRY_POLICY, sendWithRetries, type RetryPolicy } from './sendRetry';
import { allowanceLeft, consumeConversation, refundConversation, type AllowanceSource } from './allowance';
import type { HeldConversations } from './conversationHold';
import { applyParkedStatuses } from './earlyStatuses';
import { markdownToWhatsApp } from './markdown';
import { isSuppressed } from './optOut';
import { outboundMessagesCollection, storedOrigin, type OutboundMessageDoc, type SendOrigin } from './outboundMessages';
import { claimSendIntent, isOneOffSendIntentKey, sendIntentsCollection, type SendIntentDoc } from './sendIntents';
import { resolveSender, type SenderResolution } from './senders';
import { claimRefund, keepCharge, refundUnknownOutcome } from './unknownOutcomeRefunds';
import { adoptResolvedSend } from './unknownOutcomes';
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
 * Guard order (docs/decisions/README.md), mirroring the contract's order for calls: empty message,
 * channel not on the deployment, workspace suspended, allowance exhausted, channel dormant,
 * sender not connected, recipient suppressed, template not found, template media missing,
 * template variables, session window closed; then the billable conversation is taken, the
 * send's intent is recorded with it, the provider is tried, and a refusal gives the
 * conversation back. Record first (src/messaging/sendIntents.ts): no
 * failure after the provider's answer can send twice or leave a charge unrecorded.
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
  /** Already validated by src/domain/metadata.ts. */
  metadata?: Record<string, unknown>;
  /**
   * The send's key (src/messaging/sendIntents.ts): a retry of the same send passes the same
   * key and is answered from the intent record instead of sending again.
   */
  intentKey: string;
  /** What the send is on behalf of, when not a direct API send (a campaign's recipient). */
  origin?: SendOrigin | null;
  /** Who the transcript turn is from: `model` for a chat agent's reply; `human` (a team member, the business) by default. */
  transcriptRole?: 'model' | 'human';
  /** The team member's name on the transcript turn (a reply from the console inbox). */
  transcriptAuthor?: string | null;
  /**
   * What the caller already checked or read for this send, so the send does not read it again;
   * each is still refused at its usual place in the guard order. Absent: everything is read here.
   */
  checked?: SendChecked;
  /**
   * The send's intent as the caller already read it (a campaign batch reads its recipients'
   * intents in one read): null when there was none, absent to look it up here.
   */
  earlierIntent?: SendIntentDoc | null;
  /**
   * Takes the records of the accepted send (its intent already `sent`) to write later with
   * others (src/messaging/acceptedSendRecords.ts); absent: written before this answers.
   */
  recordLater?: (intent: SendIntentDoc) => Promise<void>;
  /**
   * Turns of the same conversation recorded in one write with the send's own turn, before it
   * (a chat agent's trail rows and its reply): the conversation must exist already (the
   * customer wrote). Kept on the intent, so whoever records the send (a retry, or a status
   * adopting it) records them too. Absent: the send's turn alone, through `recordTurn`.
   */
  turnsAlongside?: RecordTurnInput[];
}

/**
 * What a send's caller checked before it: a campaign batch, once for all its sends
 * (`lookUpSendChecks`, its hold and standing); a chat agent's turn, moments before its reply
 * (the sender and the window, src/agents/turns.ts). Each part absent is read by the send.
 */
export interface SendChecked {
  /** The sender as the caller resolved it; a refusal is refused at the sender's place. */
  sender: SenderResolution;
  /** The template variant (null: none approved); absent: a template send looks it up. */
  template?: TemplateDoc | null;
  /**
   * Until when the caller found the 24-hour window with the recipient open: the window only
   * moves later, so a text sent before it is inside; past it the window is read as usual.
   */
  windowOpenUntil?: Date;
  /**
   * The batch's conversations taken from the plan at its start (src/messaging/conversationHold.ts):
   * a template send takes from it instead of the plan while it lasts, then from the plan as always.
   */
  hold?: HeldConversations | null;
  /**
   * The workspace and the recipients' opt-outs as the caller read them moments ago (a campaign
   * batch, at most CAMPAIGN_CONTROL_CHECK_MS old), checked at their usual places in the guard
   * order instead of two reads a send; absent: read here. The opt-out of a send without it is
   * read whatever else was checked: a STOP in between still stops the send.
   */
  standing?: SendStanding;
}

/** What a batch's sends are checked against: its workspace, and which of its recipients opted out. */
export interface SendStanding {
  workspace: WorkspaceDoc | null;
  /** Opted-out numbers among the batch's recipients, `+` and digits; a number not asked about is read. */
  suppressed: ReadonlySet<string>;
  /** The numbers `suppressed` answers for. */
  asked: ReadonlySet<string>;
}

/**
 * Looks up once what a campaign batch's sends share: the sender and the template variant. Up
 * to one batch stale (a batch lasts seconds to about a minute): a sender disconnected or a
 * template changed mid-batch is seen by the next batch (docs/decisions/campaigns.md, "A
 * campaign batch looks up its sender and template once").
 */
export async function lookUpSendChecks(db: Db, tenantId: string, senderId: string | null, template: TemplateRequest): Promise<SendChecked & { template: TemplateDoc | null }> {
  const [sender, variants] = await Promise.all([resolveSender(db, tenantId, senderId), templateVariants(db, tenantId, template.name)]);
  return { sender, template: selectTemplateVariant(variants, template.language) };
}

export interface SendMessageResult {
  message_id: string;
  channel: 'whatsapp';
  to: string;
  status: 'sent';
  conversation_id: string;
}

/** An earlier attempt of the same send is still running; retry shortly. */
export class SendInProgress extends Error {
  constructor() {
    super('An earlier attempt of this send is still running; retry shortly.');
    this.name = 'SendInProgress';
  }
}

/**
 * An earlier attempt of the same send stopped between writing its intent and recording the
 * provider's answer: the message may have gone out, so it is not sent again.
 */
export class SendOutcomeUnknown extends Error {
  constructor() {
    super('An earlier attempt of this send stopped before its outcome was recorded; it may have gone out, so it is not sent again.');
    this.name = 'SendOutcomeUnknown';
  }
}

/**
 * How long a `sending` intent holds without a renewal: the Idempotency-Key's lease, so a retry
 * of a send whose process died hears the outcome is unknown about as soon as the key itself
 * is free, not after a minute of 409s. A live attempt renews it every fifth of this while the
 * provider is called, however long its attempts and their timeouts take.
 */
export const SEND_INTENT_LEASE_MS = LIMITS.idempotencyLeaseSeconds * 1000;
const SEND_INTENT_RENEW_MS = SEND_INTENT_LEASE_MS / 5;

interface Prepared {
  request: SendRequest;
  transcriptText: string;
  template: { name: string; language: string } | null;
}

function templateVariants(db: Db, tenantId: string, name: string): Promise<TemplateDoc[]> {
  return collections(db).templates.find({ tenant_id: tenantId, name }).toArray();
}

async function findTemplate(db: Db, tenantId: string, template: TemplateRequest, checked: SendChecked | undefined): Promise<TemplateDoc> {
  const chosen = checked?.template !== undefined ? checked.template : selectTemplateVariant(await templateVariants(db, tenantId, template.name), template.language);
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
  // An earlier attempt of this send answers first: its charge may have spent the last
  // conversation, and the guards must not refuse what already went out.
  const intents = sendIntentsCollection(db);
  const earlier =
    input.earlierIntent !== undefined ? input.earlierIntent : isOneOffSendIntentKey(input.intentKey) ? null : await intents.findOne({ _id: input.intentKey });
  if (earlier) return resume(deps, input, earlier);

  const to = `+${input.to.replace(/^\+/, '')}`;
  const template = input.template ?? null;
  if (!template && (input.text === undefined || input.text === null || input.text === '')) {
    throw new SendRefusal('empty_message', 'Send text or a template: the message is empty.');
  }
  if (!deps.deploymentChannels.includes('whatsapp')) {
    throw new SendRefusal('unsupported_channel', 'WhatsApp is not available on this deployment.', { supported: [...deps.deploymentChannels] });
  }
  const checked = input.checked;
  const standing = checked?.standing;
  const workspace = standing ? standing.workspace : await collections(db).workspaces.findOne({ _id: input.tenantId });
  if (!workspace || workspace.suspended) {
    throw new SendRefusal('workspace_suspended', 'This workspace is suspended for billing; nothing was sent.');
  }
  // A batch's hold counts as left: the workspace shows its conversations as used already.
  if (!allowanceLeft(workspace.plan) && !(template && checked?.hold?.available())) {
    throw new SendRefusal('allowance_exhausted', "The plan's conversations for this month are used up and there are no prepaid credits.");
  }
  if (!workspace.plan.chat_channel) {
    throw new SendRefusal('channel_dormant', 'The plan no longer includes the WhatsApp channel.');
  }
  const sender = checked?.sender ?? (await resolveSender(db, input.tenantId, input.senderId));
  if (!sender.ok) throw new SendRefusal('channel_not_connected', sender.message);
  if (standing?.asked.has(to) ? standing.suppressed.has(to) : await isSuppressed(db, input.tenantId, to)) {
    throw new SendRefusal('suppressed', `${to} opted out by replying STOP; nothing can be sent to this number.`);
  }

  let prepared: Prepared;
  const base = { tenantId: input.tenantId, senderId: sender.sender._id, from: sender.sender.phone, to, ...callbackDataOf(input.intentKey) };
  if (template) {
    const { message, ...rest } = prepareTemplate(await findTemplate(db, input.tenantId, template, checked), template);
    prepared = { request: { ...base, message }, ...rest };
  } else {
    const knownOpen = checked?.windowOpenUntil !== undefined && deps.now() < checked.windowOpenUntil;
    if (!knownOpen && !(await windowOpen(db, { tenantId: input.tenantId, senderId: sender.sender._id, customer: to }, deps.now()))) {
      throw new SendRefusal('session_window_closed', `The 24-hour window with ${to} is closed; send a template instead.`);
    }
    const text = markdownToWhatsApp(input.text!);
    prepared = { request: { ...base, message: { type: 'text', text } }, transcriptText: text, template: null };
  }

  // Taken before the intent is written, so a send refused for the allowance (the usual
  // loser of parallel sends) costs no intent writes while the plan lease is contended.
  let billed: AllowanceSource | null = null;
  const hold = (template && checked?.hold) || null;
  const fromHold = hold?.take() ?? null;
  if (fromHold) billed = fromHold;
  else if (template) {
    const taken = await consumeConversation(db, input.tenantId);
    if (!taken.ok) {
      throw taken.reason === 'workspace_suspended'
        ? new SendRefusal('workspace_suspended', 'This workspace is suspended for billing; nothing was sent.')
        : new SendRefusal('allowance_exhausted', "The plan's conversations for this month are used up and there are no prepaid credits.");
    }
    billed = taken.source;
  }
  const giveBack = async () => {
    if (fromHold) hold!.giveBack(fromHold);
    else if (billed) await refundConversation(db, input.tenantId, billed);
  };

  const now = deps.now();
  const intent: SendIntentDoc = {
    _id: input.intentKey,
    tenant_id: input.tenantId,
    state: 'sending',
    owner: randomUUID(),
    lease_until: new Date(now.getTime() + SEND_INTENT_LEASE_MS),
    billed,
    ...(fromHold ? { hold_id: hold!.record.id } : {}),
    request: prepared.request,
    transcript_text: prepared.transcriptText,
    ...(input.transcriptRole ? { transcript_role: input.transcriptRole } : {}),
    ...(input.transcriptAuthor ? { transcript_author: input.transcriptAuthor } : {}),
    ...(input.turnsAlongside ? { turns_alongside: input.turnsAlongside } : {}),
    kind: template ? 'template' : 'text',
    template: prepared.template,
    metadata: input.metadata ?? {},
    ...storedOrigin(input.origin ?? null),
    provider: deps.provider.name,
    message_id: null,
    sent_at: null,
    created_at: now,
    updated_at: now,
  };
  let claimed;
  try {
    claimed = await claimSendIntent(db, intent);
  } catch (err) {
    await giveBack();
    throw err;
  }
  if (!claimed) {
    // A parallel attempt of the same send got there first: this one takes nothing.
    await giveBack();
    return resume(deps, input, await intents.findOne({ _id: input.intentKey }));
  }

  let attempt;
  // Until when this attempt surely held its intent: past it, a retry may have found the outcome unknown.
  let heldUntil = intent.lease_until;
  const renewal = keepRenewing(
    async () => {
      const until = new Date(deps.now().getTime() + SEND_INTENT_LEASE_MS);
      const held = (await intents.updateOne({ _id: intent._id, owner: intent.owner, state: 'sending' }, { $set: { lease_until: until } })).matchedCount > 0;
      if (held) heldUntil = until;
      return held;
    },
    SEND_INTENT_RENEW_MS,
    (problem) => deps.logger?.warn({ intent: intent._id, ...(problem.lost ? {} : { err: problem.err }) }, problem.lost ? 'send intent lost while its provider call ran' : 'send intent lease renewal failed'),
  );
  try {
    attempt = await sendWithRetries(deps.provider, prepared.request, deps.retry ?? SEND_RETRY_POLICY);
  } catch (err) {
    await renewal.stop();
    await abandonIntent(db, intent, giveBack, heldUntil, deps.now());
    throw err;
  }
  // Stopped before the next write to the intent, which must be the last (src/db/leaseRenewal.ts).
  await renewal.stop();
  if (!attempt.ok) {
    await abandonIntent(db, intent, giveBack, heldUntil, deps.now());
    throw providerRefusal(attempt.error);
  }

  // The one write between the provider's answer and a record of it: from here on, no retry sends again.
  const sentAt = deps.now();
  // Accepted after this attempt's lease may have run out: a retry may have found the outcome
  // unknown meanwhile and given the charge back. The send keeps its charge, or takes it again
  // once, under the same claim an adoption takes (one insert, only for a stalled attempt).
  if (sentAt.getTime() >= heldUntil.getTime()) await keepCharge(db, intent, sentAt, deps.logger);
  const sent: SendIntentDoc = { ...intent, state: 'sent', message_id: attempt.messageId, sent_at: sentAt, updated_at: sentAt };
  await intents.updateOne({ _id: intent._id }, { $set: { state: 'sent', message_id: attempt.messageId, sent_at: sentAt, updated_at: sentAt } });
  if (input.recordLater) {
    // The records may lag this answer; an intent `sent` without them is finished by any later attempt (resume).
    await input.recordLater(sent);
    return sentResult(sent, conversationIdFor(sent.tenant_id, 'whatsapp', phoneDigits(sent.request.to)));
  }
  return finishRecording(deps, sent);
}

/** A sender the caller read (a chat agent's turn): refused as `resolveSender` refuses a named one. */
export function checkedSender(sender: SenderDoc, tenantId: string): SenderResolution {
  if (sender.tenant_id !== tenantId) return { ok: false, message: `Sender ${sender._id} is not a sender of this workspace.` };
  if (!sender.connected) return { ok: false, message: `Sender ${sender._id} is not connected.` };
  return { ok: true, sender };
}

/** What an earlier attempt of the same send left: its result, its unfinished records, or a refusal to send again. */
async function resume(deps: SendMessageDeps, input: SendMessageInput, intent: SendIntentDoc | null): Promise<SendMessageResult> {
  if (!intent || intent.tenant_id !== input.tenantId) throw new Error(`send intent ${input.intentKey} vanished or belongs to another workspace`);
  if (intent.state === 'sent') {
    // The outbound record is the last one written: when it exists, the send is fully recorded.
    const recorded = await outboundMessagesCollection(deps.db).findOne({ _id: intent.message_id! });
    if (recorded && recorded.tenant_id === intent.tenant_id) return sentResult(intent, recorded.conversation_id);
    return finishRecording(deps, intent, input.turnsAlongside);
  }
  if (intent.lease_until > deps.now()) throw new SendInProgress();
  // The provider's status may have named the send meanwhile (src/messaging/unknownOutcomes.ts): it went out.
  const finish = (sent: SendIntentDoc) => finishRecording(deps, sent, input.turnsAlongside);
  const adopted = await adoptResolvedSend(deps, intent, finish);
  if (adopted) return adopted;
  // Else it ends failed with no message: its charge is given back (once, however many retries
  // say so), unless a status found it sent in the meantime (its claim `kept`). A text send takes
  // the same claim with nothing to give back: a status adopting it in this instant wins or loses
  // on that one insert, never on which of two reads came first.
  if ((await refundUnknownOutcome(deps.db, intent, deps.now())) === 'kept') {
    const late = await adoptResolvedSend(deps, intent, finish);
    if (late) return late;
  }
  throw new SendOutcomeUnknown();
}

/**
 * Nothing went out (a refusal, or a failure before the provider accepted): the conversation
 * taken is given back and the intent removed, so a retry sends afresh. An attempt stalled
 * past its lease (less a renewal's interval, for the clocks of other processes) may have been
 * declared of unknown outcome meanwhile, its charge given back then: it takes the same claim,
 * so only one of the two gives it back. An attempt that held its lease writes no claim.
 */
async function abandonIntent(db: Db, intent: SendIntentDoc, giveBack: () => Promise<void>, heldUntil: Date, now: Date): Promise<void> {
  const mayHaveLapsed = now.getTime() >= heldUntil.getTime() - SEND_INTENT_RENEW_MS;
  const ours = !intent.billed || !mayHaveLapsed || (await claimRefund(db, intent, now));
  // Removed before the charge goes back: if the database refuses the removal (it is restarting),
  // the intent stays `sending` with its charge, and the retry that finds it gives the charge back
  // once. Given back first, that retry gave it back a second time (the kill test's FerretDB kill).
  await sendIntentsCollection(db).deleteOne({ _id: intent._id });
  if (ours) await giveBack();
}

/** What recording an accepted send needs: the provider only to be told it was recorded (`accepted`). */
export type RecordingDeps = Pick<SendMessageDeps, 'db' | 'events' | 'logger'> & { provider: Pick<WhatsAppProvider, 'accepted'> };

/**
 * The records of an accepted message: its turn in the customer's conversation (with the turns
 * its intent carries alongside, in the same write) and the outbound message that delivery
 * statuses join on (written last, so its presence says the send is fully recorded). Each step
 * is idempotent (keyed by the provider's message id and the turns' keys), so any attempt that
 * finds the intent `sent` without its outbound message may finish it, and a status adopting the
 * send (src/messaging/unknownOutcomes.ts) writes the same records its own attempt would have.
 * `turnsAlongside` is for intents written before they carried their own.
 */
export async function finishRecording(deps: RecordingDeps, intent: SendIntentDoc, turnsAlongside?: RecordTurnInput[]): Promise<SendMessageResult> {
  const alongside = intent.turns_alongside ?? turnsAlongside;
  const turn = alongside ? (await recordTurnsOfConversation(deps, [...alongside, turnOf(intent)])).at(-1)! : await recordTurn(deps, turnOf(intent));
  await insertIfAbsent<OutboundMessageDoc>(outboundMessagesCollection(deps.db), outboundMessageOf(intent, turn));
  await applyEarlyStatuses(deps, [intent.message_id!]);
  await tellProviderAccepted(deps, intent);
  return sentResult(intent, turn.conversationId);
}

/** The outbound message record of a `sent` intent whose turn is recorded. */
export function outboundMessageOf(intent: SendIntentDoc, turn: { conversationId: string; messageId: string }): OutboundMessageDoc {
  const at = intent.sent_at!;
  return {
    _id: intent.message_id!,
    tenant_id: intent.tenant_id,
    provider: intent.provider,
    sender_id: intent.request.senderId,
    to: intent.request.to,
    conversation_id: turn.conversationId,
    transcript_message_id: turn.messageId,
    kind: intent.kind,
    template: intent.template,
    metadata: intent.metadata,
    campaign_id: intent.campaign_id ?? null,
    campaign_recipient_id: intent.campaign_recipient_id ?? null,
    billed: intent.billed,
    status: 'sent',
    status_at: at,
    created_at: at,
  };
}

/**
 * After the outbound records exist: the statuses the provider reported before them, parked
 * by its webhook (src/messaging/earlyStatuses.ts), are applied now. Only a provider that
 * reports statuses on its own (not after `accepted`) can have any. A failure is logged, not
 * thrown: the message went out, and the worker's retention pass applies what is left.
 */
export async function applyEarlyStatuses(deps: RecordingDeps, messageIds: readonly string[]): Promise<void> {
  if (deps.provider.accepted) return;
  try {
    await applyParkedStatuses(deps, messageIds);
  } catch (err) {
    deps.logger?.warn({ err, messageIds }, 'early statuses of sent messages not applied; the retention pass applies them');
  }
}

/** After the outbound record exists (the simulator's statuses join on it). */
export async function tellProviderAccepted(deps: Pick<RecordingDeps, 'provider' | 'logger'>, intent: SendIntentDoc): Promise<void> {
  const messageId = intent.message_id!;
  try {
    await deps.provider.accepted?.(intent.request, messageId);
  } catch (err) {
    // The message went out; failing the request now would invite a second send.
    deps.logger?.warn({ err, messageId }, 'provider was not told of an accepted message');
  }
}

/** The transcript turn of an accepted send. */
export function turnOf(intent: SendIntentDoc): RecordTurnInput {
  return {
    tenantId: intent.tenant_id,
    channel: 'whatsapp',
    customer: { phone: intent.request.to },
    role: intent.transcript_role ?? 'human',
    ...(intent.transcript_author ? { author: intent.transcript_author } : {}),
    text: intent.transcript_text,
    at: intent.sent_at!,
    arrivedAt: intent.sent_at!,
    dedupeKey: `wa-out:${intent.message_id!}`,
  };
}

function sentResult(intent: SendIntentDoc, conversationId: string): SendMessageResult {
  return { message_id: intent.message_id!, channel: 'whatsapp', to: intent.request.to, status: 'sent', conversation_id: conversationId };
}

function providerRefusal(error: ProviderErrorDetails): SendRefusal {
  const said = (error.provider_message ?? 'no reason given').replace(/\.+$/, '');
  const code = error.provider_code === null ? '' : ` (code ${error.provider_code})`;
  return new SendRefusal('provider_error', `${PROVIDER_REFUSAL_PREFIX}: ${said}${code}.`, { ...error });
}
