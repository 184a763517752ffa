import type { Db } from 'mongodb';
import { conversationMessagesCollection, findConversation, recordTurnsOfConversation, type ConversationDoc } from '../conversations';
import { collections, type SenderDoc } from '../db/collections';
import { findByIds } from '../db/findByIds';
import type { EventPublisher } from '../events';
import {
  agentSendIntentKey,
  checkedSender,
  isSuppressed,
  SendInProgress,
  SendOutcomeUnknown,
  SendRefusal,
  SESSION_WINDOW_MS,
  sendWhatsAppMessage,
  windowOpenUntil,
  type WhatsAppProvider,
} from '../messaging';
import type { Logger } from '../observability/logger';
import type { AgentModel, ChatLine, ModelRequest } from './agentModel';
import type { AgentTurn, ModelStepTaken, PendingTrailRow, ReplyOutcome, ToolRun, TurnItem, TurnStart } from './contracts';
import type { Toolbox } from './toolbox';
import type { TurnContext, TurnContexts } from './turnContexts';
import type { AgentSetup, AgentSetups } from './agentSetups';
import { recordTrail, trailTurn } from './trail';
import type { TurnChecks } from './turnChecks';

/**
 * The steps of one chat turn, each an activity of the conversation's workflow
 * (activities/agents.ts adapts them) and each safe to repeat: reads, a model call (paid
 * again, changes nothing), a tool run keyed by the turn and the call (`runKey`), trail rows
 * keyed likewise, and the reply through messaging's record-first send keyed by the turn.
 */

export interface AgentTurnDeps {
  db: Db;
  events: EventPublisher;
  whatsapp: WhatsAppProvider;
  deploymentChannels: readonly string[];
  model: AgentModel;
  toolbox: Toolbox;
  now: () => Date;
  logger?: Logger;
  /** Keeps a turn's context between its model calls in this process; absent: each call reads it. */
  contexts?: TurnContexts;
  /** Keeps what a turn's first step checked for its reply's send in this process; absent: the send reads it again. */
  checks?: TurnChecks;
  /** Keeps each agent's instructions and tools for a few seconds across its conversations' turns; absent: every turn reads them. */
  setups?: AgentSetups;
}

/** How much of the conversation the model reads: the newest turns, oldest first. */
export const HISTORY_TURNS = 30;
/** What a tool's output may take of the next model request. */
export const TOOL_OUTPUT_MAX_CHARS = 8_000;

const BASE_INSTRUCTIONS = [
  "You are a business's assistant answering its customers on WhatsApp.",
  'Answer briefly and plainly, in the language the customer writes in. Use the tools you are given to look things up or act; never invent order details, prices or policies.',
  'When the customer asks for a person, or you cannot help, call hand_over with the reason.',
].join('\n');

const trailAt = (turn: AgentTurn) => new Date(turn.at);
const turnKeyOf = (turn: AgentTurn) => `${turn.workflowId}:${turn.turnKey}`;

/** Why a turn is not answered, as the conversation's trail says it. */
const NOT_ANSWERED: Record<Exclude<TurnStart, { answer: true }>['reason'], string> = {
  no_agent: 'Not answered: no agent is deployed to this sender any more.',
  opted_out: 'Not answered: the customer opted out (STOP); nothing is sent to them.',
  window_closed: 'Not answered: the 24-hour window is closed, and an agent sends no free text outside it (only a template may go).',
};

/**
 * Whether the turn may be answered (the sender still has an agent, the customer did not opt
 * out, the 24-hour window is open at the turn's time); when it may, the newest message is
 * marked read with "typing…" where the provider can. A turn that may not be answered gets a
 * trail row saying why.
 */
