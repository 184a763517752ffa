import type { Db } from 'mongodb';
import { sendReply, TurnChecks, createToolbox, type AgentTurnDeps } from '../../../src/agents';
import type { AgentTurn, PendingTrailRow } from '../../../src/agents/contracts';
import { conversationMessagesCollection, recordTurn } from '../../../src/conversations';
import { createEventPublisher } from '../../../src/events/publisher';
import { ingestCloudWebhook } from '../../../src/messaging/cloudIngest';
import { outboundMessagesCollection } from '../../../src/messaging/outboundMessages';
import { agentSendIntentKey } from '../../../src/messaging/sendIntents';
import { SEND_INTENT_LEASE_MS } from '../../../src/messaging/sendMessage';
import { openWindow } from '../../../src/messaging/sessionWindow';
import { openTestDb, testConfig } from '../../support/env';
import { hookedDb } from '../../support/hookedDb';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';
import { acceptingProvider } from '../../support/acceptingProvider';

/**
 * A chat turn's reply whose step died as it wrote the provider's answer (record first: the
 * intent left `sending`), adopted from the provider's status (src/messaging/unknownOutcomes.ts).
 * The reply's trail rows travel on its send intent, so the adoption records them with the
 * reply, in the one write and with the documents the step itself would have written, once
 * however the step's retry and the status meet.
 */
