import type { AgentTool } from './agentTool';

/** What every turn of one agent starts from: its instructions and the tools it is offered. */
export interface AgentSetup {
  instructions: string;
  tools: AgentTool[];
}

/**
 * How long one read of an agent's setup (its record, the workspace's business tools, the
 * knowledge stamp: three commands) serves the turns of all its conversations in a process. The
 * same bound as the sender a turn takes from the inbound path (`ROUTED_SENDER_FRESH_MS`): an
 * undeploy already reaches a turn this late at most, and so now does a change to the agent's
 * instructions, a tool declared or deleted, or the first document uploaded
 * (docs/decisions/agents.md, "A turn's reads").
 */
export const AGENT_SETUP_FRESH_MS = 10_000;

/** Agents whose setup one process keeps at once (least recently read dropped first). */
const AGENT_SETUPS_MAX = 1_000;

/**
 * The agents' setups this process read in the last AGENT_SETUP_FRESH_MS, shared by the turns
 * of every conversation of each agent; a failed read is not kept. Time comes from the caller's
 * clock (the deps' `now`), so a test moves past the bound without waiting.
 */
export class AgentSetups {
  private readonly entries = new Map<string, { readAt: number; setup: Promise<AgentSetup> }>();

  get(tenantId: string, agentId: string, now: Date, load: () => Promise<AgentSetup>): Promise<AgentSetup> {
    const key = `${tenantId}|${agentId}`;
    const kept = this.entries.get(key);
    // A clock that moved back is not trusted to say the setup is fresh.
    if (kept && now.getTime() >= kept.readAt && now.getTime() - kept.readAt <= AGENT_SETUP_FRESH_MS) return kept.setup;
    const setup = load();
    const entry = { readAt: now.getTime(), setup };
    this.entries.delete(key);
    this.entries.set(key, entry);
    setup.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    if (this.entries.size > AGENT_SETUPS_MAX) this.entries.delete(this.entries.keys().next().value!);
    return setup;
  }
}