export async function beginTurn(deps: AgentTurnDeps, turn: AgentTurn): Promise<TurnStart> {
  const routed = freshRoutedSender(turn, deps.now());
  const knownOpenUntil = turn.inbound ? new Date(Date.parse(turn.inbound.at) + SESSION_WINDOW_MS) : null;
  // Up to three point reads at once: the turn waits on the slowest, not on their sum.
  const [sender, optedOut, windowUntil] = await Promise.all([
    routed ?? collections(deps.db).senders.findOne({ _id: turn.senderId }),
    isSuppressed(deps.db, turn.tenantId, turn.customerPhone),
    // The window only moves later and the API opened it for the burst's newest message before telling the workflow: open until then at least.
    knownOpenUntil && trailAt(turn) < knownOpenUntil ? knownOpenUntil : windowOpenUntil(deps.db, { tenantId: turn.tenantId, senderId: turn.senderId, customer: turn.customerPhone }),
  ]);
  const inWindow = windowUntil !== null && trailAt(turn) < windowUntil;
  const agentId = sender && sender.tenant_id === turn.tenantId ? (sender.agent_id ?? null) : null;
  let start: TurnStart;
  if (!agentId) start = { answer: false, reason: 'no_agent' };
  else if (optedOut) start = { answer: false, reason: 'opted_out' };
  else if (!inWindow) start = { answer: false, reason: 'window_closed' };
  else start = { answer: true, agentId };
  if (!start.answer) {
    await recordTrail(deps, { tenantId: turn.tenantId, customerPhone: turn.customerPhone, text: NOT_ANSWERED[start.reason], dedupeKey: `${turn.workflowId}:${turn.turnKey}:skipped`, at: trailAt(turn) });
    return start;
  }
  // The reply's send in this process reads the opt-out again, not these (sendMessage's `checked`).
  if (sender && windowUntil) deps.checks?.remember(turnKeyOf(turn), { sender, windowOpenUntil: windowUntil });
  if (deps.whatsapp.markRead && sender) {
    try {
      await deps.whatsapp.markRead({ tenantId: turn.tenantId, senderId: turn.senderId, from: sender.phone, providerMessageId: turn.providerMessageId, typing: true });
    } catch (err) {
      // Blue ticks and typing are a courtesy: the answer goes on without them.
      deps.logger?.warn({ err, conversationId: turn.conversationId }, 'customer message not marked read');
    }
  }
  return start;
}

/**
 * How long the sender the inbound path read when routing a message answers for a turn's checks
 * (deployed agent, connected, phone) instead of a read of its own: a turn begins a burst's quiet
 * window after its message, so this covers every turn answered at once, while a turn begun
 * later (a retried step, a worker back from an outage) reads it. An undeploy or a disconnect
 * is seen by turns begun this long after it at most (docs/decisions/agents.md, "A turn's reads").
 */
export const ROUTED_SENDER_FRESH_MS = 10_000;

/**
 * The sender the burst's last message was routed by, as a document, while fresh: its age is
 * taken from the message's own time, which is never after the read (a clock ahead of ours by
 * more than the limit is not trusted either).
 */
function freshRoutedSender(turn: AgentTurn, now: Date): SenderDoc | null {
  const routed = turn.inbound?.routed;
  if (!routed || routed.sender._id !== turn.senderId) return null;
  if (Math.abs(now.getTime() - Date.parse(routed.at)) > ROUTED_SENDER_FRESH_MS) return null;
  return { ...routed.sender, created_at: new Date(routed.sender.created_at) };
}

/**
 * The newest turns of the conversation (trail rows left out), oldest first, by `_id` reads,
 * with the turn's own messages last: WhatsApp stamps a message to the second, so a customer's
 * message may sort before a reply sent in the same second.
 */
async function history(db: Db, turn: AgentTurn, known?: ConversationDoc | null): Promise<{ lines: ChatLine[]; turnLines: number }> {
  const conversation = known !== undefined ? known : await findConversation(db, turn.tenantId, turn.conversationId);
  if (!conversation) return { lines: [], turnLines: 0 };
  // The newest ids only (trail rows among them are dropped after): decoding the conversation's
  // whole memory of 100 ids twice a turn was the bulk of a model step's reads.
  const ids = [...new Set([...conversation.recent_message_ids.slice(-2 * HISTORY_TURNS), ...turn.messageIds])];
  const messages = (await findByIds(conversationMessagesCollection(db), ids)).filter((m) => m.kind === 'turn' && m.text);
  const inTurn = new Set(turn.messageIds);
  const order = (m: { _id: string }) => (inTurn.has(m._id) ? 1 : 0);
  messages.sort((a, b) => order(a) - order(b) || (a._id < b._id ? -1 : 1));
  const kept = messages.slice(-HISTORY_TURNS);
  return {
    lines: kept.map((m) => ({ role: m.role === 'user' ? 'user' : 'assistant', text: m.role === 'human' ? `(a team member) ${m.text!}` : m.text! })),
    turnLines: kept.filter((m) => inTurn.has(m._id)).length,
  };
}

