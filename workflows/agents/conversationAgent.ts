import { allHandlersFinished, condition, continueAsNew, patched, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { AgentActivities } from '../../activities/agents';
import {
  CONVERSATION_IDLE_CLOSE_MS,
  CONVERSATION_TURNS_PER_RUN,
  DEFAULT_AGENT_SETTINGS,
  HOLD_MESSAGE,
  handBackSignal,
  handOverSignal,
  holderQuery,
  inboundForAgentSignal,
  type AgentTurn,
  type ConversationAgentInput,
  type ConversationAgentWorkflow,
  type ConversationHolder,
  type InboundForAgent,
  type ModelStepTaken,
  type PendingTrailRow,
  type TurnItem,
  type TurnStart,
} from '../../src/agents/contracts';
import { AGENT_MODEL_CALL, AGENT_STEP, agentGatherAndAskStep, agentGatherStep } from './activityOptions';
import { continueAsNewDue } from '../continueAsNew';

const { beginAgentTurn, sendAgentReply, recordAgentHolderChange } = proxyLocalActivities<AgentActivities>(AGENT_STEP);
const { agentModelStep, runAgentTool } = proxyLocalActivities<AgentActivities>(AGENT_MODEL_CALL);

/** Message ids remembered across runs, so a redelivered message is taken once. */
const RECENT_IDS = 200;
/** A run continues as new past this many history events even before its turn count says so. */
const HISTORY_LIMIT = 2_000;
/**
 * The burst gathered by the turn's first step (src/agents/burst.ts) rather than a workflow
 * timer. Runs of earlier releases (no marker in their history) keep the timer until their
 * next turn.
 */
const BURST_IN_STEP_PATCH = 'agent-burst-in-first-step';
/**
 * The final answer sent by the model step that gave it rather than a reply step of its own
 * (one local activity and one activation fewer a turn). Runs of earlier releases keep the
 * reply step for the turn they are in.
 */
const REPLY_IN_MODEL_STEP_PATCH = 'agent-reply-in-model-step';
/**
 * The turn's first model call made by its first step, after the burst and the checks (one
 * local activity and one activation fewer a turn). Runs of earlier releases keep the separate
 * first model step for the turn they are in.
 */
const MODEL_IN_FIRST_STEP_PATCH = 'agent-model-in-first-step';
/**
 * The day-long idle timer started once and kept across turns (re-armed for what is left when
 * it fires early) rather than started and cancelled at every wait: two history events and a
 * server timer fewer a turn. Runs of earlier releases keep a timer per wait until this code
 * first waits in them.
 */
const IDLE_TIMER_KEPT_PATCH = 'agent-idle-timer-kept';

/**
 * What the burst's signals tell the turn's checks (src/agents/turns.ts `beginTurn`): the newest
 * time written (the window is open a day past it) and the sender the inbound path read for the
 * last message.
 * Steps' inputs only: no command or history event changes.
 */
function turnInbound(burst: readonly InboundForAgent[]): AgentTurn['inbound'] {
  const at = burst.reduce((newest, m) => (Date.parse(m.at) > Date.parse(newest) ? m.at : newest), burst[0]!.at);
  const last = burst[burst.length - 1]!;
  return last.sender ? { at, routed: { sender: last.sender, at: last.at } } : { at };
}

type HolderSignal = { kind: 'over'; reason: string; memberName: string | null; at: string } | { kind: 'back'; memberName: string | null; at: string };

/**
 * One conversation's chat agent (id `agent-<conversation id>`, started by the first inbound
 * message's signal-with-start; docs/agents.md). It gathers a burst of customer messages into
 * one turn (a quiet window, waited out by the turn's first step), answers one turn at a time (model calls and tool runs as local
 * activities, then one reply keyed by the turn), and holds off while a person holds the
 * conversation, until handed back or the hold times out. Between turns, with nothing in
 * hand, it continues as new after CONVERSATION_TURNS_PER_RUN turns carrying what is pending
 * and who holds the conversation; quiet for a day, it closes.
 */
export async function conversationAgentWorkflow(input: ConversationAgentInput): Promise<void> {
  const settings = input.settings ?? DEFAULT_AGENT_SETTINGS;
  const turnsPerRun = settings.turnsPerRun ?? CONVERSATION_TURNS_PER_RUN;
  const { workflowId } = workflowInfo();
  const { gatherAgentTurn } = proxyLocalActivities<AgentActivities>(agentGatherStep(settings.burstMaxMs));
  const { gatherAgentTurnAndAsk } = proxyLocalActivities<AgentActivities>(agentGatherAndAskStep(settings.burstMaxMs));
  const base = { tenantId: input.tenantId, conversationId: input.conversationId, senderId: input.senderId, customerPhone: input.customerPhone, workflowId };

  const pending: InboundForAgent[] = [...(input.carried?.pending ?? [])];
  let holder: ConversationHolder = input.carried?.holder ?? { by: 'agent' };
  let heldSince = input.carried?.heldSince ?? (holder.by === 'team' ? holder.since : null);
  let turnsAnswered = input.carried?.turnsAnswered ?? 0;
  let turnsThisRun = 0;
  const recent = [...(input.carried?.recentMessageIds ?? []), ...pending.map((m) => m.messageId)];
  const seen = new Set(recent);
  const holderSignals: HolderSignal[] = [];

  /** Whether the message is new; from now on it is taken. */
  function take(messageId: string): boolean {
    if (seen.has(messageId)) return false;
    seen.add(messageId);
    recent.push(messageId);
    if (recent.length > RECENT_IDS) seen.delete(recent.shift()!);
    return true;
  }

  setHandler(inboundForAgentSignal, (message) => {
    if (take(message.messageId)) pending.push(message);
  });
  setHandler(handOverSignal, (change) => void holderSignals.push({ kind: 'over', ...change }));
  setHandler(handBackSignal, (change) => void holderSignals.push({ kind: 'back', ...change }));
  setHandler(holderQuery, () => holder);

  async function hold(reason: string, memberName: string | null, at: string): Promise<void> {
    holder = { by: 'team', reason, since: at, memberName };
    heldSince = at;
    await recordAgentHolderChange({ ...base, to: holder, reason, memberName, at });
  }

  async function release(reason: string, memberName: string | null, at: string): Promise<void> {
    holder = { by: 'agent' };
    heldSince = null;
    await recordAgentHolderChange({ ...base, to: holder, reason, memberName, at });
  }

  async function applyHolderSignals(): Promise<void> {
    for (let change = holderSignals.shift(); change; change = holderSignals.shift()) {
      if (change.kind === 'over') {
        // A team reply (or a second take) on a held conversation: the hold goes on, its clock restarts.
        if (holder.by === 'team') {
          holder = { ...holder, memberName: change.memberName ?? holder.memberName };
          heldSince = change.at;
        } else await hold(change.reason, change.memberName, change.at);
      } else if (holder.by === 'team') {
        await release(change.memberName ? `handed back by ${change.memberName}` : 'handed back by the team', change.memberName, change.at);
      }
    }
  }

  /** Gathers the burst: done once the customer has been quiet for the window (or the burst is long), or a hand-over came. */
  async function gatherBurst(): Promise<void> {
    const started = Date.now();
    for (;;) {
      const seenCount = pending.length;
      const left = started + settings.burstMaxMs - Date.now();
      if (left <= 0) return;
      const more = await condition(() => pending.length > seenCount || holderSignals.length > 0, Math.min(settings.burstQuietMs, left));
      if (!more || holderSignals.length > 0) return;
    }
  }

  /**
   * The turn's first step waits out the burst and reads the messages that came meanwhile (their
   * signals wait behind the turn's workflow task): they join the turn and are taken.
   */
  async function gatherAndBegin(turn: AgentTurn, burst: InboundForAgent[]): Promise<{ turn: AgentTurn; start: TurnStart }> {
    const since = burst.reduce((oldest, m) => (Date.parse(m.at) < Date.parse(oldest) ? m.at : oldest), burst[0]!.at);
    const inBurst = new Set(turn.messageIds);
    const gathered = await gatherAgentTurn({
      turn,
      since,
      taken: recent.filter((id) => !inBurst.has(id)),
      quietMs: settings.burstQuietMs,
      maxMs: settings.burstMaxMs,
    });
    for (const id of gathered.messageIds) take(id);
    return { turn: { ...turn, messageIds: gathered.messageIds, providerMessageId: gathered.providerMessageId }, start: gathered.start };
  }

  /**
   * gatherAndBegin with the turn's first model call in the same step. A message gathered that
   * also reached `pending` (its signal came while a retried step waited) is this turn's only.
   */
  async function gatherBeginAndAsk(turn: AgentTurn, burst: InboundForAgent[], reply: boolean): Promise<{ turn: AgentTurn; start: TurnStart; said: ModelStepTaken | null }> {
    const since = burst.reduce((oldest, m) => (Date.parse(m.at) < Date.parse(oldest) ? m.at : oldest), burst[0]!.at);
    const inBurst = new Set(turn.messageIds);
    const gathered = await gatherAgentTurnAndAsk({
      turn,
      since,
      taken: recent.filter((id) => !inBurst.has(id)),
      quietMs: settings.burstQuietMs,
      maxMs: settings.burstMaxMs,
      ...(reply ? { reply: { trail: [] } } : {}),
    });
    for (const id of gathered.messageIds) take(id);
    const inTurn = new Set(gathered.messageIds);
    for (let i = pending.length - 1; i >= 0; i--) if (inTurn.has(pending[i]!.messageId)) pending.splice(i, 1);
    return { turn: { ...turn, messageIds: gathered.messageIds, providerMessageId: gathered.providerMessageId }, start: gathered.start, said: gathered.said };
  }

  async function answer(burst: InboundForAgent[], gatherInStep: boolean): Promise<void> {
    const newest = burst[burst.length - 1]!;
    turnsAnswered += 1;
    turnsThisRun += 1;
    let turn: AgentTurn = {
      ...base,
      // Unique across runs (a run closed when idle counts from its carry, a fresh one from 0): the message id makes it so.
      turnKey: `turn-${turnsAnswered}-${newest.messageId}`,
      messageIds: burst.map((m) => m.messageId),
      providerMessageId: newest.providerMessageId,
      at: new Date(Date.now()).toISOString(),
      inbound: turnInbound(burst),
    };
    let start: TurnStart;
    let replyInStep: boolean | null = null;
    let firstSaid: ModelStepTaken | null = null;
    if (gatherInStep && patched(MODEL_IN_FIRST_STEP_PATCH)) {
      replyInStep = patched(REPLY_IN_MODEL_STEP_PATCH);
      ({ turn, start, said: firstSaid } = await gatherBeginAndAsk(turn, burst, replyInStep));
    } else if (gatherInStep) ({ turn, start } = await gatherAndBegin(turn, burst));
    else start = await beginAgentTurn(turn);
    if (!start.answer) return;
    const { agentId } = start;
    replyInStep ??= patched(REPLY_IN_MODEL_STEP_PATCH);
    let replied = false;
    const items: TurnItem[] = [];
    // The tool runs' trail rows, recorded with the reply in its step's one write.
    const trail: PendingTrailRow[] = [];
    let handOver: { reason: string } | null = null;
    let text: string | null = null;
    try {
      for (let step = 0; step < settings.maxModelCalls && text === null; step++) {
        const said = step === 0 && firstSaid ? firstSaid : await agentModelStep({ turn, agentId, step, items, ...(replyInStep ? { reply: { trail: [...trail] } } : {}) });
        if (said.toolCalls.length === 0) {
          text = said.text?.trim() ?? '';
          replied = said.reply !== undefined;
          break;
        }
        for (const call of said.toolCalls) {
          items.push({ type: 'tool_call', ...call });
          const run = await runAgentTool({ turn, agentId, call });
          items.push({ type: 'tool_result', callId: call.callId, name: call.name, output: run.output });
          handOver ??= run.handOver;
          if (run.trail) trail.push(run.trail);
        }
      }
    } catch {
      // The model (or a tool step) used up its retries: a person answers rather than nobody.
      handOver ??= { reason: 'The agent could not answer: its model did not respond.' };
      text = null;
    }
    if (!text) {
      handOver ??= { reason: 'The agent could not answer this message.' };
      text = HOLD_MESSAGE;
    }
    if (!replied) await sendAgentReply({ turn, agentId, text, trail });
    // After the reply, so the hold line follows it in the trail.
    if (handOver) await hold(handOver.reason, null, new Date(Date.now()).toISOString());
  }

  /** The idle timer outlives the waits it serves: whether one is running, and whether it fired since a wait last looked. */
  let idleTimerRunning = false;
  let idleTimerFired = false;

  /**
   * Waits for a message or a holder change; false once the conversation has been quiet for
   * CONVERSATION_IDLE_CLOSE_MS since this wait began. One timer serves many waits: a wait that
   * ends before it fires leaves it running, and a timer that fires before this wait's day is up
   * is started again for the rest.
   */
  async function idleUntilStirred(): Promise<boolean> {
    const closeAt = Date.now() + CONVERSATION_IDLE_CLOSE_MS;
    const stirred = () => pending.length > 0 || holderSignals.length > 0;
    for (;;) {
      if (!idleTimerRunning) {
        idleTimerRunning = true;
        void sleep(Math.max(0, closeAt - Date.now())).then(() => {
          idleTimerRunning = false;
          idleTimerFired = true;
        });
      }
      await condition(() => stirred() || idleTimerFired);
      if (stirred()) return true;
      idleTimerFired = false;
      if (Date.now() >= closeAt) return false;
    }
  }

  for (;;) {
    await applyHolderSignals();
    if (turnsThisRun >= turnsPerRun || continueAsNewDue({ maxHistoryEvents: HISTORY_LIMIT })) {
      // Between turns: nothing is in hand but what `pending` and the holder carry.
      await condition(allHandlersFinished);
      await continueAsNew<ConversationAgentWorkflow>({
        ...input,
        carried: { pending: [...pending], holder, turnsAnswered, recentMessageIds: recent.slice(-RECENT_IDS), ...(heldSince ? { heldSince } : {}) },
      });
    }
    if (holder.by === 'team') {
      // The team answers what the customer writes while it holds the conversation (it is in the transcript).
      pending.length = 0;
      const until = Date.parse(heldSince ?? holder.since) + settings.holdTimeoutMs;
      const stirred = await condition(() => holderSignals.length > 0 || pending.length > 0, Math.max(0, until - Date.now()));
      if (!stirred) await release('the hold timed out: no one on the team replied in time', null, new Date(Date.now()).toISOString());
      continue;
    }
    if (pending.length === 0) {
      if (patched(IDLE_TIMER_KEPT_PATCH)) {
        if (await idleUntilStirred()) continue;
        return;
      }
      const stirred = await condition(() => pending.length > 0 || holderSignals.length > 0, CONVERSATION_IDLE_CLOSE_MS);
      if (!stirred) return;
      continue;
    }
    if (patched(BURST_IN_STEP_PATCH)) {
      await answer(pending.splice(0), true);
      continue;
    }
    await gatherBurst();
    if (holderSignals.length > 0) continue;
    await answer(pending.splice(0), false);
  }
}
