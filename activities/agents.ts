import { ApplicationFailure } from '@temporalio/activity';
import { AgentModelPermanentError, AgentSetups, beginTurn, gatherTurn, gatherTurnAndAsk, TurnChecks, TurnContexts, modelStep, recordHolderChange, runTool, sendReply, type AgentModel, type AgentTurnDeps, type Toolbox } from '../src/agents';
import type { AgentTurn, HolderChange, PendingTrailRow, TurnItem } from '../src/agents/contracts';
import type { EventPublisher } from '../src/events/publisher';
import type { WhatsAppProvider } from '../src/messaging/whatsAppSender';
import type { Db } from 'mongodb';

export interface AgentActivityDeps {
  db: Db;
  events: EventPublisher;
  whatsapp: WhatsAppProvider;
  deploymentChannels: readonly string[];
  agentModel: AgentModel;
  toolbox: Toolbox;
  now?: () => Date;
}

/** The chat agent's steps (src/agents/turns.ts, holder.ts): each a use case, each safe to repeat (see there). */
export function createAgentActivities(deps: AgentActivityDeps) {
  const turnDeps: AgentTurnDeps = {
    db: deps.db,
    events: deps.events,
    whatsapp: deps.whatsapp,
    deploymentChannels: deps.deploymentChannels,
    model: deps.agentModel,
    toolbox: deps.toolbox,
    now: deps.now ?? (() => new Date()),
    contexts: new TurnContexts(),
    checks: new TurnChecks(),
    setups: new AgentSetups(),
  };
  return {
    /** Reads and a read mark: repeating them changes nothing; its trail row is keyed by the turn. */
    beginAgentTurn(turn: AgentTurn) {
      return beginTurn(turnDeps, turn);
    },
    /** Waits out the burst and reads its messages (reads only), then beginAgentTurn's checks and read mark. */
    gatherAgentTurn(input: { turn: AgentTurn; since: string; taken: string[]; quietMs: number; maxMs: number }) {
      return gatherTurn(turnDeps, input);
    },
    /** gatherAgentTurn, then the first model call (agentModelStep's, its reply keyed likewise); a model failure is answered, not thrown, so a retry never waits the burst again for it. */
    gatherAgentTurnAndAsk(input: { turn: AgentTurn; since: string; taken: string[]; quietMs: number; maxMs: number; reply?: { trail: PendingTrailRow[] } }) {
      return gatherTurnAndAsk(turnDeps, input);
    },
    /** One model call (and, asked to, the final answer's send, keyed as sendAgentReply's); repeating it pays again and changes nothing. A permanent refusal stops the retries. */
    async agentModelStep(input: { turn: AgentTurn; agentId: string; step: number; items: TurnItem[]; reply?: { trail: PendingTrailRow[] } }) {
      try {
        return await modelStep(turnDeps, input);
      } catch (err) {
        if (err instanceof AgentModelPermanentError) throw ApplicationFailure.create({ type: err.name, message: err.message, nonRetryable: true });
        throw err;
      }
    },
    /** One tool run, its `runKey` stable per turn and call (the tool's own idempotency); its trail row, keyed likewise, goes to the reply's step. */
    runAgentTool(input: { turn: AgentTurn; agentId: string; call: { callId: string; name: string; arguments: string } }) {
      return runTool(turnDeps, input);
    },
    /** The reply, through the record-first send keyed by the workflow and the turn: a repeat finds the send; the turn's trail rows are keyed likewise. */
    sendAgentReply(input: { turn: AgentTurn; agentId: string; text: string; trail?: PendingTrailRow[] }) {
      return sendReply(turnDeps, input);
    },
    /** Inbox, trail row and event, each keyed by the workflow and the change's time. */
    recordAgentHolderChange(change: HolderChange) {
      return recordHolderChange(turnDeps, change);
    },
  };
}

export type AgentActivities = ReturnType<typeof createAgentActivities>;