async function instructionsFor(db: Db, tenantId: string, agentId: string): Promise<string> {
  const agent = await collections(db).agents.findOne({ _id: agentId });
  if (!agent || agent.tenant_id !== tenantId) return BASE_INSTRUCTIONS;
  const own = [agent.voice?.persona, agent.voice?.instructions].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  return [BASE_INSTRUCTIONS, `Your name is ${agent.name}.`, ...own].join('\n');
}

/**
 * One model call: the agent's instructions, the conversation so far, the turn's tool rounds
 * and the tools it may call. Given `reply`, a final answer (no tool calls, some text) is sent
 * by this step too (`sendReply`, with the turn's trail rows), saving the workflow a step of
 * its own; a send that fails is left to the workflow's reply step rather than failing the
 * model call, so the model is not asked again for it. A retried step asks the model again,
 * and its send finds the first attempt's (keyed by the turn).
 */
export async function modelStep(
  deps: AgentTurnDeps,
  input: { turn: AgentTurn; agentId: string; step: number; items: TurnItem[]; reply?: { trail: PendingTrailRow[] } },
  /** The conversation as the caller just read it (the turn's first step, at the burst's end): not read again. */
  conversation?: ConversationDoc | null,
): Promise<ModelStepTaken> {
  const { turn, agentId } = input;
  const key = `${turn.workflowId}:${turn.turnKey}`;
  const read = () => turnContext(deps, turn, agentId, conversation);
  const context = await (deps.contexts ? deps.contexts.get(key, read) : read());
  const request: ModelRequest = {
    instructions: context.instructions,
    history: context.history,
    turnLines: context.turnLines,
    tools: context.tools,
    items: input.items,
    stepKey: `${key}:${input.step}`,
  };
  const said = await deps.model.respond(request);
  if (said.toolCalls.length > 0) return said;
  // No tool to run: the turn asks the model no more.
  deps.contexts?.drop(key);
  const text = said.text?.trim() ?? '';
  if (!input.reply || text === '') return said;
  try {
    return { ...said, reply: await sendReply(deps, { turn, agentId, text, trail: input.reply.trail }) };
  } catch (err) {
    deps.logger?.warn({ err, conversationId: turn.conversationId }, "the model step's reply was not sent; the workflow's reply step sends it");
    return said;
  }
}

async function agentSetup(deps: AgentTurnDeps, tenantId: string, agentId: string): Promise<AgentSetup> {
  const [instructions, tools] = await Promise.all([instructionsFor(deps.db, tenantId, agentId), deps.toolbox.toolsFor({ tenantId, agentId, channel: 'whatsapp' })]);
  return { instructions, tools };
}

async function turnContext(deps: AgentTurnDeps, turn: AgentTurn, agentId: string, conversation?: ConversationDoc | null): Promise<TurnContext> {
  const read = () => agentSetup(deps, turn.tenantId, agentId);
  const [{ instructions, tools }, { lines, turnLines }] = await Promise.all([
    deps.setups ? deps.setups.get(turn.tenantId, agentId, deps.now(), read) : read(),
    history(deps.db, turn, conversation),
  ]);
  return { instructions, history: lines, turnLines, tools: tools.map(({ name, description, parameters }) => ({ name, description, parameters })), runnable: tools };
}

function parseArguments(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return { _unparsed: raw };
  }
}

function boundedOutput(output: unknown): string {
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
  return text.length > TOOL_OUTPUT_MAX_CHARS ? `${text.slice(0, TOOL_OUTPUT_MAX_CHARS)}…(cut)` : text;
}

/**
 * Runs one tool call through the toolbox and hands back its trail row (what it did, how it
 * went, how long it took), which the reply's step records with the reply in one write.
 */
