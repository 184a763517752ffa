import { z } from 'zod';
import { RealtimeAgent, backgroundResult, tool } from '@openai/agents-realtime';
import type { CallContext } from './callContext';

export interface LineAgentActions {
  endCall: () => void;
  transferToHuman: () => void;
}

/**
 * The agent on one call's line: its instructions built from the call (src/calls/agentInstructions.ts)
 * and the tools it ends or hands over the call with. `transfer_to_human` exists only when the
 * number has a team line. Each tool answers at once as a background result (no new model
 * response); the session lets the agent's last words play before the line changes.
 */
export function lineAgent(call: CallContext, actions: LineAgentActions): RealtimeAgent {
  const tools = [
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
