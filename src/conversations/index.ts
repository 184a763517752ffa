/** What other features use to put turns into conversations. */
export { recordTurn, ensureConversation, type ConversationDeps, type RecordTurnInput, type RecordTurnResult } from './recordTurn';
export { recordCallConversation, type CallTurn, type RecordCallInput } from './recordCall';
export {
  conversationIdFor,
  conversationsCollection,
  conversationMessagesCollection,
  type ConversationChannel,
  type ConversationDoc,
  type ConversationMessageDoc,
  type Customer,
  type Ctwa,
  type TurnKind,
  type TurnRole,
} from './store';
