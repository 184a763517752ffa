import { RunContext } from '@openai/agents-core';
import type { AgentTool, AgentToolContext, TrailEntry } from '../../../src/agents';
import { createToolbox } from '../../../src/agents';
import { isBackgroundResult } from '@openai/agents-realtime';
import { callTools, type CallToolHooks } from '../../../src/media/callTools';

/**
 * A live call's tools within its latency budget, without audio: a quick tool answers with no
 * hold line; a slow one gets the hold line (one trail row, one request) and still answers; one
 * past the timeout is aborted and the model told so, and the call goes on.
 */
describe('a live call’s tools within the latency budget', () => {
  const context = { tenantId: 'ws_a', agentId: 'agt_a', channel: 'voice' as const, callId: 'call_0000000000001111aaaa2222', customerPhone: '+919800000001' };

  function toolThat(answerAfterMs: number | null, seen: { signal?: AbortSignal; context?: AgentToolContext }): AgentTool {
    return {
      name: 'slow_lookup',
      description: 'Looks something up.',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      run: (runContext, args, signal) => {
        seen.signal = signal;
        seen.context = runContext;
        return new Promise((resolve) => {
          if (answerAfterMs === null) return;
          setTimeout(() => resolve({ ok: true, output: { found: args }, trail: { kind: 'lookup', text: 'Looked it up' }, latencyMs: answerAfterMs }), answerAfterMs);
        });
      },
    };
  }

  async function invoke(tool: AgentTool, budget: { holdAfterMs: number; timeoutMs: number }, handOver: CallToolHooks['handOver'] = () => ({ transferring: false, output: {} })) {
    const trail: TrailEntry[] = [];
    let holdLines = 0;
    const handOvers: Parameters<CallToolHooks['handOver']>[0][] = [];
    const [realtimeTool] = callTools([tool], { toolbox: createToolbox([async () => [tool]]), ...budget }, {
      context,
      sayHoldLine: () => (holdLines += 1),
      trail: (entry) => trail.push(entry),
      handOver: (request) => {
        handOvers.push(request);
        return handOver(request);
      },
    });
    const output = await realtimeTool!.invoke(new RunContext(), JSON.stringify({ id: '7' }), {
      toolCall: { type: 'function_call', callId: 'call_model_1', name: 'slow_lookup', arguments: '{"id":"7"}' },
    });
    return { output, trail, holdLines, handOvers, definition: realtimeTool! };
  }

  /** A tool whose answer asks for a person, as a business tool's top-level `hand_over` does. */
  const askingForAPerson: AgentTool = {
    name: 'refund_desk',
    description: 'Starts a refund.',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
    run: async () => ({ ok: true, output: { status: 'refund above limit' }, trail: { kind: 'tool', text: 'Ran refund_desk' }, handOver: { reason: 'Refunds above the limit need a person' }, latencyMs: 3 }),
  };

  it('hands a tool’s hand-over to the call: transferring, the model is only told (a background result, no response of its own)', async () => {
    const { output, trail, handOvers } = await invoke(askingForAPerson, { holdAfterMs: 1_000, timeoutMs: 5_000 }, () => ({ transferring: true, output: { handed_over: true, note: 'connecting' } }));
    expect(handOvers).toEqual([{ tool: 'refund_desk', reason: 'Refunds above the limit need a person', toolCallId: 'call_model_1' }]);
    expect(isBackgroundResult(output)).toBe(true);
    expect(JSON.parse((output as unknown as { content: string }).content)).toEqual({ tool_answer: { status: 'refund above limit' }, handed_over: true, note: 'connecting' });
    expect(trail).toEqual([{ kind: 'tool', text: 'Ran refund_desk' }]);
  });

  it('gives the model the call’s refusal of a hand-over as a plain answer it responds to', async () => {
    const { output, handOvers } = await invoke(askingForAPerson, { holdAfterMs: 1_000, timeoutMs: 5_000 }, () => ({ transferring: false, output: { handed_over: false, error: 'no team line' } }));
    expect(handOvers).toHaveLength(1);
    expect(isBackgroundResult(output)).toBe(false);
    expect(JSON.parse(output as string)).toEqual({ tool_answer: { status: 'refund above limit' }, handed_over: false, error: 'no team line' });
  });

  it('asks the call nothing for a tool that does not ask for a person', async () => {
    const { handOvers } = await invoke(toolThat(10, {}), { holdAfterMs: 1_000, timeoutMs: 5_000 });
    expect(handOvers).toEqual([]);
  });

  it('sends the schema as the tool wrote it and answers a quick tool with no hold line', async () => {
    const seen: { context?: AgentToolContext } = {};
    const { output, trail, holdLines, definition } = await invoke(toolThat(10, seen), { holdAfterMs: 1_000, timeoutMs: 5_000 });
    expect(definition).toMatchObject({ type: 'function', name: 'slow_lookup', strict: false, parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false } });
    expect(output).toBe('{"found":{"id":"7"}}');
    expect(holdLines).toBe(0);
    expect(trail).toEqual([{ kind: 'lookup', text: 'Looked it up' }]);
    expect(seen.context).toEqual({ ...context, runKey: 'call_0000000000001111aaaa2222:call_model_1', now: expect.any(Date) });
  });

  it('says the hold line once for a tool slower than the threshold, then gives its answer', async () => {
    const { output, trail, holdLines } = await invoke(toolThat(400, {}), { holdAfterMs: 200, timeoutMs: 5_000 });
    expect(output).toBe('{"found":{"id":"7"}}');
    expect(holdLines).toBe(1);
    expect(trail).toEqual([
      { kind: 'hold', text: 'Said a hold line while slow_lookup ran (no answer after 200 ms)', detail: { tool: 'slow_lookup' } },
      { kind: 'lookup', text: 'Looked it up' },
    ]);
  });

  it('gives up a tool past the timeout: aborted, and the model told it did not answer', async () => {
    const seen: { signal?: AbortSignal } = {};
    const { output, trail, holdLines } = await invoke(toolThat(null, seen), { holdAfterMs: 200, timeoutMs: 1_000 });
    expect(JSON.parse(output as string)).toEqual({ error: 'slow_lookup did not answer in time; tell the caller you could not check it now.' });
    expect(seen.signal?.aborted).toBe(true);
    expect(holdLines).toBe(1);
    expect(trail.map((entry) => entry.text)).toEqual(['Said a hold line while slow_lookup ran (no answer after 200 ms)', 'slow_lookup gave no answer within 1000 ms']);
  });
});
