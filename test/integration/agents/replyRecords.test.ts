import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { beginTurn, createToolbox, sendReply, TurnChecks, type AgentTurnDeps } from '../../../src/agents';
import { runTool } from '../../../src/agents/turns';
import { ROUTED_SENDER_FRESH_MS } from '../../../src/agents/turns';
import type { AgentTurn } from '../../../src/agents/contracts';
import { conversationMessagesCollection, findConversation, recordTurn } from '../../../src/conversations';
import { collections } from '../../../src/db/collections';
import { createEventPublisher } from '../../../src/events/publisher';
import { recordOptOut } from '../../../src/messaging/optOut';
import { openWindow, SESSION_WINDOW_MS } from '../../../src/messaging/sessionWindow';
import { openTestDb, testConfig } from '../../support/env';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';
import { acceptingProvider } from '../../support/acceptingProvider';

/**
 * The reply's step on its own (src/agents/turns.ts `sendReply`) against FerretDB: the turn's
 * trail rows recorded with the reply in one write, and the send told what the turn's first
 * step checked (sender, window) while still reading the opt-out.
 */
describe("a chat turn's reply step", () => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;
  let n = 0;
  const { provider, sent } = acceptingProvider('simulator', 'REPLY');

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db, { chatAgent: true });
  });
  afterAll(async () => {
    await drop();
  });

  function deps(now: () => Date = () => new Date()): AgentTurnDeps {
    return {
      db,
      events: createEventPublisher(db, { dispatch: async () => undefined }),
      whatsapp: provider,
      deploymentChannels: ['whatsapp'],
      model: { name: 'none', respond: () => Promise.reject(new Error('no model in this test')) },
      toolbox: createToolbox([]),
      now,
      checks: new TurnChecks(),
    };
  }

  /** A customer who wrote at `at`: their turn in the conversation and the window it opens, as the inbound path records them. */
  async function customerWrote(at: Date): Promise<AgentTurn> {
    const phone = `+9198${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;
    const inbound = await recordTurn({ db, events: createEventPublisher(db, { dispatch: async () => undefined }) }, { tenantId: ws.workspaceId, channel: 'whatsapp', customer: { phone }, role: 'user', text: 'Where is my order 4821?', at, dedupeKey: `wa-in:wamid.IN${n}` });
    await openWindow(db, { tenantId: ws.workspaceId, senderId: ws.senderId, customer: phone, at });
    return {
      tenantId: ws.workspaceId,
      conversationId: inbound.conversationId,
      senderId: ws.senderId,
      customerPhone: phone,
      workflowId: `agent-${inbound.conversationId}`,
      turnKey: `turn-1-${inbound.messageId}`,
      messageIds: [inbound.messageId],
      providerMessageId: `wamid.IN${n}`,
      at: at.toISOString(),
    };
  }

  const transcript = async (conversationId: string) =>
    (await conversationMessagesCollection(db).find({ conversation_id: conversationId }).toArray()).sort((a, b) => (a._id < b._id ? -1 : 1)).map((m) => [m.role, m.kind, m.text]);
  const sentTo = (phone: string) => sent.filter((r) => r.to === phone);

  it('records the tool runs’ trail rows with the reply in one write, in order, the reply counted once however often the step runs', async () => {
    const turn = await customerWrote(new Date(Date.now() - 2_000));
    const step = deps();
    expect(await beginTurn(step, turn)).toEqual({ answer: true, agentId: ws.agentId });
    const trail = [{ text: 'Lookup look_up_order: Looked up order 4821 (3 ms)', dedupeKey: `${turn.workflowId}:${turn.turnKey}:call_1`, at: new Date(Date.now() - 1_000).toISOString() }];
    const first = await sendReply(step, { turn, agentId: ws.agentId, text: 'Your order arrives Friday.', trail });
    expect(first).toEqual({ sent: true, messageId: 'wamid.REPLY' + String(sent.length) });
    // A retried step (another process: no checks kept) finds its send and its rows.
    const again = await sendReply(deps(), { turn, agentId: ws.agentId, text: 'Your order arrives Friday.', trail });
    expect(again).toEqual(first);
    expect(sentTo(turn.customerPhone)).toHaveLength(1);
    expect(await transcript(turn.conversationId)).toEqual([
      ['user', 'turn', 'Where is my order 4821?'],
      ['model', 'trail', 'Lookup look_up_order: Looked up order 4821 (3 ms)'],
      ['model', 'turn', 'Your order arrives Friday.'],
    ]);
    const conversation = await findConversation(db, ws.workspaceId, turn.conversationId);
    // The trail row is in the conversation's memory but not counted; the reply is counted once.
    expect(conversation).toMatchObject({ message_count: 2, preview: 'Your order arrives Friday.' });
    expect(conversation!.recent_message_ids).toHaveLength(3);
  });

  it('sends nothing when the customer wrote STOP after the turn’s check, and records why with the turn’s trail rows', async () => {
    const turn = await customerWrote(new Date(Date.now() - 2_000));
    const step = deps();
    expect(await beginTurn(step, turn)).toEqual({ answer: true, agentId: ws.agentId });
    // STOP arrives while the model and the tool run: after the turn's check, before its reply.
    await recordOptOut(db, { tenantId: ws.workspaceId, phone: turn.customerPhone, sourceMessageId: 'wamid.STOP', at: new Date() });
    const trail = [{ text: 'Lookup look_up_order: Looked up order 4821 (3 ms)', dedupeKey: `${turn.workflowId}:${turn.turnKey}:call_1`, at: new Date(Date.now() - 1_000).toISOString() }];
    const outcome = await sendReply(step, { turn, agentId: ws.agentId, text: 'Your order arrives Friday.', trail });
    expect(outcome).toEqual({ sent: false, reason: `${turn.customerPhone} opted out by replying STOP; nothing can be sent to this number.` });
    expect(sentTo(turn.customerPhone)).toEqual([]);
    expect(await transcript(turn.conversationId)).toEqual([
      ['user', 'turn', 'Where is my order 4821?'],
      ['model', 'trail', 'Lookup look_up_order: Looked up order 4821 (3 ms)'],
      ['model', 'trail', `Reply not sent: ${turn.customerPhone} opted out by replying STOP; nothing can be sent to this number.`],
    ]);
  });

  it('refuses a reply once the window the turn found open has closed, and sends one whose window the customer opened again meanwhile', async () => {
    const wroteAt = new Date(Date.now() - SESSION_WINDOW_MS + 60_000);
    const closing = await customerWrote(wroteAt);
    const step = deps(() => new Date(wroteAt.getTime() + SESSION_WINDOW_MS + 1_000));
    expect(await beginTurn(step, closing)).toEqual({ answer: true, agentId: ws.agentId });
    const refused = await sendReply(step, { turn: closing, agentId: ws.agentId, text: 'Your order arrives Friday.' });
    expect(refused).toEqual({ sent: false, reason: `The 24-hour window with ${closing.customerPhone} is closed; send a template instead.` });
    expect(sentTo(closing.customerPhone)).toEqual([]);

    const reopened = await customerWrote(wroteAt);
    const later = deps(() => new Date(wroteAt.getTime() + SESSION_WINDOW_MS + 1_000));
    expect(await beginTurn(later, reopened)).toEqual({ answer: true, agentId: ws.agentId });
    await openWindow(db, { tenantId: ws.workspaceId, senderId: ws.senderId, customer: reopened.customerPhone, at: new Date() });
    expect(await sendReply(later, { turn: reopened, agentId: ws.agentId, text: 'Your order arrives Friday.' })).toMatchObject({ sent: true });
    expect(sentTo(reopened.customerPhone)).toHaveLength(1);
  });

  it("takes the sender the inbound path routed the message by and the window it opened, reading neither while fresh; the send sends on them", async () => {
    const config = testConfig();
    const watched = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
    const reads: string[] = [];
    watched.on('commandStarted', (e: CommandStartedEvent) => {
      // The turn's checks' collections (a send's records may still be written as the next step runs).
      if (e.commandName === 'find' && ['senders', 'suppressions', 'whatsapp_windows'].includes(String(e.command.find))) reads.push(String(e.command.find));
    });
    try {
      const turn = await customerWrote(new Date(Date.now() - 2_000));
      const sender = (await collections(db).senders.findOne({ _id: ws.senderId }))!;
      const told: AgentTurn = { ...turn, inbound: { at: turn.at, routed: { sender: { ...sender, created_at: sender.created_at.toISOString() }, at: turn.at } } };
      const step = { ...deps(), db: watched.db(db.databaseName) };
      expect(await beginTurn(step, told)).toEqual({ answer: true, agentId: ws.agentId });
      // The opt-out only: a STOP is not known to the inbound path of another message.
      expect(reads).toEqual(['suppressions']);
      expect(await sendReply(step, { turn: told, agentId: ws.agentId, text: 'Your order arrives Friday.' })).toEqual({ sent: true, messageId: expect.any(String) });
      expect(sentTo(turn.customerPhone)).toEqual([expect.objectContaining({ senderId: ws.senderId, from: sender.phone, to: turn.customerPhone })]);
      // The send reads the opt-out again (a STOP since), not the sender nor the window.
      expect(reads).toEqual(['suppressions', 'suppressions']);

      // A turn begun long after its message (a retried step, a worker back from an outage) reads the sender as it is now: undeployed, not answered.
      await collections(db).senders.updateOne({ _id: ws.senderId }, { $set: { agent_id: null } });
      try {
        reads.length = 0;
        const late = { ...deps(() => new Date(Date.parse(turn.at) + ROUTED_SENDER_FRESH_MS + 1_000)), db: watched.db(db.databaseName) };
        expect(await beginTurn(late, { ...told, turnKey: `${told.turnKey}-late` })).toEqual({ answer: false, reason: 'no_agent' });
        expect(reads.sort()).toEqual(['senders', 'suppressions']);
      } finally {
        await collections(db).senders.updateOne({ _id: ws.senderId }, { $set: { agent_id: ws.agentId } });
      }

      // A message written more than a day before its turn: the window is read (another message may have opened it again).
      reads.length = 0;
      const old = new Date(Date.now() - SESSION_WINDOW_MS - 60_000).toISOString();
      expect(await beginTurn(step, { ...told, turnKey: `${told.turnKey}-old`, inbound: { at: old } })).toEqual({ answer: true, agentId: ws.agentId });
      expect(reads.sort()).toEqual(['senders', 'suppressions', 'whatsapp_windows']);
    } finally {
      await watched.close();
    }
  });

  it("gives a tool run's trail row its latency once, whether the tool's own words carry it or not", async () => {
    const turn = await customerWrote(new Date(Date.now() - 2_000));
    const tools = createToolbox([
      async () => [
        // A business tool's failure says its latency in brackets (src/businessTools/callTool.ts).
        { name: 'look_up_order', description: 'Where an order is.', parameters: { type: 'object', properties: {} }, run: async () => ({ ok: false, output: { error: 'look_up_order could not be reached.' }, trail: { kind: 'tool' as const, text: 'look_up_order failed: ECONNRESET: socket hang up (20 ms)' }, latencyMs: 20 }) },
        { name: 'note', description: 'Takes a note.', parameters: { type: 'object', properties: {} }, run: async () => ({ ok: true, output: 'noted', trail: { kind: 'tool' as const, text: 'kept it' }, latencyMs: 7 }) },
      ],
    ]);
    const step = { ...deps(), toolbox: tools };
    const failed = await runTool(step, { turn, agentId: ws.agentId, call: { callId: 'call_1', name: 'look_up_order', arguments: '{}' } });
    expect(failed.trail?.text).toBe('Tool (failed): look_up_order failed: ECONNRESET: socket hang up (20 ms)');
    const ran = await runTool(step, { turn, agentId: ws.agentId, call: { callId: 'call_2', name: 'note', arguments: '{}' } });
    expect(ran.trail?.text).toBe('Tool note: kept it (7 ms)');
  });

  it('tells the send the sender the turn read: one not connected then is refused as a named one is, without reading it again', async () => {
    const turn = await customerWrote(new Date(Date.now() - 2_000));
    const step = deps();
    expect(await beginTurn(step, turn)).toEqual({ answer: true, agentId: ws.agentId });
    const sender = (await collections(db).senders.findOne({ _id: ws.senderId }))!;
    step.checks!.remember(`${turn.workflowId}:${turn.turnKey}`, { sender: { ...sender, connected: false }, windowOpenUntil: new Date(Date.now() + 60_000) });
    expect(await sendReply(step, { turn, agentId: ws.agentId, text: 'Your order arrives Friday.' })).toEqual({ sent: false, reason: `Sender ${ws.senderId} is not connected.` });
    expect(sentTo(turn.customerPhone)).toEqual([]);
  });
});
