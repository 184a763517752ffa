import { z } from 'zod';
import { RealtimeAgent, backgroundResult, tool } from '@openai/agents-realtime';
import type { CallContext } from './callContext';

export interface LineAgentActions {
  endCall: () => void;
  transferToHuman: () => void;
}

/** A function tool of the agent's, as the realtime session takes it. */
export type LineTool = ReturnType<typeof tool>;

/**
 * The agent on one call's line: its instructions built from the call (src/calls/agentInstructions.ts),
 * the tools it ends or hands over the call with, and the agent's own tools (`agentTools`, from
 * the toolbox: src/media/callTools.ts). `transfer_to_human` exists only when the number has a
 * team line. Each line tool answers at once as a background result (no new model response);
 * the session lets the agent's last words play before the line changes.
 */
export function lineAgent(call: CallContext, actions: LineAgentActions, agentTools: LineTool[] = []): RealtimeAgent {
  const tools: LineTool[] = [
    lineTool('end_call', 'Hang up the call. Use it after you have said goodbye, when the conversation is finished or the person asks to end it.', actions.endCall, 'The call is ending.'),
  ];
  if (call.teamLine) {
    tools.push(
      lineTool(
        'transfer_to_human',
        'Transfer the caller to a person on the team. Use it when the person asks for a human or you cannot help; tell them first that you are connecting them.',
        actions.transferToHuman,
        'Transferring the caller to a person.',
      ),
    );
  }
  // The line's own tools keep their names: no workspace tool can stand in for hanging up.
  const lineNames = new Set(tools.map((tool) => tool.name));
  tools.push(...agentTools.filter((tool) => !lineNames.has(tool.name)));
  return new RealtimeAgent({ name: 'line-agent', instructions: call.instructions, voice: call.voice.voice, tools });
}

/** A tool without parameters that changes the line and tells the model so without a new response. */
function lineTool(name: string, description: string, act: () => void, result: string) {
  return tool({
    name,
    description,
    parameters: z.object({}),
    execute: async () => {
      act();
      return backgroundResult(result);
    },
  });
}