describe("an agent's reply adopted from the provider's status", () => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;
  let n = 0;
  const { provider, sent } = acceptingProvider('cloud', 'ADOPTED');

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db, { chatAgent: true });
  });
  afterAll(async () => {
    await drop();
  });

  const events = () => createEventPublisher(db, { dispatch: async () => undefined });
  /** Past the dead step's lease: the clock of the status's process and of the step's retry. */
  const later = () => new Date(Date.now() + SEND_INTENT_LEASE_MS + 60_000);
  const deps = (on: Db = db, now: () => Date = () => new Date()): AgentTurnDeps => ({
    db: on,
    events: events(),
    whatsapp: provider,
    deploymentChannels: ['whatsapp'],
    model: { name: 'none', respond: () => Promise.reject(new Error('no model in this test')) },
    toolbox: createToolbox([]),
    now,
    checks: new TurnChecks(),
  });

  async function customerWrote(): Promise<AgentTurn> {
    const at = new Date(Date.now() - 3_000);
    const phone = `+9196${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;
    const inbound = await recordTurn({ db, events: events() }, { tenantId: ws.workspaceId, channel: 'whatsapp', customer: { phone }, role: 'user', text: 'Where is my order 4821?', at, dedupeKey: `wa-in:wamid.ADIN${n}` });
    await openWindow(db, { tenantId: ws.workspaceId, senderId: ws.senderId, customer: phone, at });
    return {
      tenantId: ws.workspaceId,
      conversationId: inbound.conversationId,
      senderId: ws.senderId,
      customerPhone: phone,
      workflowId: `agent-${inbound.conversationId}`,
      turnKey: `turn-1-${inbound.messageId}`,
      messageIds: [inbound.messageId],
      providerMessageId: `wamid.ADIN${n}`,
      at: at.toISOString(),
    };
  }

  const trailOf = (turn: AgentTurn): PendingTrailRow[] => [
    { text: 'Lookup look_up_order: Looked up order 4821 (3 ms)', dedupeKey: `${turn.workflowId}:${turn.turnKey}:call_1`, at: new Date(Date.now() - 2_000).toISOString() },
    { text: 'Tool note: kept it (7 ms)', dedupeKey: `${turn.workflowId}:${turn.turnKey}:call_2`, at: new Date(Date.now() - 1_000).toISOString() },
  ];
  const REPLY = 'Your order arrives Friday.';

  /** The reply's step, dying as it writes the provider's answer: the message is out, nothing recorded. */
  async function replyThatDied(turn: AgentTurn, trail: PendingTrailRow[]): Promise<string> {
    const dying = hookedDb(db, ['updateOne'], async (call) => {
      const update = call.args[1] as { $set?: { state?: string } };
      if (call.collection === 'send_intents' && update.$set?.state === 'sent') throw new Error('worker killed');
      return call.run();
    });
    await expect(sendReply(deps(dying), { turn, agentId: ws.agentId, text: REPLY, trail })).rejects.toThrow('worker killed');
    return `wamid.ADOPTED${sent.length}`;
  }

  /** The Cloud API's `sent` webhook for the reply, with the intent key the send gave it. */
  const statusArrives = (turn: AgentTurn, messageId: string) =>
    ingestCloudWebhook(
      { db, events: events(), temporal: null as never, taskQueue: 'unused', inboundHooks: { received: [] } },
      {
        inbound: [],
        statuses: [{ phoneNumberId: '1001', displayPhoneNumber: null, id: messageId, status: 'sent', recipient: turn.customerPhone.slice(1), at: new Date(), error: null, callbackData: agentSendIntentKey(turn.tenantId, turn.workflowId, turn.turnKey) }],
        echoes: [],
      },
      {},
      later(),
    );

  const transcript = async (conversationId: string) =>
    (await conversationMessagesCollection(db).find({ conversation_id: conversationId }).toArray()).sort((a, b) => (a._id < b._id ? -1 : 1));
  const lines = async (conversationId: string) => (await transcript(conversationId)).map((m) => [m.role, m.kind, m.text]);

  it("records the turn's trail rows with the adopted reply, as the step writes them; the step's retry then finds it all and writes nothing more", async () => {
    const turn = await customerWrote();
    const trail = trailOf(turn);
    const messageId = await replyThatDied(turn, trail);
    expect(await lines(turn.conversationId)).toEqual([['user', 'turn', 'Where is my order 4821?']]);

    expect(await statusArrives(turn, messageId)).toEqual({ applied: 1, parked: 0, skipped: 0 });
    expect(await lines(turn.conversationId)).toEqual([
      ['user', 'turn', 'Where is my order 4821?'],
      ['model', 'trail', trail[0]!.text],
      ['model', 'trail', trail[1]!.text],
      ['model', 'turn', REPLY],
    ]);
    // The documents the reply's step writes (src/agents/trail.ts `trailTurn`): its role, kind, time and key.
    const rows = (await transcript(turn.conversationId)).filter((m) => m.kind === 'trail');
    expect(rows).toEqual(
      trail.map((row) => ({
        _id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
        tenant_id: ws.workspaceId,
        conversation_id: turn.conversationId,
        role: 'model',
        kind: 'trail',
        text: row.text,
        created_at: new Date(row.at),
        dedupe_key: `agent-trail:${row.dedupeKey}`,
      })),
    );
    expect(await outboundMessagesCollection(db).findOne({ _id: messageId })).toMatchObject({ conversation_id: turn.conversationId, kind: 'text', status: 'sent' });

    // The workflow retries the reply step: the send is found recorded, nothing is sent or written again.
    const adopted = await transcript(turn.conversationId);
    expect(await sendReply(deps(db, later), { turn, agentId: ws.agentId, text: REPLY, trail })).toEqual({ sent: true, messageId });
    expect(await transcript(turn.conversationId)).toEqual(adopted);
    expect(sent.filter((r) => r.to === turn.customerPhone)).toHaveLength(1);
  });

  it('records each trail row once when the step’s retry decided the outcome unknown first and recorded them with its not-sent row', async () => {
    const turn = await customerWrote();
    const trail = trailOf(turn);
    const messageId = await replyThatDied(turn, trail);
    const unknown = await sendReply(deps(db, later), { turn, agentId: ws.agentId, text: REPLY, trail });
    expect(unknown).toEqual({ sent: false, reason: 'An earlier attempt of this send stopped before its outcome was recorded; it may have gone out, so it is not sent again.' });

    // The status comes after the retry's decision: the reply is recorded, its trail rows are not written twice.
    expect(await statusArrives(turn, messageId)).toEqual({ applied: 1, parked: 0, skipped: 0 });
    const all = await lines(turn.conversationId);
    expect(all.filter(([, kind]) => kind === 'trail')).toEqual([
      ['model', 'trail', trail[0]!.text],
      ['model', 'trail', trail[1]!.text],
      ['model', 'trail', `Reply not sent: ${unknown.sent ? '' : unknown.reason}`],
    ]);
    expect(all.filter(([, kind]) => kind === 'turn')).toEqual([
      ['user', 'turn', 'Where is my order 4821?'],
      ['model', 'turn', REPLY],
    ]);
    expect(sent.filter((r) => r.to === turn.customerPhone)).toHaveLength(1);
  });
});
