import { backgroundResult, tool } from '@openai/agents-realtime';
import type { AgentTool, AgentToolContext, AgentToolResult, Toolbox, TrailEntry } from '../agents';

/** What a live call's tools run with: the process's toolbox and the call's latency budget (MEDIA_TOOL_HOLD_MS, MEDIA_TOOL_TIMEOUT_MS). */
export interface CallToolSettings {
  toolbox: Toolbox;
  /** A tool slower than this gets a hold line said over the silence. */
  holdAfterMs: number;
  /** A tool slower than this is given up: the agent is told it did not answer. */
  timeoutMs: number;
}

/** What one call gives its tools: who is asking, and where the hold line and the trail rows go. */
export interface CallToolHooks {
  context: Omit<AgentToolContext, 'runKey' | 'now'>;
  /** Asks the model to say the hold line now (the session's next response). */
  sayHoldLine(): void;
  /** A trail row of the call's transcript. */
  trail(entry: TrailEntry, at: Date): void;
  /**
   * A tool asked for a person (the built-in `hand_over`, or a business tool's `hand_over`): the
   * call decides what happens on the line, and what the model is told.
   */
  handOver(request: { tool: string; reason: string; toolCallId: string }): HandOverAnswer;
}

/**
 * What a hand-over asked by a tool came to on the line. `transferring`: the caller is being
 * moved to the team line, the bridge itself has the hold line said, so the model is only told
 * (no response of its own); otherwise the model answers from `output` and the call goes on.
 */
export interface HandOverAnswer {
  transferring: boolean;
  output: Record<string, unknown>;
}

type NonStrictSchema = { type: 'object'; properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: true };

/** What the model is told while the hold line plays: a few words, no new tool call, nothing promised. */
export const HOLD_LINE_INSTRUCTIONS =
  'A tool you called is still working. Tell the caller in a few words to hold on, for example "One moment, please." Do not say anything else and do not call any tool.';

/**
 * The agent's tools (from the toolbox: built-ins, business tools, knowledge) as the realtime
 * session's function tools. Each call of one runs through `Toolbox.run` on the `voice`
 * channel, keyed by the model's call id (a repeated call id is the same run); past
 * `holdAfterMs` without an answer the agent says a hold line, past `timeoutMs` the tool is
 * aborted and the model told so. Both the hold line and the tool's run are trail rows. A tool
 * that asks for a person (`handOver`) is handed to the call (`hooks.handOver`), which moves the
 * caller to the team line or tells the model it cannot.
 */
export function callTools(tools: AgentTool[], settings: CallToolSettings, hooks: CallToolHooks) {
  return tools.map((agentTool) =>
    tool({
      name: agentTool.name,
      description: agentTool.description,
      // Non-strict: the schema goes to the model as the tool wrote it (strict mode would rewrite
      // every property as required), and the tool checks its arguments itself. The SDK's type for
      // it insists on `additionalProperties: true`; the value is sent unchanged either way.
      parameters: { ...agentTool.parameters, required: agentTool.parameters.required ?? [] } as unknown as NonStrictSchema,
      strict: false,
      execute: async (input, _runContext, details) => {
        const toolCallId = details?.toolCall?.callId ?? `${agentTool.name}:${Date.now()}`;
        const result = await runWithinBudget(agentTool.name, input, toolCallId, settings, hooks);
        hooks.trail(result.trail, new Date());
        if (!result.handOver) return JSON.stringify(result.output);
        // The tool's own words (a WhatsApp note, a business's answer) stay; what the line did is added.
        const answer = hooks.handOver({ tool: agentTool.name, reason: result.handOver.reason, toolCallId });
        const output = JSON.stringify({ tool_answer: result.output, ...answer.output });
        return answer.transferring ? backgroundResult(output) : output;
      },
    }),
  );
}

async function runWithinBudget(name: string, input: unknown, toolCallId: string, settings: CallToolSettings, hooks: CallToolHooks): Promise<AgentToolResult> {
  const started = Date.now();
  const controller = new AbortController();
  const context: AgentToolContext = { ...hooks.context, runKey: `${hooks.context.callId}:${toolCallId}`, now: new Date(started) };
  const holdTimer = setTimeout(() => {
    hooks.trail({ kind: 'hold', text: `Said a hold line while ${name} ran (no answer after ${settings.holdAfterMs} ms)`, detail: { tool: name } }, new Date());
    hooks.sayHoldLine();
  }, settings.holdAfterMs);
  let timeoutTimer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<AgentToolResult>((resolve) => {
    timeoutTimer = setTimeout(() => {
      controller.abort();
      resolve({
        ok: false,
        output: { error: `${name} did not answer in time; tell the caller you could not check it now.` },
        trail: { kind: 'tool', text: `${name} gave no answer within ${settings.timeoutMs} ms` },
        latencyMs: Date.now() - started,
      });
    }, settings.timeoutMs);
  });
  try {
    return await Promise.race([settings.toolbox.run(context, name, input, controller.signal), timedOut]);
  } finally {
    clearTimeout(holdTimer);
    clearTimeout(timeoutTimer);
  }
}
