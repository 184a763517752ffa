import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { AgentModelTemporaryError, agentAnswersInbound, type AgentModel } from '../../../src/agents';
import { createSimulatedAgentModel } from '../../../src/providers/agents';
import { collections } from '../../../src/db/collections';
import { conversationAgentWorkflowId, holderQuery, type ConversationAgentSettings } from '../../../src/agents/contracts';
import type { EventPublisher } from '../../../src/events/publisher';
import { receiveInbound } from '../../../src/messaging/inbound';
import type { SendAttempt, SendRequest, WhatsAppProvider } from '../../../src/messaging/whatsAppSender';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { openTestDb, testConfig, uniqueName } from '../../support/env';
import { eventsOf, eventually as eventuallyWithin } from '../../support/messaging';
import { useTimeSkippingEnv } from '../../support/timeSkipping';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const MINUTE = 60_000;

/** Records each text sent, with the workflow clock when it went. */
class RecordingProvider implements WhatsAppProvider {
  readonly name = 'simulator' as const;
  readonly texts: { to: string; text: string; atMs: number }[] = [];
  /** Customers whose next send fails as a lost connection does (thrown, not a provider's answer). */
  readonly failNext = new Set<string>();
  constructor(private readonly clock: () => Promise<number>) {}
  async send(request: SendRequest): Promise<SendAttempt> {
    if (this.failNext.delete(request.to)) throw new Error('socket hang up');
    if (request.message.type === 'text') this.texts.push({ to: request.to, text: request.message.text, atMs: await this.clock() });
    return { ok: true, messageId: `wamid.TEST${randomBytes(12).toString('hex').toUpperCase()}` };
  }
}

/** Each wait here is on a workflow and its real activities against FerretDB: a minute, not the default 20 s, on a loaded machine. */
const eventually = <T,>(probe: () => Promise<T | null | undefined | false>, what: string) => eventuallyWithin(probe, what, 60_000);
jest.setTimeout(120_000);

/**
 * The conversation's workflow on the time-skipping server with the real activities against
 * FerretDB, its messages recorded by messaging's inbound path (which signals it through the
 * agents' hook): the burst window, the hold's timeout, and continue-as-new carrying the run.
 */
