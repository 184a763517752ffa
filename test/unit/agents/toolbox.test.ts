import { createToolbox, type AgentTool, type AgentToolContext } from '../../../src/agents';

const context: AgentToolContext = { tenantId: 'ws_1', agentId: 'bot_1', channel: 'whatsapp', runKey: 'run-1', now: new Date('2026-11-27T10:00:00Z') };

function tool(name: string, answer: string, behaviour: 'answer' | 'throw' = 'answer'): AgentTool {
  return {
    name,
    description: `${name} tool`,
    parameters: { type: 'object', properties: {} },
    async run() {
      if (behaviour === 'throw') throw new Error('socket hang up');
      return { ok: true, output: answer, trail: { kind: 'tool', text: `${name} ran` }, latencyMs: 1 };
    },
  };
}

describe('toolbox', () => {
  it('keeps the first source’s tool when two sources name the same one', async () => {
    const box = createToolbox([async () => [tool('hand_over', 'built-in')], async () => [tool('hand_over', 'workspace'), tool('order_status', 'http')]]);
    expect((await box.toolsFor(context)).map((t) => t.name)).toEqual(['hand_over', 'order_status']);
    expect((await box.run(context, 'hand_over', {})).output).toBe('built-in');
  });

  it('answers ok false for an unknown tool and for a tool that throws, so a turn never sticks', async () => {
    const box = createToolbox([async () => [tool('flaky', '', 'throw')]]);
    const unknown = await box.run(context, 'nope', {});
    expect(unknown).toMatchObject({ ok: false, output: { error: 'There is no tool named nope.' }, trail: { kind: 'tool' } });
    const thrown = await box.run(context, 'flaky', {});
    expect(thrown).toMatchObject({ ok: false, output: { error: 'The tool flaky failed.' }, trail: { kind: 'tool', text: 'flaky failed: socket hang up' } });
  });

  it('runs from the tools a caller already listed, without asking the sources again', async () => {
    let asked = 0;
    const box = createToolbox([
      async () => {
        asked += 1;
        return [tool('order_status', 'from the source')];
      },
    ]);
    const listed = await box.toolsFor(context);
    expect(await box.run(context, 'order_status', {}, undefined, listed)).toMatchObject({ ok: true, output: 'from the source' });
    expect(asked).toBe(1);
    await box.run(context, 'order_status', {});
    expect(asked).toBe(2);
  });
});
