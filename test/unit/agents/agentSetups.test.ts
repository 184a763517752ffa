import { AGENT_SETUP_FRESH_MS, AgentSetups, type AgentSetup } from '../../../src/agents/agentSetups';

/** The bound on an agent's setup kept across turns (src/agents/agentSetups.ts), by the caller's clock. */
describe("an agent's setup kept across turns", () => {
  const setup = (instructions: string): AgentSetup => ({ instructions, tools: [] });

  it('serves one read for the bound, per workspace and agent, and reads again past it or when the clock went back', async () => {
    const setups = new AgentSetups();
    const reads: string[] = [];
    const read = (what: string) => async () => (reads.push(what), setup(what));
    const t0 = new Date('2026-11-28T10:00:00Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);

    expect((await setups.get('ws_a', 'agt_1', t0, read('first'))).instructions).toBe('first');
    expect((await setups.get('ws_a', 'agt_1', at(AGENT_SETUP_FRESH_MS), read('kept'))).instructions).toBe('first');
    // Another agent, another workspace: their own reads.
    expect((await setups.get('ws_a', 'agt_2', at(1), read('agent 2'))).instructions).toBe('agent 2');
    expect((await setups.get('ws_b', 'agt_1', at(1), read('workspace b'))).instructions).toBe('workspace b');
    expect((await setups.get('ws_a', 'agt_1', at(AGENT_SETUP_FRESH_MS + 1), read('past the bound'))).instructions).toBe('past the bound');
    expect((await setups.get('ws_a', 'agt_1', at(AGENT_SETUP_FRESH_MS), read('clock went back'))).instructions).toBe('clock went back');
    expect(reads).toEqual(['first', 'agent 2', 'workspace b', 'past the bound', 'clock went back']);
  });
});
