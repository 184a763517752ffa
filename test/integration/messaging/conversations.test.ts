import request from 'supertest';
import { conversationMessagesCollection, conversationsCollection, recordCallConversation, recordTurn, turnKeysCollection } from '../../../src/conversations';
import { MessageIdTaken } from '../../../src/conversations/recordTurn';
import { storedOrderMessageId } from '../../../src/conversations/store';
import { createEventPublisher } from '../../../src/events/publisher';
import { useTestApi } from '../../support/app';
import { bearer, envelope } from '../../support/http';
import { CONSOLE, eventsOf, injectInbound, updateWorkspace } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;

/** The conversation routes (api-core §2 Conversation and Transcript message, §4). */
describe('conversations', () => {
  const { api, ws } = useTestApi();
  let deps: Parameters<typeof recordTurn>[0];
  let n = 0;
  const fresh = () => `+9196${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  beforeAll(async () => {
    // Events are stored as in production; dispatching them to webhooks is not under test here.
    deps = { db: api.db, events: createEventPublisher(api.db, { dispatch: async () => undefined }) };
  });

  const get = (path: string, key = ws.key) => request(api.server).get(path).set(bearer(key));

  /** Records turns one after another, a millisecond apart from `start`. */
  async function seed(
    tenantId: string,
    phone: string,
    turns: { role?: 'user' | 'model' | 'human'; text: string | null; kind?: 'turn' | 'trail' }[],
    start = Date.now(),
    agentId: string | null = null,
  ): Promise<string> {
    let conversationId = '';
    for (const [i, turn] of turns.entries()) {
      const recorded = await recordTurn(deps, {
        tenantId,
        channel: 'whatsapp',
        customer: { phone },
        agentId,
        role: turn.role ?? 'user',
        text: turn.text,
        kind: turn.kind,
        at: new Date(start + i),
        dedupeKey: `seed:${phone}:${start}:${i}`,
      });
      conversationId = recorded.conversationId;
    }
    return conversationId;
  }

  describe('GET /api/v1/conversations/{id}', () => {
    it('answers the conversation with every field, acquisition written once from the first ad referral', async () => {
      const from = fresh();
      const first = await injectInbound(api, ws.workspaceId, {
        from,
        name: 'Asha',
        text: 'Is the blue kurta in stock?',
        referral: { source_type: 'ad', source_id: '120200', source_url: 'https://fb.me/ad1', headline: 'Festive sale', media_type: 'image', ctwa_clid: 'ARAk1' },
      });
      await injectInbound(api, ws.workspaceId, { from, text: 'hello?', referral: { source_type: 'post', source_id: '999', headline: 'Other' } });
      const res = await get(`/api/v1/conversations/${first.conversation_id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        conversation_id: first.conversation_id,
        channel: 'whatsapp',
        agent_id: null,
        status: 'open',
        customer: { phone: from, name: 'Asha' },
        message_count: 2,
        preview: 'hello?',
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
        acquisition: {
          ctwa: {
            source_type: 'ad',
            source_id: '120200',
            source_url: 'https://fb.me/ad1',
            headline: 'Festive sale',
            media_type: 'image',
            ctwa_clid: 'ARAk1',
            captured_at: expect.any(String),
          },
        },
      });
      expect(first.conversation_id).toMatch(/^con_[0-9a-f]{24}$/);
    });

    it('has a null acquisition when no ad started the chat', async () => {
      const inbound = await injectInbound(api, ws.workspaceId, { from: fresh(), text: 'hi' });
      expect((await get(`/api/v1/conversations/${inbound.conversation_id}`)).body.acquisition).toBeNull();
    });

    it('is 404 Conversation not found. for a missing id and another workspace’s alike', async () => {
      const other = await createTestWorkspace(api.db);
      const foreign = await injectInbound(api, other.workspaceId, { from: fresh(), text: 'hi' });
      for (const id of ['con_000000000000000000000000', foreign.conversation_id, 'anything']) {
        for (const path of [`/api/v1/conversations/${id}`, `/api/v1/conversations/${id}/messages`]) {
          const res = await get(path);
          expect(res.status).toBe(404);
          expect(res.body).toEqual(envelope('not_found', 'Conversation not found.'));
        }
      }
    });

    it('counts customer, agent and team turns only; the preview is the last real turn’s first 140 characters', async () => {
      const long = 'L'.repeat(139) + '😀' + 'tail';
      const id = await seed(ws.workspaceId, fresh(), [
        { role: 'user', text: 'hello' },
        { role: 'model', text: 'Looking that up', kind: 'trail' },
        { role: 'model', text: long },
        { role: 'model', text: 'order lookup: ok', kind: 'trail' },
      ]);
      const res = await get(`/api/v1/conversations/${id}`);
      expect(res.body.message_count).toBe(2);
      expect(res.body.preview).toBe('L'.repeat(139) + '😀');
      // A trail entry still moves updated_at.
      const doc = await conversationsCollection(api.db).findOne({ _id: id });
      expect(doc!.updated_at.getTime()).toBe(doc!.last_turn_at!.getTime() + 1);
    });

    it('counts a retried turn once', async () => {
      const phone = fresh();
      const input = { tenantId: ws.workspaceId, channel: 'whatsapp' as const, customer: { phone }, role: 'user' as const, text: 'once', at: new Date(), dedupeKey: `retry:${phone}` };
      const first = await recordTurn(deps, input);
      const again = await recordTurn(deps, input);
      expect(again).toEqual({ ...first, conversationCreated: false, duplicate: true });
      expect((await get(`/api/v1/conversations/${first.conversationId}`)).body.message_count).toBe(1);
      expect(await conversationMessagesCollection(api.db).countDocuments({ conversation_id: first.conversationId })).toBe(1);
    });
  });

  describe('a conversation’s first turn', () => {
    const turnOf = (phone: string, key: string, at: Date, text = `text ${key}`) => ({
      tenantId: ws.workspaceId,
      channel: 'whatsapp' as const,
      customer: { phone },
      role: 'human' as const,
      text,
      at,
      dedupeKey: `first:${phone}:${key}`,
    });
    const startedOf = async (conversationId: string) =>
      (await eventsOf(api.db, ws.workspaceId, 'conversation.started')).filter((e) => e.data.conversation_id === conversationId);

    it('is counted in the creating insert, and conversation.started is emitted once', async () => {
      const phone = fresh();
      const at = new Date();
      const first = await recordTurn(deps, turnOf(phone, 'a', at, 'Your order shipped'));
      expect(first).toEqual({ conversationId: expect.stringMatching(/^con_/), messageId: expect.stringMatching(/^msg_/), conversationCreated: true, duplicate: false });
      const doc = await conversationsCollection(api.db).findOne({ _id: first.conversationId });
      expect(doc).toMatchObject({
        message_count: 1,
        preview: 'Your order shipped',
        last_turn_at: at,
        recent_message_ids: [first.messageId],
        customer: { phone },
        agent_id: null,
        created_at: at,
        updated_at: at,
        // Confirmed by the next turn under the lease (src/conversations/recordTurn.ts).
        started_event: false,
      });
      const started = await startedOf(first.conversationId);
      expect(started).toHaveLength(1);
      expect(started[0]!.data).toEqual({ conversation_id: first.conversationId, channel: 'whatsapp', customer: { phone }, started_at: at.toISOString() });
      expect((await get(`/api/v1/conversations/${first.conversationId}/messages`)).body.items.map((m: { text: string }) => m.text)).toEqual(['Your order shipped']);

      const second = await recordTurn(deps, { ...turnOf(phone, 'b', new Date(at.getTime() + 5), 'Thanks'), role: 'user' });
      expect(second).toMatchObject({ conversationId: first.conversationId, conversationCreated: false, duplicate: false });
      expect(await conversationsCollection(api.db).findOne({ _id: first.conversationId })).toMatchObject({
        message_count: 2,
        preview: 'Thanks',
        recent_message_ids: [first.messageId, second.messageId],
        started_event: true,
      });
      expect(await startedOf(first.conversationId)).toHaveLength(1);
    });

    it('retried with its dedupe key after the creation changes nothing', async () => {
      const phone = fresh();
      const input = turnOf(phone, 'once', new Date());
      const first = await recordTurn(deps, input);
      const before = await conversationsCollection(api.db).findOne({ _id: first.conversationId });
      // A redelivery may come with another time: the key keeps its message id.
      for (const at of [input.at, new Date(input.at.getTime() + 1000)]) {
        expect(await recordTurn(deps, { ...input, at })).toEqual({ ...first, conversationCreated: false, duplicate: true });
      }
      const after = await conversationsCollection(api.db).findOne({ _id: first.conversationId });
      // The retry confirmed the stored event; nothing else moved.
      expect(after).toEqual({ ...before, started_event: true });
      expect(await conversationMessagesCollection(api.db).countDocuments({ conversation_id: first.conversationId })).toBe(1);
      expect(await startedOf(first.conversationId)).toHaveLength(1);
    });

    it('counts parallel first turns of one thread, each retried at once, exactly once each', async () => {
      const phone = fresh();
      const at = Date.now();
      const inputs = Array.from({ length: 6 }, (_, i) => turnOf(phone, `p${i}`, new Date(at + i)));
      const results = await Promise.all([...inputs, ...inputs].map((input) => recordTurn(deps, input)));
      const conversationId = results[0]!.conversationId;
      expect(results.every((r) => r.conversationId === conversationId)).toBe(true);
      expect(results.filter((r) => r.conversationCreated)).toHaveLength(1);
      const messageIds = new Set(results.map((r) => r.messageId));
      expect(messageIds.size).toBe(6);
      // Each key's two attempts: one counted it, the other found it counted.
      for (const id of messageIds) expect(results.filter((r) => r.messageId === id && !r.duplicate)).toHaveLength(1);
      const doc = await conversationsCollection(api.db).findOne({ _id: conversationId });
      expect(doc!.message_count).toBe(6);
      expect(new Set(doc!.recent_message_ids)).toEqual(messageIds);
      expect(doc!.recent_message_ids).toHaveLength(6);
      expect(doc!.preview).toBe('text p5');
      expect(doc!.started_event).toBe(true);
      expect(await conversationMessagesCollection(api.db).countDocuments({ conversation_id: conversationId })).toBe(6);
      expect(await startedOf(conversationId)).toHaveLength(1);
    });

    it('whose recorder died before publishing conversation.started: the next turn publishes it', async () => {
      const phone = fresh();
      const at = new Date();
      const dying = { db: api.db, events: { publish: async () => Promise.reject(new Error('process died')) } };
      await expect(recordTurn(dying, turnOf(phone, 'lost', at))).rejects.toThrow('process died');
      const next = await recordTurn(deps, turnOf(phone, 'next', new Date(at.getTime() + 1)));
      const started = await startedOf(next.conversationId);
      expect(started).toHaveLength(1);
      expect(started[0]!.data.started_at).toBe(at.toISOString());
      expect(await conversationsCollection(api.db).findOne({ _id: next.conversationId })).toMatchObject({ message_count: 2, started_event: true });
      // The dead recorder's retry counts nothing twice and publishes nothing twice.
      expect(await recordTurn(deps, turnOf(phone, 'lost', at))).toMatchObject({ conversationCreated: false, duplicate: true });
      expect(await startedOf(next.conversationId)).toHaveLength(1);
    });
  });

  describe('GET /api/v1/conversations', () => {
    let many: TestWorkspace;
    const ids: string[] = [];

    beforeAll(async () => {
      many = await createTestWorkspace(api.db);
      const base = Date.parse('2026-02-01T00:00:00Z');
      // 30 conversations, three sharing each updated_at, so the cursor's tie-break matters.
      for (let i = 0; i < 30; i++) {
        ids.push(await seed(many.workspaceId, `+9195000000${String(i).padStart(2, '0')}`, [{ text: `m${i}` }], base + Math.floor(i / 3) * 1000, i % 2 ? many.agentId : null));
      }
    });

    it('lists newest activity first, 25 by default, next_cursor only on a full page', async () => {
      const first = await get('/api/v1/conversations', many.key);
      expect(first.status).toBe(200);
      expect(first.body.items).toHaveLength(25);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await get(`/api/v1/conversations?cursor=${encodeURIComponent(first.body.next_cursor)}`, many.key);
      expect(second.body.items).toHaveLength(5);
      expect(second.body.next_cursor).toBeNull();
      const all = [...first.body.items, ...second.body.items];
      expect(new Set(all.map((c: { conversation_id: string }) => c.conversation_id))).toEqual(new Set(ids));
      const times = all.map((c: { updated_at: string }) => c.updated_at);
      expect([...times].sort().reverse()).toEqual(times);
    });

    it('filters by agent_id', async () => {
      const res = await get(`/api/v1/conversations?agent_id=${many.agentId}&limit=100`, many.key);
      expect(res.body.items).toHaveLength(15);
      expect(res.body.items.every((c: { agent_id: string }) => c.agent_id === many.agentId)).toBe(true);
      expect((await get('/api/v1/conversations?agent_id=bot_none', many.key)).body).toEqual({ items: [], next_cursor: null });
    });

    it('keeps the cursor stable while conversations move: nothing is seen twice', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let moved = false;
      do {
        const res: request.Response = await get(`/api/v1/conversations?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, many.key);
        seen.push(...res.body.items.map((c: { conversation_id: string }) => c.conversation_id));
        cursor = res.body.next_cursor;
        if (!moved) {
          // One already seen and one not yet seen gain a message: both move to the front.
          moved = true;
          await seed(many.workspaceId, '+919500000029', [{ text: 'again' }], Date.now());
          await seed(many.workspaceId, '+919500000000', [{ text: 'again' }], Date.now());
        }
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(29);
    });

    it('refuses a limit outside 1 to 100, and a cursor that is not this list’s', async () => {
      for (const limit of ['0', '101', 'x']) {
        const res = await get(`/api/v1/conversations?limit=${limit}`, many.key);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(
          envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['query', 'limit'], msg: expect.any(String), type: expect.any(String) }] }),
        );
      }
      const page = await get('/api/v1/conversations?limit=2', many.key);
      const res = await get(`/api/v1/conversations?cursor=${encodeURIComponent(page.body.next_cursor)}`, ws.key);
      expect(res.status).toBe(400);
      expect(res.body.error.details.errors[0]).toMatchObject({ loc: ['query', 'cursor'], type: 'cursor_invalid' });
    });
  });

  describe('GET /api/v1/conversations/{id}/messages', () => {
    it('answers turns oldest first with role, text and created_at', async () => {
      const id = await seed(ws.workspaceId, fresh(), [
        { role: 'user', text: 'hi' },
        { role: 'model', text: 'Hello! How can I help?' },
        { role: 'human', text: null },
      ]);
      const res = await get(`/api/v1/conversations/${id}/messages`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        items: [
          { message_id: expect.stringMatching(/^msg_[0-9a-f]{24}$/), role: 'user', text: 'hi', created_at: expect.stringMatching(TIMESTAMP) },
          { message_id: expect.any(String), role: 'model', text: 'Hello! How can I help?', created_at: expect.any(String) },
          { message_id: expect.any(String), role: 'human', text: null, created_at: expect.any(String) },
        ],
        next_cursor: null,
      });
      const ids = res.body.items.map((m: { message_id: string }) => m.message_id);
      expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    });

    it('walks a transcript of 250 turns with trail rows between them, every turn exactly once', async () => {
      const turns: { role: 'user' | 'model'; text: string; kind?: 'trail' }[] = [];
      for (let i = 0; i < 250; i++) {
        turns.push({ role: i % 2 ? 'model' : 'user', text: `turn ${i}` });
        if (i % 3 === 1) turns.push({ role: 'model', text: `lookup ${i}`, kind: 'trail' });
        if (i % 50 === 7) for (let t = 0; t < 4; t++) turns.push({ role: 'model', text: `hold ${i}.${t}`, kind: 'trail' });
      }
      const id = await seed(ws.workspaceId, fresh(), turns);
      const conversation = (await get(`/api/v1/conversations/${id}`)).body;
      expect(conversation.message_count).toBe(250);

      for (const limit of [200, 7]) {
        const received: string[] = [];
        let cursor: string | null = null;
        for (let pages = 0; received.length < conversation.message_count && pages < 200; pages++) {
          const res: request.Response = await get(`/api/v1/conversations/${id}/messages?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
          expect(res.status).toBe(200);
          const items = res.body.items as { message_id: string; text: string }[];
          expect(items.length).toBeLessThanOrEqual(limit);
          // next_cursor only on a full page, and then it is the last message_id.
          expect(res.body.next_cursor).toBe(items.length === limit ? items[items.length - 1]!.message_id : null);
          received.push(...items.map((m) => m.text));
          // A short page ends the cursor walk while turns remain: continue from the last message_id seen.
          cursor = res.body.next_cursor ?? items[items.length - 1]?.message_id ?? cursor;
        }
        expect(received).toEqual(Array.from({ length: 250 }, (_, i) => `turn ${i}`));
      }
    });

    it('reads the page first and filters trail rows after, so a page can be short with no next_cursor', async () => {
      const id = await seed(ws.workspaceId, fresh(), [
        { text: 'a' },
        { text: 'lookup', kind: 'trail' },
        { text: 'b' },
        { text: 'c' },
      ]);
      const res = await get(`/api/v1/conversations/${id}/messages?limit=3`);
      expect(res.body.items.map((m: { text: string }) => m.text)).toEqual(['a', 'b']);
      expect(res.body.next_cursor).toBeNull();
      const rest = await get(`/api/v1/conversations/${id}/messages?limit=3&cursor=${res.body.items[1].message_id}`);
      expect(rest.body.items.map((m: { text: string }) => m.text)).toEqual(['c']);
    });

    it('refuses a limit outside 1 to 200 and a cursor that is not a message_id', async () => {
      const id = await seed(ws.workspaceId, fresh(), [{ text: 'a' }]);
      for (const [query, loc] of [
        ['limit=0', 'limit'],
        ['limit=201', 'limit'],
        ['cursor=garbage', 'cursor'],
      ] as const) {
        const res = await get(`/api/v1/conversations/${id}/messages?${query}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(
          envelope('invalid_argument', 'Request validation failed.', { errors: [{ loc: ['query', loc], msg: expect.any(String), type: expect.any(String) }] }),
        );
      }
      expect((await get(`/api/v1/conversations/${id}/messages?limit=200`)).status).toBe(200);
    });
  });

  describe('a turn’s message id', () => {
    it('orders turns of one time by when they arrived, whatever their keys', async () => {
      const phone = fresh();
      const at = new Date(Math.floor(Date.now() / 1000) * 1000);
      const texts = ['first', 'second', 'third', 'fourth', 'fifth'];
      let conversationId = '';
      for (const [i, text] of texts.entries()) {
        const recorded = await recordTurn(deps, { tenantId: ws.workspaceId, channel: 'whatsapp', customer: { phone }, role: 'user', text, at, arrivedAt: new Date(at.getTime() + 300 + i), dedupeKey: `wa-in:order.${phone}.${4 - i}` });
        conversationId = recorded.conversationId;
      }
      const res = await get(`/api/v1/conversations/${conversationId}/messages`);
      expect(res.body.items.map((m: { text: string }) => m.text)).toEqual(texts);
    });

    it('is refused with its claim released when another turn holds the id, and recorded under a fresh id on the retry', async () => {
      const phone = fresh();
      const at = new Date();
      const arrivedAt = new Date(at.getTime() + 5);
      const dedupeKey = `wa-in:collide.${phone}`;
      const taken = storedOrderMessageId(ws.workspaceId, dedupeKey, at, arrivedAt);
      const other = { _id: taken, tenant_id: 'ws_another', conversation_id: 'con_another', role: 'user' as const, text: 'not mine', kind: 'turn' as const, created_at: at, dedupe_key: 'wa-in:another' };
      await conversationMessagesCollection(api.db).insertOne(other);
      const input = { tenantId: ws.workspaceId, channel: 'whatsapp' as const, customer: { phone }, role: 'user' as const, text: 'mine', at, dedupeKey, arrivedAt };
      await expect(recordTurn(deps, input)).rejects.toThrow(MessageIdTaken);
      expect(await turnKeysCollection(api.db).findOne({ _id: `${ws.workspaceId}|${dedupeKey}` })).toBeNull();
      const retried = await recordTurn(deps, { ...input, arrivedAt: new Date(arrivedAt.getTime() + 1) });
      expect(retried).toMatchObject({ conversationCreated: true, duplicate: false });
      expect(retried.messageId).not.toBe(taken);
      expect(await conversationMessagesCollection(api.db).findOne({ _id: taken })).toEqual(other);
      const res = await get(`/api/v1/conversations/${retried.conversationId}/messages`);
      expect(res.body.items.map((m: { message_id: string; text: string }) => [m.message_id, m.text])).toEqual([[retried.messageId, 'mine']]);
      // A retry of the recorded turn is the same turn.
      expect(await recordTurn(deps, { ...input, arrivedAt: new Date(arrivedAt.getTime() + 50) })).toMatchObject({ messageId: retried.messageId, duplicate: true });
    });
  });

  describe('turns added through the console', () => {
    it('adds an agent reply and a trail row to an existing conversation, once per turn id', async () => {
      const inbound = await injectInbound(api, ws.workspaceId, { from: fresh(), text: 'Where is my order?' });
      const add = (body: Record<string, unknown>, workspaceId = ws.workspaceId, conversationId = inbound.conversation_id) =>
        request(api.server).post(`/console/v1/workspaces/${workspaceId}/conversations/${conversationId}/turns`).set(CONSOLE).send(body);
      expect((await add({ role: 'model', text: 'order lookup A-1: shipped', kind: 'trail' })).status).toBe(201);
      const reply = await add({ role: 'model', text: 'It ships tomorrow.', agent_id: ws.agentId, turn_id: 'reply-1' });
      expect(reply.status).toBe(201);
      expect(reply.body).toEqual({ conversation_id: inbound.conversation_id, message_id: expect.stringMatching(/^msg_/), duplicate: false });
      expect((await add({ role: 'model', text: 'It ships tomorrow.', turn_id: 'reply-1' })).body.duplicate).toBe(true);
      const conversation = (await get(`/api/v1/conversations/${inbound.conversation_id}`)).body;
      expect(conversation).toMatchObject({ message_count: 2, preview: 'It ships tomorrow.', agent_id: ws.agentId });
      const items = (await get(`/api/v1/conversations/${inbound.conversation_id}/messages`)).body.items;
      expect(items.map((m: { role: string; text: string }) => [m.role, m.text])).toEqual([
        ['user', 'Where is my order?'],
        ['model', 'It ships tomorrow.'],
      ]);
      const other = await createTestWorkspace(api.db);
      const foreign = await add({ role: 'model', text: 'x' }, other.workspaceId);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(envelope('not_found', 'Conversation not found.'));
    });
  });

  describe('voice calls as conversations', () => {
    it('records a finished call once, however often the recorder retries', async () => {
      const at = Date.parse('2026-03-01T09:00:00Z');
      const input = {
        tenantId: ws.workspaceId,
        callId: `call_${Date.now().toString(16)}`,
        agentId: ws.agentId,
        customer: { phone: '+919811100077', name: 'Ravi' },
        turns: [
          { role: 'model' as const, text: 'Hello, this is the Demo assistant. Is now a good time?', at: new Date(at) },
          { role: 'user' as const, text: 'Yes.', at: new Date(at) },
          { role: 'model' as const, text: 'checking order', at: new Date(at + 1000), kind: 'trail' as const },
          { role: 'model' as const, text: 'Your order ships tomorrow.', at: new Date(at + 2000) },
        ],
      };
      const first = await recordCallConversation(deps, input);
      const again = await recordCallConversation(deps, input);
      expect(again).toEqual(first);
      expect(first).toEqual({ conversationId: expect.stringMatching(/^con_/), messageCount: 3 });
      const conversation = (await get(`/api/v1/conversations/${first.conversationId}`)).body;
      expect(conversation).toMatchObject({
        channel: 'voice',
        agent_id: ws.agentId,
        customer: { phone: '+919811100077', name: 'Ravi' },
        message_count: 3,
        preview: 'Your order ships tomorrow.',
        acquisition: null,
      });
      const transcript = (await get(`/api/v1/conversations/${first.conversationId}/messages`)).body.items;
      expect(transcript.map((m: { role: string; text: string }) => [m.role, m.text])).toEqual([
        ['model', 'Hello, this is the Demo assistant. Is now a good time?'],
        ['user', 'Yes.'],
        ['model', 'Your order ships tomorrow.'],
      ]);
      expect(await conversationMessagesCollection(api.db).countDocuments({ conversation_id: first.conversationId! })).toBe(4);
      const started = (await eventsOf(api.db, ws.workspaceId, 'conversation.started')).filter((e) => e.data.conversation_id === first.conversationId);
      expect(started).toHaveLength(1);
      expect(started[0]!.data).toMatchObject({ channel: 'voice', agent_id: ws.agentId });
    });

    it('records nothing for a call with no transcript', async () => {
      expect(await recordCallConversation(deps, { tenantId: ws.workspaceId, callId: 'call_none', agentId: null, customer: {}, turns: [] })).toEqual({
        conversationId: null,
        messageCount: 0,
      });
    });
  });

  describe('access', () => {
    it('answers 412 unsupported_resource on every route when the deployment lacks conversations', async () => {
      const off = await createTestWorkspace(api.db);
      const inbound = await injectInbound(api, off.workspaceId, { from: fresh(), text: 'hi' });
      await updateWorkspace(api, off.workspaceId, { capabilities: { conversations: false } });
      for (const path of ['/api/v1/conversations', `/api/v1/conversations/${inbound.conversation_id}`, `/api/v1/conversations/${inbound.conversation_id}/messages`]) {
        const res = await get(path, off.key);
        expect(res.status).toBe(412);
        expect(res.body).toEqual(envelope('failed_precondition', 'Conversations are not available on this deployment.', { reason: 'unsupported_resource' }));
      }
    });

    it('needs the conversations:read scope', async () => {
      const { key } = await ws.addKey(['messages:send']);
      const res = await get('/api/v1/conversations', key);
      expect(res.status).toBe(403);
      expect(res.body.error.details).toEqual({ reason: 'missing_scope', required_scope: 'conversations:read' });
    });
  });
});
