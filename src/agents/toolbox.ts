import type { AgentTool, AgentToolContext, AgentToolResult, AgentToolSource } from './agentTool';

/**
 * All the tools an agent may call, gathered from the sources the composition root hands in
 * (knowledge, business HTTP tools, built-ins). The sources are a dependency, not a module-level
 * registry, so a process that forgets one does not compile rather than silently losing it.
 */
export interface Toolbox {
  toolsFor(context: Pick<AgentToolContext, 'tenantId' | 'agentId' | 'channel'>): Promise<AgentTool[]>;
  /**
   * Runs one tool by name; an unknown name or a throwing tool answers `ok: false`, never throws.
   * `listed`: the tools a caller already listed for this context (not listed again).
   */
  run(context: AgentToolContext, name: string, args: unknown, signal?: AbortSignal, listed?: readonly AgentTool[]): Promise<AgentToolResult>;
}

export function createToolbox(sources: readonly AgentToolSource[]): Toolbox {
  const toolsFor: Toolbox['toolsFor'] = async (context) => {
    const lists = await Promise.all(sources.map((source) => source(context)));
    const byName = new Map<string, AgentTool>();
    // The first source to name a tool keeps it: built-ins are listed first by the roots, so a
    // workspace's HTTP tool cannot shadow "hand_over".
    for (const tool of lists.flat()) if (!byName.has(tool.name)) byName.set(tool.name, tool);
    return [...byName.values()];
  };
  return {
    toolsFor,
    async run(context, name, args, signal, listed) {
      const started = Date.now();
      const tool = (listed ?? (await toolsFor(context))).find((candidate) => candidate.name === name);
      if (!tool) {
        return { ok: false, output: { error: `There is no tool named ${name}.` }, trail: { kind: 'tool', text: `Asked for an unknown tool ${name}` }, latencyMs: Date.now() - started };
      }
      try {
        return await tool.run(context, args, signal);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return { ok: false, output: { error: `The tool ${name} failed.` }, trail: { kind: 'tool', text: `${name} failed: ${message}` }, latencyMs: Date.now() - started };
      }
    },
  };
}
