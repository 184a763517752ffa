import type { Db } from 'mongodb';
import { newCallDoc, type CallDoc } from '../../src/calls/callStore';
import { recordTurn, conversationsCollection, writeRecentEntries, type ConversationDoc } from '../../src/conversations';
import { backfillConversationEntries } from '../../src/conversations/conversationEntries';
import { backfillNameEntries } from '../../src/conversations/nameEntries';
import { BULK_WRITE_MAX } from '../../src/db/bulkWrite';
import { newId } from '../../src/domain/ids';
import { createEventPublisher } from '../../src/events/publisher';

/**
 * Calls and conversations many at once, as the list tests seed them: built in memory and
 * written straight into the stores, so a test controls their times and ids and can say which
 * keyed entries exist (none for calls: as if stored before the entries existed).
 */

/**
 * A call as the store holds it, placed by the workspace's agent at `at` (its id made from that
 * time, so ids sort as the times do), outbound and ringing; `over` sets what the test varies
 * (the status, an outcome, the step).
 */
export function storedCall(ws: { workspaceId: string; agentId: string }, at: Date, to: string, over: Partial<CallDoc> = {}): CallDoc {
  return {
    ...newCallDoc({
      _id: newId('call', at),
      tenant_id: ws.workspaceId,
      direction: 'outbound',
      status: 'ringing',
      to,
      from_number: '918000000000',
      agent_id: ws.agentId,
      requested_agent_id: null,
      deployment_id: 'dep_test',
      ring_seconds: 30,
      max_call_seconds: 600,
      recording: false,
      created_at: at,
    }),
    ...over,
  };
}

/** What recordTurn needs, with events stored and never dispatched (no endpoint listens in these tests). */
export function quietTurnDeps(db: Db) {
  return { db, events: createEventPublisher(db, { dispatch: async () => undefined }) };
}

/**
 * `count` WhatsApp conversations of the workspace, each the one a first turn from `seedPhone`
 * made (itself kept) with `_id` `con_<i, 24 digits>` and what `shape(i)` gives: written as
 * the writers store them (their recent and name entries first, then the records, a bulk write
 * at a time), then both backfills run, so the lists read every one through its entries.
 */
export async function seedConversations(
  db: Db,
  tenantId: string,
  options: { seedPhone: string; at: Date; count: number; shape: (i: number) => Pick<ConversationDoc, 'thread_key' | 'customer' | 'updated_at'> },
): Promise<ConversationDoc[]> {
  const made = await recordTurn(quietTurnDeps(db), {
    tenantId,
    channel: 'whatsapp',
    customer: { phone: options.seedPhone, name: 'Seed' },
    role: 'user',
    text: 'x',
    at: options.at,
    dedupeKey: 'seed',
  });
  const template = (await conversationsCollection(db).findOne({ _id: made.conversationId }))!;
  const many: ConversationDoc[] = Array.from({ length: options.count }, (_, i) => ({ ...template, _id: `con_${String(i).padStart(24, '0')}`, ...options.shape(i) }));
  await writeRecentEntries(db, many);
  for (let start = 0; start < many.length; start += BULK_WRITE_MAX) await conversationsCollection(db).insertMany(many.slice(start, start + BULK_WRITE_MAX));
  await backfillConversationEntries(db);
  await backfillNameEntries(db);
  return many;
}
