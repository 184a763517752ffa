import request from 'supertest';
import { collections } from '../../../src/db/collections';
import type { EventPublisher } from '../../../src/events/publisher';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { sendIntentsCollection } from '../../../src/messaging/sendIntents';
import { IdempotencyStore } from '../../../src/idempotency/store';
import { conversationMessagesCollection } from '../../../src/conversations/store';
import { useTestApi } from '../../support/app';
import { FakeGraph } from '../../support/fakeGraph';
import { bearer, envelope } from '../../support/http';
import { eventually } from '../../support/messaging';

/**
 * Record-first sends over HTTP (src/messaging/sendIntents.ts), against a local stand-in for
 * the WhatsApp Cloud API that counts every send. The failure is injected after the provider
 * accepted: the event publisher refuses the new conversation's `conversation.started`, as it
 * would with the event store unreachable.
 */
describe('POST /api/v1/messages records the send before the provider is called', () => {
  let graph: FakeGraph;
  let baseUrl: string;
  let failNextStart = false;
  let n = 0;
  const fresh = () => `+9195${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  const failing = (events: EventPublisher): EventPublisher => ({
    publish: async (input) => {
      if (failNextStart && input.type === 'conversation.started') {
        failNextStart = false;
        throw new Error('event store unreachable');
      }
      return events.publish(input);
    },
  });

  beforeAll(async () => {
    graph = new FakeGraph();
    baseUrl = await graph.start();
  });
  afterAll(async () => {
    await graph?.stop();
  });
  const { api, ws } = useTestApi(() => ({
    env: {
      WHATSAPP_PROVIDER: 'cloud',
      WHATSAPP_CLOUD_BASE_URL: baseUrl,
      WHATSAPP_CLOUD_ACCESS_TOKEN: 'graph-token',
      WHATSAPP_CLOUD_PHONE_NUMBER_ID: '1001',
      // The slow send's answer is held until its retry is answered: more than the default 10 s on a loaded machine.
      WHATSAPP_CLOUD_TIMEOUT_MS: '60000',
    },
    wrapEvents: failing,
  }));
  beforeEach(() => {
    graph.requests.length = 0;
    graph.answers.length = 0;
    graph.beforeAnswer = null;
    failNextStart = false;
  });

  const orderUpdate = (to: string) => ({ to, template: { name: 'order_update', variables: ['Asha', 'A-1', 'Friday'] } });
  const send = (body: Record<string, unknown>, idempotencyKey?: string) => {
    const req = request(api.server).post('/api/v1/messages').set(bearer(ws.key));
    return (idempotencyKey ? req.set('Idempotency-Key', idempotencyKey) : req).send(body);
  };
  const used = async () => (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!.plan.conversations_used;
  const INTERNAL = envelope('internal', 'Internal server error.');

  it('a failure after the provider accepted: the retry with the same key does not send again, charges once and records the message', async () => {
    const to = fresh();
    const before = await used();
    failNextStart = true;
    const first = await send(orderUpdate(to), 'retry-after-500');
    expect(first.status).toBe(500);
    expect(first.body).toEqual(INTERNAL);
    expect(graph.requests).toHaveLength(1);
    expect(await used()).toBe(before + 1);

    const retry = await send(orderUpdate(to), 'retry-after-500');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual({ message_id: expect.stringMatching(/^wamid\.CLOUD\d+$/), channel: 'whatsapp', to, status: 'sent' });
    expect(graph.requests).toHaveLength(1);
    expect(await used()).toBe(before + 1);

    const message = await outboundMessagesCollection(api.db).findOne({ _id: retry.body.message_id });
    expect(message).toMatchObject({ tenant_id: ws.workspaceId, to, kind: 'template', billed: 'included', status: 'sent' });
    const turns = await conversationMessagesCollection(api.db).find({ conversation_id: message!.conversation_id }).toArray();
    expect(turns.map((t) => t.text)).toEqual(['Hi Asha, your order A-1 is on its way and should reach you by Friday.']);

    // A stored success replays as before.
    const replay = await send(orderUpdate(to), 'retry-after-500');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(retry.body);
    expect(graph.requests).toHaveLength(1);
  });

  it('without an Idempotency-Key the failed send still leaves its record and its charge on the intent', async () => {
    const to = fresh();
    const before = await used();
    failNextStart = true;
    const first = await send(orderUpdate(to));
    expect(first.status).toBe(500);
    expect(first.body).toEqual(INTERNAL);
    expect(graph.requests).toHaveLength(1);
    expect(await used()).toBe(before + 1);
    const intents = await sendIntentsCollection(api.db).find({ tenant_id: ws.workspaceId, 'request.to': to }).toArray();
    expect(intents).toEqual([
      expect.objectContaining({ state: 'sent', billed: 'included', message_id: expect.stringMatching(/^wamid\.CLOUD\d+$/), kind: 'template' }),
    ]);
  });

  it('a provider refusal gives the conversation back and removes the intent, so the retry with the key sends afresh', async () => {
    const to = fresh();
    const before = await used();
    graph.answers.push({ status: 400, body: { error: { message: 'Invalid parameter', type: 'OAuthException', code: 100, error_subcode: 2494010 } } });
    const first = await send(orderUpdate(to), 'refused-then-retried');
    expect(first.status).toBe(502);
    expect(await used()).toBe(before);
    expect(await sendIntentsCollection(api.db).countDocuments({ tenant_id: ws.workspaceId, 'request.to': to })).toBe(0);

    const retry = await send(orderUpdate(to), 'refused-then-retried');
    expect(retry.status).toBe(201);
    expect(graph.requests).toHaveLength(2);
    expect(await used()).toBe(before + 1);
  });

  it('a live send slower than the lease keeps its intent (renewed); the lease it writes is the Idempotency-Key’s 5 s, not a minute', async () => {
    const to = fresh();
    graph.answers.push({ status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to.slice(1) }], messages: [{ id: 'wamid.slow-1' }] } });
    // The provider answers only once the retry below was answered: a fixed 6.5 s delay left the
    // retry about a second, and on a loaded machine the send had finished before it came (201).
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    graph.beforeAnswer = () => answered;
    // supertest sends on `then`: started now.
    const slow = send(orderUpdate(to), 'slow-send').then((res) => res);
    let retry;
    try {
      // The intent is recorded before the provider is asked: wait for it rather than a fixed pause.
      const intent = await eventually(() => sendIntentsCollection(api.db).findOne({ tenant_id: ws.workspaceId, 'request.to': to }), 'the send intent');
      expect(intent!.lease_until.getTime() - intent!.created_at.getTime()).toBeLessThanOrEqual(5_000);
      await new Promise((resolve) => setTimeout(resolve, 5_300));
      // Past the first lease. The key's own claim is removed, so the retry reaches the intent and finds the send still running.
      const claim = IdempotencyStore.id({ tenantId: ws.workspaceId, keyId: ws.keyId, endpoint: 'POST /api/v1/messages', idempotencyKey: 'slow-send' });
      expect((await api.db.collection('idempotency_keys').deleteOne({ _id: claim as never })).deletedCount).toBe(1);
      retry = await send(orderUpdate(to), 'slow-send');
    } finally {
      answer();
    }
    expect(retry.status).toBe(409);
    expect(retry.body.error.details).toEqual({ reason: 'idempotency_in_progress', retry_after_seconds: 2 });
    expect((await slow).status).toBe(201);
    expect(graph.requests).toHaveLength(1);
  });

  it('a send whose earlier attempt died before recording the provider’s answer is not sent again', async () => {
    const to = fresh();
    failNextStart = true;
    expect((await send(orderUpdate(to), 'died-mid-send')).status).toBe(500);
    // As if that attempt had died between the provider's answer and its record of it.
    await sendIntentsCollection(api.db).updateOne(
      { tenant_id: ws.workspaceId, 'request.to': to },
      { $set: { state: 'sending', message_id: null, sent_at: null, lease_until: new Date(Date.now() - 1_000) } },
    );
    const retry = await send(orderUpdate(to), 'died-mid-send');
    expect(retry.status).toBe(500);
    expect(retry.body).toEqual(
      envelope(
        'internal',
        'An earlier attempt of this send stopped before its outcome was recorded; it may have gone out, so it is not sent again.',
        { reason: 'send_outcome_unknown' },
      ),
    );
    expect(graph.requests).toHaveLength(1);
  });
});
