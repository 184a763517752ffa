/** What other features use of messaging: sending a WhatsApp message (one send or a batch's), send intents, the conversation hold, opt-outs, senders, templates, delivery statuses; the WhatsApp sender a provider adapter implements (`whatsAppSender.ts`). */
export { type AcceptedSendRecords, groupAcceptedSendRecords } from './acceptedSendRecords';
export { allowanceLeft } from './allowance';
export { type ConversationHoldDoc, type HeldConversations, settleConversationHold, settleOrphanedHolds, takeConversationHold } from './conversationHold';
export { type StatusReached } from './deliveryStatus';
export { outboundStatuses } from './outboundMessages';
export { suppressedAmong, suppressedNumbers } from './optOut';
export { agentSendIntentKey, agentToolSendIntentKey, campaignSendIntentKey, dueReceiptSendIntentKey, dueReminderSendIntentKey, type SendIntentDoc, sendIntentsCollection } from './sendIntents';
export { checkedSender, lookUpSendChecks, type SendChecked, type SendStanding, SendOutcomeUnknown, SendRefusal, type SendRefusalReason, sendWhatsAppMessage, type SendMessageDeps, type TemplateRequest } from './sendMessage';
export { resolveSender } from './senders';
export { SESSION_WINDOW_MS, windowOpen, windowOpenUntil } from './sessionWindow';
export { selectTemplateVariant } from './templateLanguage';
export { normaliseVariable, placeholderNumbers } from './templateVariables';
export { isRetryable, type ProviderErrorDetails, type ReadMark, type SendAttempt, type SendRequest, type WhatsAppProvider } from './whatsAppSender';
export { isSuppressed } from './optOut';
export { SendInProgress } from './sendMessage';
export { type InboundHook, type InboundHookDeps, type InboundHooks, type InboundReceived } from './inboundHooks';
export { inboundProviderMessageId } from './inbound';
