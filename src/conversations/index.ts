/** What other features use to put turns into conversations (messaging's inbound and sends write their turns through these). */
export { recordTurn, recordTurnsOfConversation, ensureConversation, firstTurnDocuments, startedEvent, turnKeysCollection, type ConversationDeps, type RecordTurnInput, type RecordTurnResult } from './recordTurn';
export { writeRecentEntries, writeTranscriptEntries } from './conversationEntries';
export { recordCallConversation, type CallTurn, type RecordCallInput } from './recordCall';
export {
  conversationIdFor,
  conversationsCollection,
  conversationMessagesCollection,
  findConversation,
  phoneDigits,
  type ConversationChannel,
  type ConversationDoc,
  type ConversationMessageDoc,
  type Customer,
  type Ctwa,
  type TurnKind,
  type TurnRole,
} from './store';