export async function runTool(deps: AgentTurnDeps, input: { turn: AgentTurn; agentId: string; call: { callId: string; name: string; arguments: string } }): Promise<ToolRun> {
  const { turn, agentId, call } = input;
  const runKey = `${turn.workflowId}:${turn.turnKey}:${call.callId}`;
  const context = { tenantId: turn.tenantId, agentId, channel: 'whatsapp' as const, conversationId: turn.conversationId, customerPhone: turn.customerPhone, runKey, now: trailAt(turn) };
  // The tools the turn's model call was offered, when this process read them (a failed read lists them here).
  const listed = await deps.contexts?.peek(`${turn.workflowId}:${turn.turnKey}`)?.then((c) => c.runnable, () => undefined);
  const result = await deps.toolbox.run(context, call.name, parseArguments(call.arguments), undefined, listed);
  const outcome = result.ok ? '' : ' (failed)';
  const said = result.trail.text;
  // The tool's own words may name it and give its latency (a business tool's "Ran lookup_order: answered 200 in 84 ms", "lookup_order failed: … (20 ms)"): not twice.
  const named = said.includes(call.name) ? '' : ` ${call.name}`;
  const timed = /\b\d+ ms\b/.test(said) ? '' : ` (${result.latencyMs} ms)`;
  const trail: PendingTrailRow = {
    text: `${result.trail.kind === 'hold' ? 'Hold line' : result.trail.kind === 'lookup' ? 'Lookup' : 'Tool'}${named}${outcome}: ${said}${timed}`,
    dedupeKey: runKey,
    at: deps.now().toISOString(),
  };
  return { output: boundedOutput(result.output), handOver: result.handOver ?? null, trail };
}

/**
 * Sends the turn's reply as a `model` turn through messaging's send (guards, window, opt-out,
 * record first), keyed by the workflow and the turn: a retried or replayed step finds the
 * send it made and sends nothing more. A refusal is a trail row, not a failure. The turn's
 * trail rows (its tool runs) are recorded with the reply's turn in one write, or with the
 * refusal's row. When this process began the turn, the send is told the sender and window
 * the turn found and reads only the opt-out again (a STOP since still stops the reply).
 */
export async function sendReply(deps: AgentTurnDeps, input: { turn: AgentTurn; agentId: string; text: string; trail?: PendingTrailRow[] }): Promise<ReplyOutcome> {
  const { turn } = input;
  const rows = (input.trail ?? []).map((row) => trailTurn({ tenantId: turn.tenantId, customerPhone: turn.customerPhone, text: row.text, dedupeKey: row.dedupeKey, at: new Date(row.at) }));
  const notSent = async (reason: string): Promise<ReplyOutcome> => {
    const row = trailTurn({ tenantId: turn.tenantId, customerPhone: turn.customerPhone, text: `Reply not sent: ${reason}`, dedupeKey: `${turnKeyOf(turn)}:not-sent`, at: deps.now() });
    await recordTurnsOfConversation(deps, [...rows, row]);
    deps.checks?.drop(turnKeyOf(turn));
    return { sent: false, reason };
  };
  const checked = deps.checks?.peek(turnKeyOf(turn));
  try {
    const sent = await sendWhatsAppMessage(
      { db: deps.db, events: deps.events, provider: deps.whatsapp, deploymentChannels: deps.deploymentChannels, now: deps.now, logger: deps.logger },
      {
        tenantId: turn.tenantId,
        to: turn.customerPhone,
        text: input.text,
        senderId: turn.senderId,
        metadata: { agent_id: input.agentId, conversation_id: turn.conversationId },
        intentKey: agentSendIntentKey(turn.tenantId, turn.workflowId, turn.turnKey),
        transcriptRole: 'model',
        turnsAlongside: rows,
        ...(checked ? { checked: { sender: checkedSender(checked.sender, turn.tenantId), windowOpenUntil: checked.windowOpenUntil } } : {}),
      },
    );
    deps.checks?.drop(turnKeyOf(turn));
    return { sent: true, messageId: sent.message_id };
  } catch (err) {
    if (err instanceof SendRefusal) return notSent(err.message);
    // Another attempt holds the send: the step is retried and then finds its outcome.
    if (err instanceof SendInProgress) throw err;
    if (err instanceof SendOutcomeUnknown) return notSent(err.message);
    throw err;
  }
}
