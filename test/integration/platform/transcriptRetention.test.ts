import { conversationEntriesCollection, transcriptKey, writeTranscriptEntries } from '../../../src/conversations/conversationEntries';
import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { callCollections, newCallDoc, type CallDoc } from '../../../src/calls/callStore';
import { sweepExpiredCallTranscripts } from '../../../src/calls/transcriptRetention';
import { conversationIdFor, conversationMessagesCollection, conversationsCollection, messageIdFor, type ConversationMessageDoc } from '../../../src/conversations/store';
import { sweepExpiredTurns } from '../../../src/conversations/retention';
import { BULK_WRITE_MAX } from '../../../src/db/bulkWrite';
import { newId } from '../../../src/domain/ids';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';

/**
 * Issue 36 §1: transcripts and trail rows past their retention go in small batches, found by
 * `_id` range; newer ones stay; what the API shows of a conversation and a call afterwards.
 */

const DAY = 86_400_000;
const now = new Date();
const daysAgo = (days: number, plusMs = 0) => new Date(now.getTime() - days * DAY + plusMs);
const turnsBefore = daysAgo(365);
const trailBefore = daysAgo(90);

const { api, ws } = useTestApi();

function turn(tenantId: string, conversationId: string, n: number, at: Date, kind: 'turn' | 'trail'): ConversationMessageDoc {
  const dedupeKey = `ret:${conversationId}:${n}`;
  return { _id: messageIdFor(tenantId, dedupeKey, at), tenant_id: tenantId, conversation_id: conversationId, role: n % 2 === 0 ? 'user' : 'model', text: `turn ${n}`, kind, created_at: at, dedupe_key: dedupeKey };
}

/** The commands the driver sends while `run` runs, by name and collection. */
async function commandsDuring(run: () => Promise<void>): Promise<CommandStartedEvent[]> {
  const seen: CommandStartedEvent[] = [];
  const listen = (event: CommandStartedEvent) => seen.push(event);
  api.mongo.on('commandStarted', listen);
  try {
    await run();
  } finally {
    api.mongo.off('commandStarted', listen);
  }
  return seen;
}

