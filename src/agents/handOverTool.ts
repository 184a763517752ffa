import type { AgentTool, AgentToolSource } from './agentTool';

/** What the model is told once it has asked for a person, so its last words to the customer fit. */
const HANDED_OVER_NOTE = 'A team member will take over this conversation. Tell the customer, briefly, that a person will reply here soon.';

/**
 * The built-in `hand_over` tool: the agent asks for a person (the customer asked for one, or it
 * cannot help). It only answers `handOver`; the conversation's workflow then gives the
 * conversation to the team after the turn's reply (docs/agents.md, "Hand-over").
 */
export const handOverTool: AgentTool = {
  name: 'hand_over',
  description: 'Hand the conversation to a person on the team. Use it when the customer asks for a person, or when you cannot help with their request.',
  parameters: {
    type: 'object',
    properties: { reason: { type: 'string', description: 'Why a person should take over, in one short sentence for the team.' } },
    required: ['reason'],
    additionalProperties: false,
  },
  run(context, args) {
    const given = (args as { reason?: unknown } | null)?.reason;
    const reason = typeof given === 'string' && given.trim() !== '' ? given.trim().slice(0, 500) : 'The agent asked for a person.';
    return Promise.resolve({ ok: true, output: { handed_over: true, note: HANDED_OVER_NOTE }, trail: { kind: 'hold', text: `Handing over to the team: ${reason}` }, handOver: { reason }, latencyMs: 0 });
  },
};

/** The agents slice's own built-ins (today only `hand_over`), offered to every agent on every channel. */
export const agentBuiltInTools: AgentToolSource = () => Promise.resolve([handOverTool]);
