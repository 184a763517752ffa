import request from 'supertest';
import { recordCallConversation, recordTurn, conversationsCollection, conversationMessagesCollection, type ConversationDoc, type ConversationMessageDoc } from '../../../src/conversations';
import { backfillConversationEntries, conversationEntriesCollection, recentKey, recentList } from '../../../src/conversations/conversationEntries';
import { entryRange } from '../../../src/db/keyedEntries';
import { createEventPublisher } from '../../../src/events/publisher';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { CONSOLE } from '../../support/messaging';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The conversations list and transcripts read through their keyed entries
 * (src/conversations/conversationEntries.ts), in the contract's orders and pages: the list by
 * `updated_at` then id, newest first, a conversation moving to the front with a new turn (its
 * old entry removed, a stale one skipped); a transcript oldest first, trail rows read and
 * dropped after. Conversations stored before the entries existed read the old way until the
 * backfill has written theirs, the same answers after.
 */
describe('conversations through their entries', () => {
  const { api } = useTestApi();
  const t0 = Date.parse('2026-06-01T00:00:00Z');
  const at = (s: number) => new Date(t0 + s * 1000);

  it('pages the list and transcripts in the contract’s orders, before the backfill and after, and as turns arrive', async () => {
    const own = await createTestWorkspace(api.db);
    const other = await createTestWorkspace(api.db);
    const deps = { db: api.db, events: createEventPublisher(api.db, { dispatch: async () => undefined }) };

    // Stored before the entries existed: five conversations (two with the same updated_at) written straight into the store.
    const direct: ConversationDoc[] = [];
    const directMessages: ConversationMessageDoc[] = [];
    for (let i = 0; i < 5; i++) {
      const turned = await recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone: `+91981117000${i}` }, role: 'user', text: `old ${i}`, at: at(i === 4 ? 3 : i), dedupeKey: `old:${i}` });
      direct.push((await conversationsCollection(api.db).findOne({ _id: turned.conversationId }))!);
      directMessages.push((await conversationMessagesCollection(api.db).findOne({ _id: turned.messageId }))!);
    }
    // As if written by the code before: no entries at all.
    await conversationEntriesCollection(api.db).deleteMany({});
    // Another workspace's conversation, later than all: never in this list.
    await recordTurn(deps, { tenantId: other.workspaceId, channel: 'whatsapp', customer: { phone: '+919811170000' }, role: 'user', text: 'elsewhere', at: at(50), dedupeKey: 'other:0' });
    // A voice call's conversation of eight turns, two of them trail rows.
    const spoken = Array.from({ length: 8 }, (_, n) => ({ role: (n % 2 === 0 ? 'model' : 'user') as 'model' | 'user', text: `line ${n}`, at: at(10 + n), kind: (n === 2 || n === 5 ? 'trail' : 'turn') as 'trail' | 'turn' }));
    const voice = (await recordCallConversation(deps, { tenantId: own.workspaceId, callId: 'call_0190aa00000011223344556677', agentId: own.agentId, customer: { phone: '+919811170009' }, turns: spoken })).conversationId!;

    const key = own.key;
    const list = async (query: string) => {
      const res = await request(api.server).get(`/api/v1/conversations${query}`).set(bearer(key));
      expect(res.status).toBe(200);
      return res.body as { items: { conversation_id: string; updated_at: string }[]; next_cursor: string | null };
    };
    const walk = async (query: string, limit: number) => {
      const seen: string[] = [];
      let page = await list(`?limit=${limit}${query}`);
      seen.push(...page.items.map((c) => c.conversation_id));
      while (page.next_cursor) {
        page = await list(`?limit=${limit}${query}&cursor=${encodeURIComponent(page.next_cursor)}`);
        seen.push(...page.items.map((c) => c.conversation_id));
      }
      return seen;
    };
    const messages = async (conversationId: string, limit: number) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: request.Response = await request(api.server).get(`/api/v1/conversations/${conversationId}/messages?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).set(bearer(key));
        expect(res.status).toBe(200);
        seen.push(...res.body.items.map((m: { text: string }) => m.text));
        cursor = res.body.next_cursor;
      } while (cursor);
      return seen;
    };
    const transcript = async (conversationId: string) => {
      const res = await request(api.server).get(`/console/v1/workspaces/${own.workspaceId}/conversations/${conversationId}/transcript`).set(CONSOLE);
      expect(res.status).toBe(200);
      return res.body.items.map((m: { text: string; kind: string }) => `${m.kind} ${m.text}`);
    };
    const consoleList = async (limit: number) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: request.Response = await request(api.server).get(`/console/v1/workspaces/${own.workspaceId}/conversations?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).set(CONSOLE);
        expect(res.status).toBe(200);
        seen.push(...res.body.items.map((c: { conversation_id: string }) => c.conversation_id));
        cursor = res.body.next_cursor;
      } while (cursor);
      return seen;
    };

    // updated_at descending, then id descending where two are equal (direct[3] and direct[4] both at 3 s).
    const tied = [direct[3]!._id, direct[4]!._id].sort().reverse();
    const order = [voice, ...tied, direct[2]!._id, direct[1]!._id, direct[0]!._id];
    const spokenShown = spoken.filter((s) => s.kind === 'turn').map((s) => s.text);
    const check = async () => {
      expect(await walk('', 2)).toEqual(order);
      expect(await walk('', 100)).toEqual(order);
      expect(await consoleList(4)).toEqual(order);
      expect(await walk(`&agent_id=${own.agentId}`, 1)).toEqual([voice]);
      // Transcript pages: `limit` read, trail rows dropped after, so the page of three holding a trail row is short and ends the walk, as the contract says.
      expect(await messages(voice, 100)).toEqual(spokenShown);
      expect(await messages(voice, 3)).toEqual(['line 0', 'line 1']);
      expect(await messages(voice, 2)).toEqual(['line 0', 'line 1', 'line 3']);
      expect(await transcript(voice)).toEqual(spoken.map((s) => `${s.kind} ${s.text}`));
      expect(await messages(direct[2]!._id, 100)).toEqual(['old 2']);
    };

    await check();
    await backfillConversationEntries(api.db);
    const recent = await conversationEntriesCollection(api.db).find({ _id: entryRange(recentList(own.workspaceId)) }).toArray();
    expect(recent.map((e) => e._id).sort()).toEqual([...direct, (await conversationsCollection(api.db).findOne({ _id: voice }))!].map(recentKey).sort());
    expect(await conversationEntriesCollection(api.db).countDocuments({ _id: { $in: directMessages.map((m) => `${m.conversation_id}|${m._id}`) } })).toBe(5);
    await check();

    // A new turn moves a conversation to the front; its old entry is removed.
    await recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone: '+919811170001' }, role: 'model', text: 'new 1', at: at(30), dedupeKey: 'new:1' });
    expect(await walk('', 2)).toEqual([direct[1]!._id, voice, ...tied, direct[2]!._id, direct[0]!._id]);
    expect(await conversationEntriesCollection(api.db).countDocuments({ _id: { $gt: `${recentList(own.workspaceId)}|`, $lt: `${recentList(own.workspaceId)}}` } })).toBe(6);
    expect(await messages(direct[1]!._id, 1)).toEqual(['old 1', 'new 1']);
    // A late, older turn does not move it, and leaves no entry behind.
    await recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone: '+919811170001' }, role: 'user', text: 'late 1', at: at(20), dedupeKey: 'late:1' });
    expect(await messages(direct[1]!._id, 100)).toEqual(['old 1', 'late 1', 'new 1']);
    expect(await conversationEntriesCollection(api.db).countDocuments({ _id: entryRange(recentList(own.workspaceId)) })).toBe(6);
    // An entry left by a writer that died before removing it is skipped: no conversation twice.
    await conversationEntriesCollection(api.db).insertOne({ _id: recentKey({ _id: direct[0]!._id, tenant_id: own.workspaceId, updated_at: at(40) }) });
    expect(await walk('', 2)).toEqual([direct[1]!._id, voice, ...tied, direct[2]!._id, direct[0]!._id]);
    // A brand-new conversation is first.
    const fresh = await recordTurn(deps, { tenantId: own.workspaceId, channel: 'whatsapp', customer: { phone: '+919811170008' }, role: 'user', text: 'hello', at: at(35), dedupeKey: 'fresh:0' });
    expect((await list('?limit=1')).items.map((c) => c.conversation_id)).toEqual([fresh.conversationId]);
  });
});
