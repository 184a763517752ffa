import type { CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { agentBuiltInTools, createToolbox, type AgentToolSource } from '../../../src/agents';
import { conversationAgentWorkflowId } from '../../../src/agents/contracts';
import { conversationIdFor, findConversation } from '../../../src/conversations';
import { collections } from '../../../src/db/collections';
import { useTestApi } from '../../support/app';
import { cloudApiEnv, cloudCustomers, cloudWhatsApp, type CloudCustomers } from '../../support/cloudCustomer';
import { FakeGraph } from '../../support/fakeGraph';
import { bearer } from '../../support/http';
import { CONSOLE, eventsOf, eventually as eventuallyWithin } from '../../support/messaging';

const APP_SECRET = 'test-app-secret';

/** A business tool as another source would offer it: looks up an order by its number. */
const orderTools: AgentToolSource = () =>
  Promise.resolve([
    {
      name: 'look_up_order',
      description: 'Find an order by its number and say where it is.',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
      run: (context, args) =>
        Promise.resolve({
          ok: true,
          output: { status: `Order ${(args as { order_id: string }).order_id} left our warehouse and arrives Friday.` },
          trail: { kind: 'lookup' as const, text: `Looked up order ${(args as { order_id: string }).order_id}` },
          latencyMs: 3,
        }),
    },
  ]);

/**
 * The agent's burst window: a burst's messages are one turn when each came within it of the one
 * before. Three webhook deliveries in a row can each take seconds on a loaded machine (900 ms
 * between them made 700 ms windows answer each alone), so the window is long enough for them
 * to be one burst there too.
 */
const BURST_QUIET_MS = 5_000;

/** Each wait here goes through the webhook, a workflow and its steps: a minute, not the default 20 s, on a loaded machine. */
const eventually = <T,>(probe: () => Promise<T | null | undefined | false>, what: string) => eventuallyWithin(probe, what, 60_000);
// A case waits on several turns, each a burst window and more.
jest.setTimeout(120_000);

describe('the WhatsApp chat agent, through the Cloud API webhook and the console inbox', () => {
  let graph: FakeGraph;
  let baseUrl: string;
  let n = 0;
  const fresh = () => `9194${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;

  beforeAll(async () => {
    graph = new FakeGraph();
    baseUrl = await graph.start();
  });
  afterAll(async () => {
    await graph?.stop();
  });
  const { api, ws } = useTestApi(() => ({
    env: { ...cloudApiEnv(baseUrl, APP_SECRET), AGENT_BURST_QUIET_MS: String(BURST_QUIET_MS), AGENT_HOLD_TIMEOUT_MINUTES: '60' },
    worker: { whatsapp: cloudWhatsApp(baseUrl, 5_000), toolbox: createToolbox([agentBuiltInTools, orderTools]) },
    workspace: { chatAgent: true },
  }));
  let customers: CloudCustomers;
  beforeAll(async () => {
    customers = await cloudCustomers(api.db, ws.senderId, APP_SECRET);
  });

  let ids = 0;
  async function customerWrites(from: string, text: string, at = new Date()) {
    const id = `wamid.in.${from}.${ids++}`;
    await customers.writes(api.server, from, id, text, at.getTime());
    return id;
  }
  const textsTo = (digits: string) => graph.requests.filter((r) => r.body.type === 'text' && r.body.to === digits).map((r) => (r.body.text as { body: string }).body);
  const readMarks = (messageId: string) => graph.requests.filter((r) => r.body.status === 'read' && r.body.message_id === messageId);
  const consoleApi = (method: 'get' | 'post' | 'patch', path: string) => request(api.server)[method](`/console/v1/workspaces/${ws.workspaceId}/${path}`).set(CONSOLE);
  const conversationOf = async (digits: string) => {
    const id = conversationIdFor(ws.workspaceId, 'whatsapp', digits);
    return (await collections(api.db).senders.findOne({ _id: ws.senderId })) && (await findConversation(api.db, ws.workspaceId, id)) ? id : null;
  };
  const consoleTurns = async (conversationId: string) =>
    (await consoleApi('get', `conversations/${conversationId}/transcript`)).body.items as { role: string; kind: string; text: string; author_name: string | null }[];
  /** Waits a little past the burst window and the turn, then checks nothing more went out. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, BURST_QUIET_MS + 1_800));

  it('refuses to deploy an agent the workspace does not have, and deploys and undeploys one', async () => {
    const unknown = await consoleApi('patch', `senders/${ws.senderId}`).send({ agent_id: 'bot_nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found', message: 'Agent not found in this workspace.' });
    const off = await consoleApi('patch', `senders/${ws.senderId}`).send({ agent_id: null });
    expect(off.status).toBe(200);
    expect(off.body.agent_id).toBeNull();
    const on = await consoleApi('patch', `senders/${ws.senderId}`).send({ agent_id: ws.agentId });
    expect(on.status).toBe(200);
    expect(on.body.agent_id).toBe(ws.agentId);
  });

  it('answers "Where is my order?" with a business tool: read mark with typing, one model reply, a trail row hidden from the public transcript', async () => {
    const from = fresh();
    const inbound = await customerWrites(from, 'Where is my order 4821?');
    const [reply] = await eventually(async () => (textsTo(from).length > 0 ? textsTo(from) : null), 'the agent reply');
    expect(reply).toBe('Order 4821 left our warehouse and arrives Friday.');
    expect(readMarks(inbound)).toEqual([
      { url: '/v21.0/1001/messages', authorization: 'Bearer graph-token', body: { messaging_product: 'whatsapp', status: 'read', message_id: inbound, typing_indicator: { type: 'text' } } },
    ]);
    const conversationId = (await conversationOf(from))!;
    const turns = await eventually(async () => {
      const all = await consoleTurns(conversationId);
      return all.some((t) => t.role === 'model' && t.kind === 'turn') ? all : null;
    }, 'the model turn');
    expect(turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'turn', 'Where is my order 4821?'],
      ['model', 'trail', expect.stringMatching(/^Lookup look_up_order: Looked up order 4821 \(\d+ ms\)$/)],
      ['model', 'turn', 'Order 4821 left our warehouse and arrives Friday.'],
    ]);
    const shown = (await request(api.server).get(`/api/v1/conversations/${conversationId}/messages`).set(bearer(ws.key))).body.items as { role: string; text: string }[];
    expect(shown.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Where is my order 4821?'],
      ['model', 'Order 4821 left our warehouse and arrives Friday.'],
    ]);
    // Temporal's cost of the turn: the whole run's history so far (start, signal, one workflow task of markers, the idle timer).
    const history = await api.temporal.workflow.getHandle(conversationAgentWorkflowId(conversationId)).fetchHistory();
    const events = history.events?.length ?? 0;
    // The burst is waited out in the turn's first step, not by a workflow timer (which the dev server fires about a second late).
    expect(history.events?.filter((e) => e.timerFiredEventAttributes)).toEqual([]);
    // eslint-disable-next-line no-console
    console.log(`conversation agent: ${events} history events after one turn with one tool call`);
    expect(events).toBeLessThanOrEqual(20);
  });

  it("reads the sender once for a message and its turn: the webhook's routing read serves the agent's hook and the turn's checks, and the window the message opened is not read back", async () => {
    const from = fresh();
    const senderReads: unknown[] = [];
    let windowReads = 0;
    const listener = (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && e.command.find === 'senders') senderReads.push(e.command.filter);
      if (e.commandName === 'find' && e.command.find === 'whatsapp_windows') windowReads++;
    };
    api.mongo.on('commandStarted', listener);
    try {
      await customerWrites(from, 'hello');
      // The hook started the conversation's agent from that read, and the turn's checks passed on it: the customer is answered.
      await eventually(async () => textsTo(from).length === 1, 'the agent reply');
    } finally {
      api.mongo.off('commandStarted', listener);
    }
    const sender = (await collections(api.db).senders.findOne({ _id: ws.senderId }))!;
    expect(senderReads).toEqual([{ phone: sender.phone, connected: true }]);
    expect(windowReads).toBe(0);
    expect(textsTo(from)).toEqual(['Hello! How can I help you today?']);
    await settle();
  });

  it('answers a burst of messages with one reply', async () => {
    const from = fresh();
    await customerWrites(from, 'hi');
    await customerWrites(from, 'I have a question');
    await customerWrites(from, 'about my order 7310');
    await eventually(async () => textsTo(from).length > 0, 'the reply');
    await settle();
    expect(textsTo(from)).toEqual(['Order 7310 left our warehouse and arrives Friday.']);
  });

  it('sends nothing after STOP, and says why in the trail', async () => {
    const from = fresh();
    await customerWrites(from, 'STOP');
    const conversationId = (await eventually(() => conversationOf(from), 'the conversation'))!;
    const turns = await eventually(async () => {
      const all = await consoleTurns(conversationId);
      return all.some((t) => t.kind === 'trail') ? all : null;
    }, 'the trail row');
    expect(turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'turn', 'STOP'],
      ['model', 'trail', 'Not answered: the customer opted out (STOP); nothing is sent to them.'],
    ]);
    await settle();
    expect(textsTo(from)).toEqual([]);
  });

  it('sends no free text outside the 24-hour window, and says why in the trail', async () => {
    const from = fresh();
    await customerWrites(from, 'Where is my order 5555?', new Date(Date.now() - 25 * 60 * 60_000));
    const conversationId = (await eventually(() => conversationOf(from), 'the conversation'))!;
    const turns = await eventually(async () => {
      const all = await consoleTurns(conversationId);
      return all.some((t) => t.kind === 'trail') ? all : null;
    }, 'the trail row');
    expect(turns.at(-1)).toMatchObject({ role: 'model', kind: 'trail', text: 'Not answered: the 24-hour window is closed, and an agent sends no free text outside it (only a template may go).' });
    await settle();
    expect(textsTo(from)).toEqual([]);
  });

  it('hands over when asked, lets a team member reply as human from the inbox, and answers again once handed back', async () => {
    const from = fresh();
    await customerWrites(from, 'Can I talk to a person please');
    await eventually(async () => textsTo(from).length > 0, 'the hand-over reply');
    expect(textsTo(from)).toEqual(['I have asked a colleague to take over: a person from our team will reply here shortly.']);
    const conversationId = (await conversationOf(from))!;
    const inbox = await eventually(async () => {
      const items = (await consoleApi('get', 'agent-inbox?filter=waiting')).body.items as { conversation_id: string }[];
      return items.find((i) => i.conversation_id === conversationId);
    }, 'the inbox entry');
    expect(inbox).toMatchObject({ conversation_id: conversationId, state: 'waiting', reason: 'The customer asked for a person.', customer_phone: `+${from}`, member_name: null });
    // The event is published after the inbox entry is written: wait for it as for the hand-back's.
    await eventually(async () => (await eventsOf(api.db, ws.workspaceId, 'conversation.handed_over')).some((e) => e.data.conversation_id === conversationId), 'handed_over');

    // Held: the agent stays silent.
    await customerWrites(from, 'Hello? Anyone?');
    await settle();
    expect(textsTo(from)).toHaveLength(1);

    const reply = await consoleApi('post', `conversations/${conversationId}/team-replies`).send({ member_name: 'Priya', text: 'Hi, Priya here. Your refund is on its way.' });
    expect(reply.status).toBe(201);
    expect(textsTo(from)).toEqual(['I have asked a colleague to take over: a person from our team will reply here shortly.', 'Hi, Priya here. Your refund is on its way.']);
    const held = (await consoleApi('get', 'agent-inbox?filter=held')).body.items as { conversation_id: string; state: string; member_name: string }[];
    expect(held.find((i) => i.conversation_id === conversationId)).toMatchObject({ state: 'held', member_name: 'Priya' });
    expect((await consoleApi('get', 'agent-inbox?filter=waiting')).body.items.map((i: { conversation_id: string }) => i.conversation_id)).not.toContain(conversationId);
    const turns = await consoleTurns(conversationId);
    expect(turns.filter((t) => t.kind === 'turn' && t.role === 'human')).toEqual([expect.objectContaining({ text: 'Hi, Priya here. Your refund is on its way.', author_name: 'Priya' })]);

    const back = await consoleApi('post', `conversations/${conversationId}/hand-back`).send({ member_name: 'Priya' });
    expect(back.status).toBe(202);
    await eventually(async () => (await eventsOf(api.db, ws.workspaceId, 'conversation.handed_back')).some((e) => e.data.conversation_id === conversationId), 'handed_back');
    const again = await consoleApi('post', `conversations/${conversationId}/hand-back`).send({ member_name: 'Priya' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', details: { reason: 'not_held' } });

    await customerWrites(from, 'Thanks! And where is order 9090?');
    await eventually(async () => textsTo(from).length === 3, 'the agent answering again');
    expect(textsTo(from)[2]).toBe('Order 9090 left our warehouse and arrives Friday.');
    const all = (await consoleApi('get', 'agent-inbox?filter=all')).body.items as { conversation_id: string; state: string }[];
    expect(all.find((i) => i.conversation_id === conversationId)).toMatchObject({ state: 'returned' });
  });

  it('refuses inbox actions on a conversation no agent answers', async () => {
    const res = await consoleApi('post', 'conversations/con_000000000000000000000000/hand-back').send({ member_name: 'Priya' });
    expect(res.status).toBe(412);
    expect(res.body.error).toMatchObject({ code: 'failed_precondition', details: { reason: 'agent_not_running' } });
  });
});