describe('the chat agent workflow (time-skipping)', () => {
  const { env, startWorker } = useTimeSkippingEnv();
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;
  let events: EventPublisher;
  let provider: RecordingProvider;
  let heyCalls = 0;
  const taskQueue = uniqueName('agents');
  const settings: ConversationAgentSettings = { burstQuietMs: 2_000, burstMaxMs: 20_000, holdTimeoutMs: 30 * MINUTE, maxModelCalls: 4, turnsPerRun: 2 };

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db, { chatAgent: true });
    provider = new RecordingProvider(() => env.currentTimeMs());
    const simulated = createSimulatedAgentModel();
    // The first call for a customer who wrote exactly "hey" fails once, as a model's timeout does.
    const agentModel: AgentModel = {
      name: simulated.name,
      respond: (request) => {
        if (request.history.at(-1)?.text === 'hey') {
          heyCalls += 1;
          if (heyCalls === 1) return Promise.reject(new AgentModelTemporaryError('the model timed out'));
        }
        return simulated.respond(request);
      },
    };
    const deps = buildActivityDeps({ db, temporal: env.client, taskQueue }, { whatsapp: provider, agentModel });
    events = deps.events;
    await startWorker({ taskQueue, deps });
  });
  afterAll(async () => {
    await drop?.();
  });

  let n = 0;
  const customer = () => `+9197${String(Date.now() % 100_000).padStart(5, '0')}${String(n++).padStart(3, '0')}`;
  const sender = async () => (await collections(db).senders.findOne({ _id: ws.senderId }))!.phone;
  /** A customer message recorded and signalled; `signal: false` records it only, as an API that died before its signal would. */
  async function write(from: string, text: string, { signal = true, runSettings = settings } = {}) {
    const at = new Date(await env.currentTimeMs());
    return receiveInbound(
      { db, events, temporal: env.client, taskQueue, inboundHooks: { received: signal ? [agentAnswersInbound(runSettings)] : [] } },
      { tenantId: ws.workspaceId, senderId: ws.senderId, senderPhone: await sender(), from, providerMessageId: `wamid.${randomBytes(8).toString('hex')}`, type: 'text', text, at },
    );
  }
  const textsTo = (to: string) => provider.texts.filter((t) => t.to === to);

  it('gathers a burst into one turn: the reply goes once the customer has been quiet for the window', async () => {
    // The window is waited out in real time by the turn's first step, while these waits are
    // real too (the server does not skip time while the step runs): 1.5 s apart plus each
    // write's own time (half a second and more on a loaded machine) must stay well inside it.
    const runSettings = { ...settings, burstQuietMs: 5_000 };
    const from = customer();
    const first = await write(from, 'hi', { runSettings });
    const started = await env.currentTimeMs();
    await env.sleep(1_500);
    await write(from, 'one more thing', { runSettings });
    await env.sleep(1_500);
    await write(from, 'where is my order?', { runSettings });
    expect(textsTo(from)).toEqual([]);
    await env.sleep(runSettings.burstQuietMs + 500);
    const [reply] = await eventually(async () => (textsTo(from).length > 0 ? textsTo(from) : null), 'the reply');
    expect(textsTo(from)).toHaveLength(1);
    expect(reply!.text).toBe('I can help with your order: could you send me your order number?');
    // Quiet for the window after the last message, which came 3 s after the first.
    expect(reply!.atMs - started).toBeGreaterThanOrEqual(3_000 + runSettings.burstQuietMs);
    expect(await env.client.workflow.getHandle(conversationAgentWorkflowId(first.conversationId)).query(holderQuery)).toEqual({ by: 'agent' });
  });

  it("gathers the burst from the stored messages in the turn's first step: one whose signal never came joins the turn", async () => {
    const from = customer();
    await write(from, 'hi');
    // Within the window, stored but never signalled: only the step's read of the conversation finds it.
    await write(from, 'where is my order?', { signal: false });
    await env.sleep(settings.burstQuietMs + 500);
    const [reply] = await eventually(async () => (textsTo(from).length > 0 ? textsTo(from) : null), 'the reply');
    // The order question, not the greeting: the turn answered both messages.
    expect(reply!.text).toBe('I can help with your order: could you send me your order number?');
    await env.sleep(settings.burstQuietMs + 500);
    expect(textsTo(from)).toHaveLength(1);
  });

  it('holds the conversation for a person, and gives it back to the agent when the hold times out', async () => {
    const from = customer();
    const { conversationId } = await write(from, 'I want to speak to a human');
    await env.sleep(settings.burstQuietMs + 500);
    await eventually(async () => textsTo(from).length === 1, 'the hand-over reply');
    const handle = env.client.workflow.getHandle(conversationAgentWorkflowId(conversationId));
    expect(await handle.query(holderQuery)).toMatchObject({ by: 'team', reason: 'The customer asked for a person.', memberName: null });

    // Held: a message gets no answer from the agent.
    await write(from, 'hello?');
    await env.sleep(settings.burstQuietMs + 500);
    expect(textsTo(from)).toHaveLength(1);

    await env.sleep(settings.holdTimeoutMs);
    await eventually(async () => (await handle.query(holderQuery)).by === 'agent', 'the hold timing out');
    const back = await eventually(async () => (await eventsOf(db, ws.workspaceId, 'conversation.handed_back')).find((e) => e.data.conversation_id === conversationId), 'handed_back');
    expect(back.data).toMatchObject({ reason: 'the hold timed out: no one on the team replied in time' });
    // Null keys are left out of an event's data (src/events/eventStore.ts): no member on a timeout.
    expect(back.data).not.toHaveProperty('member_name');

    await write(from, 'hello');
    await env.sleep(settings.burstQuietMs + 500);
    await eventually(async () => textsTo(from).length === 2, 'the agent answering again');
    expect(textsTo(from)[1]!.text).toBe('Hello! How can I help you today?');
  });

  it("sends the answer once through the reply step when the model step's own send fails", async () => {
    const from = customer();
    provider.failNext.add(from);
    const { conversationId } = await write(from, 'hello');
    await env.sleep(settings.burstQuietMs + 500);
    await eventually(async () => textsTo(from).length === 1, 'the reply');
    expect(provider.failNext.has(from)).toBe(false);
    expect(textsTo(from).map((t) => t.text)).toEqual(['Hello! How can I help you today?']);
    await env.sleep(settings.burstQuietMs + 500);
    expect(textsTo(from)).toHaveLength(1);
    expect(await env.client.workflow.getHandle(conversationAgentWorkflowId(conversationId)).query(holderQuery)).toEqual({ by: 'agent' });
  });

  it("asks the model again through its own step when the turn's first step's model call fails: one reply, no hand-over", async () => {
    const from = customer();
    const { conversationId } = await write(from, 'hey');
    await env.sleep(settings.burstQuietMs + 500);
    await eventually(async () => textsTo(from).length === 1, 'the reply');
    expect(textsTo(from).map((t) => t.text)).toEqual(['Hello! How can I help you today?']);
    expect(heyCalls).toBe(2);
    await env.sleep(settings.burstQuietMs + 500);
    expect(textsTo(from)).toHaveLength(1);
    expect(await env.client.workflow.getHandle(conversationAgentWorkflowId(conversationId)).query(holderQuery)).toEqual({ by: 'agent' });
  });

  it('continues as new between turns without losing a message', async () => {
    const from = customer();
    const { conversationId } = await write(from, 'hello');
    const handle = env.client.workflow.getHandle(conversationAgentWorkflowId(conversationId));
    const firstRun = (await handle.describe()).runId;
    for (const [i, text] of ['order status please', 'and my refund?', 'thanks, bye'].entries()) {
      await env.sleep(settings.burstQuietMs + 500);
      await eventually(async () => textsTo(from).length === i + 1, `reply ${i + 1}`);
      await write(from, text);
    }
    await env.sleep(settings.burstQuietMs + 500);
    await eventually(async () => textsTo(from).length === 4, 'the fourth reply');
    expect(textsTo(from)).toHaveLength(4);
    // turnsPerRun 2: the run handed over to a new one after its second turn.
    expect((await handle.describe()).runId).not.toBe(firstRun);
  });

  // Last: it moves the clock on by days.
  it('keeps one idle timer across turns, and closes the conversation once it has been quiet for a day', async () => {
    const HOUR = 60 * MINUTE;
    const runSettings = { ...settings, turnsPerRun: 10 };
    const from = customer();
    const say = async (text: string, replies: number) => {
      const written = await write(from, text, { runSettings });
      await env.sleep(settings.burstQuietMs + 500);
      await eventually(async () => textsTo(from).length === replies, `reply ${replies}`);
      return written;
    };
    const { conversationId } = await say('hi', 1);
    const handle = env.client.workflow.getHandle(conversationAgentWorkflowId(conversationId));
    const timersStarted = async () => (await handle.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes).length;
    await env.sleep(20 * HOUR);
    await say('where is my order?', 2);
    await env.sleep(2 * HOUR);
    await say('thanks', 3);
    // Three waits for the customer, one timer (a timer per wait was two history events a turn).
    expect(await timersStarted()).toBe(1);
    // The timer fires a day after the first wait, but the customer wrote 2 h ago: the run waits on.
    await env.sleep(6 * HOUR);
    await eventually(async () => (await timersStarted()) === 2, 'the timer started again for the rest of the day');
    expect((await handle.describe()).status.name).toBe('RUNNING');
    await env.sleep(20 * HOUR);
    await eventually(async () => (await handle.describe()).status.name === 'COMPLETED', 'the run closing a day after the last message');
  });
});
