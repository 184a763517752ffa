import { agentBuiltInTools, createToolbox, type AgentToolContext, type AgentToolSource } from '../../../src/agents';
import { builtInToolSource } from '../../../src/agents/builtIns';
import { businessToolSource } from '../../../src/businessTools';
import type { LineTurnDoc } from '../../../src/calls/line/lineTurns';
import { matchOrCreateContact } from '../../../src/contacts';
import { conversationIdFor, conversationMessagesCollection } from '../../../src/conversations';
import { collections } from '../../../src/db/collections';
import { HAND_OVER_LINE_INSTRUCTIONS } from '../../../src/media/callHandOver';
import { HOLD_LINE_INSTRUCTIONS } from '../../../src/media/callTools';
import { startTestApi, type TestApi } from '../../support/app';
import { builtInDeps } from '../../support/agentTools';
import { pollCall } from '../../support/calls';
import { eventually } from '../../support/messaging';
import { ORDER_TOOL_NAME, OrderDesk, declaredOrderDesk } from '../../support/orderDesk';
import { startFakeRealtime, type FakeModelSession, type FakeRealtime, type ModelScript } from '../../support/fakeRealtime';
import { answeredCall, startLineCallWorker, startTestBridge, type TestBridge } from '../../support/mediaBridge';
import { MediaStreamClient } from '../../support/mediaStreamClient';
import { speechMulaw } from '../../support/speechAudio';
import type { TestWorker } from '../../support/worker';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * The voice agent's tools mid-call, with real speech through the media bridge: the fake
 * realtime model calls tools as the Realtime API does (`response.function_call_arguments.done`,
 * a `function_call` output item), the bridge runs them through the toolbox on the `voice`
 * channel and sends each result back as a `function_call_output` item; a tool slower than the
 * hold threshold gets a hold line said over the silence; the tool runs and the hold line are
 * trail rows of the call's conversation.
 */
jest.setTimeout(90_000);

const API_KEY = 'sk-test-realtime-tools-0123456789';
const OPENING = 'Hello, this is the assistant from Acme. How can I help you today?';
const PERSON = 'Can you check my order please?';
const HOLD = 'One moment, please.';
const ANSWER = 'Asha, your order ships tomorrow morning. Goodbye.';
const HOLD_AFTER_MS = 800;

