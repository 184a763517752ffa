import type { Db } from 'mongodb';
import { CALL_INDEXES } from '../calls/callStore';
import { CAMPAIGN_INDEXES } from '../campaigns/campaign';
import { CONVERSATION_INDEXES } from '../conversations/store';
import { ensureIndexes, type IndexSet } from '../db/collections';
import { DUES_INDEXES } from '../dues/store';
import { LINE_CALL_INDEXES } from '../calls/line/lineCalls';
import { LINE_TURN_INDEXES } from '../calls/line/lineTurns';
import { OUTBOUND_MESSAGE_INDEXES } from '../messaging/outboundMessages';
import { TICKET_INDEXES } from '../tickets/ticketStore';

/**
 * Every feature's indexes, each declared beside its own store: src/db knows only the
 * platform's collections, and a new feature adds its set here, where every process starts.
 */
export const FEATURE_INDEXES: readonly IndexSet[] = [CALL_INDEXES, CONVERSATION_INDEXES, TICKET_INDEXES, CAMPAIGN_INDEXES, DUES_INDEXES, LINE_CALL_INDEXES, LINE_TURN_INDEXES, OUTBOUND_MESSAGE_INDEXES];

/** The platform's indexes and every feature's; safe to run at each start. */
export const ensureEveryIndex = (db: Db): Promise<void> => ensureIndexes(db, FEATURE_INDEXES);