describe('conversation turns', () => {
  it('go after TRANSCRIPT_RETENTION_DAYS, trail rows after TRAIL_RETENTION_DAYS, BULK_WRITE_MAX a batch by _id, and the transcript page shows what is left', async () => {
    const tenantId = ws.workspaceId;
    const conversationId = conversationIdFor(tenantId, 'whatsapp', '919800000036');
    const old = Array.from({ length: 60 }, (_, n) => turn(tenantId, conversationId, n, daysAgo(400, n * 1000), n % 10 === 9 ? 'trail' : 'turn'));
    const middle = Array.from({ length: 40 }, (_, n) => turn(tenantId, conversationId, 100 + n, daysAgo(200, n * 1000), n % 4 === 3 ? 'trail' : 'turn'));
    const young = [turn(tenantId, conversationId, 200, daysAgo(10), 'turn'), turn(tenantId, conversationId, 201, daysAgo(10, 1000), 'trail'), turn(tenantId, conversationId, 202, daysAgo(10, 2000), 'turn')];
    await writeTranscriptEntries(api.db, [...old, ...middle, ...young]);
    await conversationMessagesCollection(api.db).insertMany([...old, ...middle, ...young]);
    await conversationsCollection(api.db).insertOne({
      _id: conversationId,
      tenant_id: tenantId,
      channel: 'whatsapp',
      thread_key: '919800000036',
      agent_id: null,
      status: 'open',
      customer: { phone: '+919800000036' },
      message_count: 87,
      preview: 'turn 202',
      last_turn_at: young[2]!.created_at,
      acquisition: null,
      recent_message_ids: [],
      started_event: true,
      created_at: old[0]!.created_at,
      updated_at: young[2]!.created_at,
    });

    // One batch of a pass: the oldest BULK_WRITE_MAX turns, read as one `_id` range and deleted by `_id`.
    const cutoffs = { turnsBefore, trailBefore };
    let swept = { turns: 0, trail: 0 };
    const first = await commandsDuring(async () => {
      swept = await sweepExpiredTurns(api.db, cutoffs, { maxBatches: 1, pauseMs: 0 });
    });
    // The trail sweep's one batch walks an hour of ids from the oldest left: the 4 old trail rows the turns' batch left.
    expect(swept).toEqual({ turns: BULK_WRITE_MAX, trail: 4 });
    const left = await conversationMessagesCollection(api.db).find({}, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray();
    expect(left[0]!._id).toBe(old[BULK_WRITE_MAX]!._id);
    const allReads = first.filter((c) => c.commandName === 'find' && c.command.find === 'conversation_messages');
    // Only the walks (sorted range reads): a batch's read takes each turn's conversation with its id, so its
    // transcript entries are found without reading the turns again by `_id`.
    const reads = allReads.filter((c) => c.command.sort);
    expect(allReads.filter((c) => !c.command.sort)).toEqual([]);
    expect(
      reads.map((c) => [c.command.limit, Object.keys(c.command.filter as object).sort(), Object.fromEntries(c.command.sort as Map<string, number>), Object.keys(c.command.projection as object).sort()]),
    ).toEqual([
      [BULK_WRITE_MAX, ['_id'], { _id: 1 }, ['_id', 'conversation_id']],
      [1, ['_id'], { _id: 1 }, ['_id']],
      [BULK_WRITE_MAX, ['_id', 'kind'], { _id: 1 }, ['_id', 'conversation_id']],
    ]);
    const deletes = first.filter((c) => c.commandName === 'delete' && c.command.delete === 'conversation_messages');
    for (const d of deletes) {
      const statements = d.command.deletes as { q: { _id: { $in: string[] } } }[];
      expect(statements).toHaveLength(1);
      expect(statements[0]!.q._id.$in.length).toBeLessThanOrEqual(BULK_WRITE_MAX);
    }

    // The next pass finishes: every turn older than a year, every trail row older than 90 days.
    swept = await sweepExpiredTurns(api.db, cutoffs, { pauseMs: 0 });
    expect(swept).toEqual({ turns: 60 - BULK_WRITE_MAX - 4, trail: 10 });
    expect(await sweepExpiredTurns(api.db, cutoffs, { pauseMs: 0 })).toEqual({ turns: 0, trail: 0 });
    const kept = await conversationMessagesCollection(api.db).find({}).sort({ _id: 1 }).toArray();
    expect(kept.map((m) => m._id)).toEqual([...middle.filter((m) => m.kind === 'turn'), ...young].map((m) => m._id));
    // Each removed turn's transcript entry went with it; the kept turns keep theirs.
    const entries = await conversationEntriesCollection(api.db).find({ _id: { $gt: `${conversationId}|`, $lt: `${conversationId}|~` } }, { projection: { _id: 1 } }).sort({ _id: 1 }).toArray();
    expect(entries.map((e) => e._id)).toEqual(kept.map(transcriptKey));

    // Through the API: the conversation is there as it was; its transcript holds the turns kept, trail rows hidden as always.
    const conversation = await request(api.server).get(`/api/v1/conversations/${conversationId}`).set(bearer(ws.key));
    expect(conversation.status).toBe(200);
    expect(conversation.body).toMatchObject({ conversation_id: conversationId, message_count: 87, preview: 'turn 202' });
    const page = await request(api.server).get(`/api/v1/conversations/${conversationId}/messages?limit=200`).set(bearer(ws.key));
    expect(page.status).toBe(200);
    expect(page.body.items.map((m: { message_id: string }) => m.message_id)).toEqual([...middle.filter((m) => m.kind === 'turn'), young[0]!, young[2]!].map((m) => m._id));
    // A cursor at a removed turn still pages on from there.
    const fromRemoved = await request(api.server).get(`/api/v1/conversations/${conversationId}/messages?limit=200&cursor=${old[5]!._id}`).set(bearer(ws.key));
    expect(fromRemoved.status).toBe(200);
    expect(fromRemoved.body.items).toEqual(page.body.items);
  });
});

describe('call transcripts', () => {
  const finished = (at: Date, transcript: CallDoc['transcript']): CallDoc => ({
    ...newCallDoc({
      _id: newId('call', at),
      tenant_id: ws.workspaceId,
      direction: 'outbound',
      status: 'completed',
      to: '+919800000036',
      from_number: ws.phoneNumber.slice(1),
      agent_id: ws.agentId,
      requested_agent_id: ws.agentId,
      deployment_id: 'dep_retention',
      ring_seconds: 30,
      max_call_seconds: 300,
      recording: false,
      created_at: at,
    }),
    ended_at: new Date(at.getTime() + 60_000),
    transcript,
  });
  const said = [{ role: 'user' as const, text: 'Hello?', at_seconds: 0.5 }];

  it('go after TRANSCRIPT_RETENTION_DAYS (the call stays, its transcript null), and a re-read of such a call is refused', async () => {
    const oldWith = Array.from({ length: 30 }, (_, n) => finished(daysAgo(400, n * 1000), said));
    const oldWithout = finished(daysAgo(380), null);
    const youngWith = finished(daysAgo(30), said);
    await callCollections(api.db).calls.insertMany([...oldWith, oldWithout, youngWith]);

    expect(await sweepExpiredCallTranscripts(api.db, turnsBefore, { maxBatches: 1, pauseMs: 0 }, now)).toBe(BULK_WRITE_MAX);
    expect(await sweepExpiredCallTranscripts(api.db, turnsBefore, { pauseMs: 0 }, now)).toBe(30 - BULK_WRITE_MAX);
    expect(await sweepExpiredCallTranscripts(api.db, turnsBefore, { pauseMs: 0 }, now)).toBe(0);
    const calls = await callCollections(api.db).calls.find({}).sort({ _id: 1 }).toArray();
    expect(calls.map((c) => [c._id, c.transcript, c.transcript_removed_at ?? null])).toEqual([
      ...oldWith.map((c) => [c._id, null, now]),
      [oldWithout._id, null, null],
      [youngWith._id, said, null],
    ]);

    const token = bearer(api.config.CONSOLE_TOKEN!);
    const shown = await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/calls/${oldWith[0]!._id}`).set(token);
    expect(shown.status).toBe(200);
    expect(shown.body.transcript).toEqual([]);
    const reread = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/calls/${oldWith[0]!._id}/reread`).set(token);
    expect(reread.status).toBe(409);
    expect(reread.body).toEqual(
      envelope('conflict', 'The call’s transcript was removed by the retention (TRANSCRIPT_RETENTION_DAYS); there is nothing to read.', { reason: 'transcript_removed' }),
    );
  });
});