describe('tools on a live call', () => {
  let api: TestApi;
  let worker: TestWorker;
  let model: FakeRealtime;
  const scripts = new Map<string, ModelScript>();
  const audio: Record<string, Buffer> = {};
  /** What the slow tool was asked, with the context the bridge gave it. */
  const orderChecks: { context: AgentToolContext; args: unknown }[] = [];
  let sessionOfCall: (token: string) => FakeModelSession | undefined;

  beforeAll(async () => {
    for (const text of [OPENING, PERSON, HOLD, ANSWER]) audio[text] = speechMulaw(text);
    api = await startTestApi();
    worker = await startLineCallWorker(api);
    model = await startFakeRealtime({
      apiKey: API_KEY,
      scriptFor: (instructions) => [...scripts.entries()].find(([token]) => instructions.includes(token))?.[1] ?? { turns: [], heard: [] },
    });
    sessionOfCall = (token) => model.sessions.find((s) => s.instructions.includes(token));
  });

  afterAll(async () => {
    await model?.close();
    await worker?.close();
    await api?.close();
  });

  const say = (text: string) => ({ audio: audio[text]!, transcript: text });

  /**
   * A business system slower than the hold threshold: it answers only once the model has been
   * asked for the hold line (so the hold line is certain, whatever the machine's load), and a
   * little after, as a slow order system would.
   */
  const slowOrders = (token: string): AgentToolSource => async () => [
    {
      name: 'check_order',
      description: 'Check where an order is.',
      parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'], additionalProperties: false },
      async run(context, args) {
        orderChecks.push({ context, args });
        const started = Date.now();
        await eventually(async () => (sessionOfCall(token)?.instructedResponses.length ?? 0) > 0, 'the hold line asked for');
        await new Promise((resolve) => setTimeout(resolve, 500));
        return { ok: true, output: { order: '1234', status: 'ships tomorrow morning' }, trail: { kind: 'lookup', text: 'Checked order 1234: ships tomorrow morning' }, latencyMs: Date.now() - started };
      },
    },
  ];

  /** A workspace whose number records nothing and hands over to `teamLine` (null: it has none). */
  async function toolsWorkspace(teamLine: string | null = null): Promise<TestWorkspace> {
    const ws = await createTestWorkspace(api.db);
    await collections(api.db).phoneNumbers.updateOne({ _id: ws.phoneNumber.slice(1) }, { $set: { recording: false, team_line: teamLine } });
    return ws;
  }

  /** A destination of its own for a test: the prefix, then five digits of the clock. */
  const destination = (prefix: string) => `${prefix}${String(Date.now() % 100_000).padStart(5, '0')}`;

  /**
   * A call whose agent has `sources` for tools: the model plays `script` (picked by `token`,
   * which the purpose ends with; the person says PERSON once the agent's turn is done), the
   * call is answered and its stream opened; when the bridge asks the line to end or move the
   * call, the stream stops (Twilio's part). `check` runs once the stream has closed, the bridge
   * still up.
   */
  async function callWithTools(
    call: { ws: TestWorkspace; to: string; token: string; purpose: string; script: Omit<ModelScript, 'heard'>; sources: AgentToolSource[]; holdAfterMs?: number },
    check: (run: { callId: string; client: MediaStreamClient; bridge: TestBridge }) => Promise<void>,
  ): Promise<void> {
    scripts.set(call.token, { ...call.script, heard: [PERSON] });
    const bridge = await startTestBridge(api, {
      realtimeUrl: model.url,
      apiKey: API_KEY,
      tools: { toolbox: createToolbox(call.sources), holdAfterMs: call.holdAfterMs ?? 20_000, timeoutMs: 20_000 },
    });
    try {
      const callId = await answeredCall(api, call.ws, call.to, `${call.purpose} ${call.token}`);
      await pollCall(api, call.ws.key, callId, (b) => b.status === 'in_progress');
      const client = await MediaStreamClient.connect(bridge.streamUrl(callId), { callId });
      bridge.lineControl.onRequest = async () => {
        setTimeout(() => void client.stop(), 50);
      };
      await client.agentFinished();
      await client.say(audio[PERSON]!);
      await client.closed;
      await check({ callId, client, bridge });
    } finally {
      await bridge.close();
    }
  }

  it('runs the agent’s tools mid-call: results reach the model, a slow tool gets the hold line, and the trail rows join the call’s conversation', async () => {
    const ws = await toolsWorkspace();
    const to = destination('+9198111');
    const workspace = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    const { contact } = await matchOrCreateContact(api.db, workspace, { name: 'Asha Rao', phone: to }, new Date());
    const token = `purpose-tools-${Date.now()}`;
    const script: Omit<ModelScript, 'heard'> = {
      turns: [
        { say: say(OPENING) },
        { call: { name: 'find_contact', arguments: {} } },
        { call: { name: 'check_order', arguments: { order: '1234' } } },
        { say: say(ANSWER), call: 'end_call' },
      ],
      instructed: { say: say(HOLD) },
    };
    await callWithTools({ ws, to, token, purpose: 'checking an order', script, sources: [builtInToolSource(builtInDeps(api)), slowOrders(token)], holdAfterMs: HOLD_AFTER_MS }, async ({ callId }) => {
      const ended = await pollCall(api, ws.key, callId, (b) => b.status === 'completed');
      expect(ended.outcome).toBe('agent_hangup');

      const session = sessionOfCall(token)!;
      // The agent was offered its line tool, the built-ins and the workspace's tool.
      const configured = session.sessionUpdates.find((u) => u.instructions)!;
      expect(configured.tools.map((t: { name: string }) => t.name)).toEqual([
        'end_call',
        'find_contact',
        'open_ticket',
        'read_dues',
        'send_payment_link',
        'schedule_call_back',
        'send_whatsapp_follow_up',
        'check_order',
      ]);
      expect(configured.tools[7]).toMatchObject({ type: 'function', name: 'check_order', parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] } });

      // Each function call's result went back to the model as its function_call_output.
      expect(session.functionCalls.map((c) => [c.name, c.arguments])).toEqual([
        ['find_contact', '{}'],
        ['check_order', '{"order":"1234"}'],
        ['end_call', '{}'],
      ]);
      const [findCall, orderCall, endCall] = session.functionCalls;
      expect(session.toolOutputs).toEqual([
        { call_id: findCall!.call_id, output: JSON.stringify({ found: true, contact: { id: contact._id, name: 'Asha Rao', email: null, phone: to, external_id: null, tags: [] } }) },
        { call_id: orderCall!.call_id, output: JSON.stringify({ order: '1234', status: 'ships tomorrow morning' }) },
        { call_id: endCall!.call_id, output: 'The call is ending.' },
      ]);
      // The slow tool ran on the voice channel for this call, keyed by the model's call id.
      expect(orderChecks).toEqual([
        {
          context: { tenantId: ws.workspaceId, agentId: ws.agentId, channel: 'voice', callId, customerPhone: to, runKey: `${callId}:${orderCall!.call_id}`, now: expect.any(Date) },
          args: { order: '1234' },
        },
      ]);
      // The hold line was asked of the model once, as a response of its own with no tools.
      expect(session.instructedResponses).toEqual([{ instructions: HOLD_LINE_INSTRUCTIONS, tool_choice: 'none' }]);

      // The line's turns: spoken turns and trail rows in the order they happened.
      const turns = await api.db.collection<LineTurnDoc>('line_turns').find({ call_id: callId }).sort({ seq: 1 }).toArray();
      const lookup = `Looked up the contact for ${to}: Asha Rao (${contact._id})`;
      const held = `Said a hold line while check_order ran (no answer after ${HOLD_AFTER_MS} ms)`;
      expect(turns.map((t) => [t.role, t.kind ?? 'turn', t.text, t.trail ?? null])).toEqual([
        ['model', 'turn', OPENING, null],
        ['user', 'turn', PERSON, null],
        ['model', 'trail', lookup, { kind: 'lookup', detail: { contact_id: contact._id } }],
        ['model', 'trail', held, { kind: 'hold', detail: { tool: 'check_order' } }],
        ['model', 'turn', HOLD, null],
        ['model', 'trail', 'Checked order 1234: ships tomorrow morning', { kind: 'lookup' }],
        ['model', 'turn', ANSWER, null],
      ]);

      // The call's conversation keeps them all, the trail rows as `trail` (hidden from the public transcript).
      const conversationId = conversationIdFor(ws.workspaceId, 'voice', callId);
      const messages = await eventually(async () => {
        const found = await conversationMessagesCollection(api.db).find({ conversation_id: conversationId }).sort({ created_at: 1 }).toArray();
        // All seven, not the first of one insertMany's documents a read may see before the rest.
        return found.length >= 7 && found;
      }, 'the call’s conversation');
      expect(messages.map((m) => [m.role, m.kind, m.text])).toEqual([
        ['model', 'turn', OPENING],
        ['user', 'turn', PERSON],
        ['model', 'trail', lookup],
        ['model', 'trail', held],
        ['model', 'turn', HOLD],
        ['model', 'trail', 'Checked order 1234: ships tomorrow morning'],
        ['model', 'turn', ANSWER],
      ]);
    });
  });

  it('a business tool asks for a person on a number with no team line: the agent is told it cannot transfer, the trail says why, and the call goes on to its end', async () => {
    const ws = await toolsWorkspace();
    const desk = await declaredOrderDesk(api.db, ws.workspaceId);
    desk.handOver.set('R-77', 'Refunds above the limit need a person');
    const to = destination('+9198113');
    const token = `purpose-no-team-line-${Date.now()}`;
    const cannot = 'I am sorry, I cannot transfer you right now, but I can help. Goodbye.';
    audio[cannot] ??= speechMulaw(cannot);
    const script: Omit<ModelScript, 'heard'> = {
      turns: [{ say: say(OPENING) }, { call: { name: ORDER_TOOL_NAME, arguments: { order_id: 'R-77' } } }, { say: say(cannot), call: 'end_call' }],
      instructed: { say: say(HOLD) },
    };
    try {
      await callWithTools({ ws, to, token, purpose: 'a refund', script, sources: [businessToolSource({ db: api.db, allowPrivateUrls: true })] }, async ({ callId, bridge }) => {
        expect((await pollCall(api, ws.key, callId, (b) => b.status === 'completed')).outcome).toBe('agent_hangup');
        // Nothing moved on the network: the agent hung up itself after answering from the refusal.
        expect(bridge.lineControl.requests).toEqual([{ kind: 'end', callId }]);
        const session = sessionOfCall(token)!;
        expect(session.instructedResponses).toEqual([]);
        expect(JSON.parse(session.toolOutputs[0]!.output)).toEqual({
          tool_answer: { status: OrderDesk.status('R-77'), hand_over: { reason: 'Refunds above the limit need a person' } },
          handed_over: false,
          error: 'Nobody from the team can take this call: this line has no transfer number. Tell the caller you cannot transfer them now, and keep helping them yourself.',
        });

        const turns = await api.db.collection<LineTurnDoc>('line_turns').find({ call_id: callId }).sort({ seq: 1 }).toArray();
        expect(turns.map((t) => [t.role, t.kind ?? 'turn', t.text, t.trail ?? null])).toEqual([
          ['model', 'turn', OPENING, null],
          ['user', 'turn', PERSON, null],
          ['model', 'trail', expect.stringMatching(/^Ran order_status: answered 200 in \d+ ms, asking for a person/), expect.objectContaining({ kind: 'tool' })],
          [
            'model',
            'trail',
            'Not handed over: order_status asked for a person, but this number has no team line; the call goes on with the agent',
            { kind: 'hold', detail: { tool: 'order_status', reason: 'Refunds above the limit need a person' } },
          ],
          ['model', 'turn', cannot, null],
        ]);
      });
    } finally {
      await desk.stop();
    }
  });

  it('the model calls the built-in hand_over on a number with a team line: the hold line, then one transfer to that line (human_handoff)', async () => {
    const teamLine = '+919800077004';
    const ws = await toolsWorkspace(teamLine);
    const to = destination('+9198114');
    const token = `purpose-hand-over-${Date.now()}`;
    const connecting = 'I am connecting you to a colleague now, please hold.';
    audio[connecting] ??= speechMulaw(connecting);
    const script: Omit<ModelScript, 'heard'> = {
      turns: [{ say: say(OPENING) }, { call: { name: 'hand_over', arguments: { reason: 'The caller asked for a person' } } }],
      instructed: { say: say(connecting) },
    };
    await callWithTools({ ws, to, token, purpose: 'a person please', script, sources: [agentBuiltInTools] }, async ({ callId, bridge, client }) => {
      await pollCall(api, ws.key, callId, (b) => b.status === 'human_handoff');
      expect(bridge.lineControl.requests).toEqual([{ kind: 'transfer', callId, to: teamLine }]);
      const session = sessionOfCall(token)!;
      expect(session.instructedResponses).toEqual([{ instructions: HAND_OVER_LINE_INSTRUCTIONS, tool_choice: 'none' }]);
      // The hold line was spoken before the line changed: its audio reached the caller.
      expect(client.received.bytes).toBeGreaterThanOrEqual(audio[OPENING]!.length + audio[connecting]!.length);
      const turns = await api.db.collection<LineTurnDoc>('line_turns').find({ call_id: callId }).sort({ seq: 1 }).toArray();
      expect(turns.map((t) => [t.role, t.kind ?? 'turn', t.text])).toEqual([
        ['model', 'turn', OPENING],
        ['user', 'turn', PERSON],
        ['model', 'trail', 'Handing over to the team: The caller asked for a person'],
        ['model', 'trail', `Handing the call to the team line ${teamLine} (asked by hand_over); the caller hears a hold line`],
        ['model', 'turn', connecting],
      ]);
    });
  });

  it('calls the workspace’s declared HTTP tool mid-call: a signed request to the business, its answer back to the model, a trail row in the call’s conversation', async () => {
    const ws = await toolsWorkspace();
    const desk = await declaredOrderDesk(api.db, ws.workspaceId);
    const to = destination('+9198112');
    const token = `purpose-business-tool-${Date.now()}`;
    const answer = 'Your order 1234 was delivered on Monday. Goodbye.';
    audio[answer] ??= speechMulaw(answer);
    const script: Omit<ModelScript, 'heard'> = {
      turns: [{ say: say(OPENING) }, { call: { name: ORDER_TOOL_NAME, arguments: { order_id: '1234' } } }, { say: say(answer), call: 'end_call' }],
    };
    try {
      // The process's real business tool source (the roots' own), private addresses allowed for loopback as in development.
      await callWithTools({ ws, to, token, purpose: 'checking an order', script, sources: [businessToolSource({ db: api.db, allowPrivateUrls: true })] }, async ({ callId }) => {
        expect((await pollCall(api, ws.key, callId, (b) => b.status === 'completed')).outcome).toBe('agent_hangup');

        const session = sessionOfCall(token)!;
        expect(session.sessionUpdates.find((u) => u.instructions)!.tools.map((t: { name: string }) => t.name)).toEqual(['end_call', 'order_status']);
        // The business received one signed request, keyed by the call and the model's call id, and verified it.
        const [orderCall] = session.functionCalls;
        expect(session.functionCalls.map((c) => [c.name, c.arguments])).toEqual([
          ['order_status', '{"order_id":"1234"}'],
          ['end_call', '{}'],
        ]);
        expect(desk.refused).toEqual([]);
        expect(desk.received).toEqual([{ tool: 'order_status', callId: expect.stringMatching(/^tcall_/) as string, args: { order_id: '1234' } }]);
        // Its answer went back to the model as the function_call_output.
        expect(session.toolOutputs[0]).toEqual({ call_id: orderCall!.call_id, output: JSON.stringify({ status: OrderDesk.status('1234') }) });

        const conversationId = conversationIdFor(ws.workspaceId, 'voice', callId);
        const messages = await eventually(async () => {
          const found = await conversationMessagesCollection(api.db).find({ conversation_id: conversationId }).sort({ created_at: 1 }).toArray();
          return found.length >= 4 && found;
        }, 'the call’s conversation');
        expect(messages.map((m) => [m.role, m.kind, m.text])).toEqual([
          ['model', 'turn', OPENING],
          ['user', 'turn', PERSON],
          ['model', 'trail', expect.stringMatching(/^Ran order_status: answered 200 in \d+ ms$/)],
          ['model', 'turn', answer],
        ]);
      });
    } finally {
      await desk.stop();
    }
  });
});
