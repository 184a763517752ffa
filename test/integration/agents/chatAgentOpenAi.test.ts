import request from 'supertest';
import { agentBuiltInTools, createToolbox, type AgentToolSource } from '../../../src/agents';
import { createOpenAiAgentModel } from '../../../src/providers/agents/openAiAgentModel';
import { useTestApi } from '../../support/app';
import { FakeOpenAi } from '../../support/fakeOpenAi';
import { CONSOLE, eventually, injectInbound } from '../../support/messaging';

const stockTools: AgentToolSource = () =>
  Promise.resolve([
    {
      name: 'check_stock',
      description: 'How many of an item are in stock.',
      parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
      run: (context, args) => Promise.resolve({ ok: true, output: { item: (args as { item: string }).item, in_stock: 12 }, trail: { kind: 'lookup' as const, text: 'Checked stock' }, latencyMs: 1 }),
    },
  ]);

/** The conversation's workflow with the OpenAI-compatible model: each model call is a real HTTP request to the fake, each tool call its own step. */
describe('the chat agent on an OpenAI-compatible endpoint, end to end', () => {
  let fake: FakeOpenAi;
  let baseUrl: string;
  beforeAll(async () => {
    fake = new FakeOpenAi();
    baseUrl = await fake.start();
  });
  afterAll(() => fake?.stop());
  const { api, ws } = useTestApi(() => ({
    env: { AGENT_BURST_QUIET_MS: '300' },
    worker: { agentModel: createOpenAiAgentModel({ baseUrl, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 10_000 }), toolbox: createToolbox([agentBuiltInTools, stockTools]) },
    workspace: { chatAgent: true },
  }));

  it('calls the tool the model asks for, gives it the result, and sends its answer as a model turn', async () => {
    fake.answer = (req) =>
      req.body.messages!.some((m) => m.role === 'tool')
        ? { text: 'We have 12 blue kettles in stock.' }
        : { toolCalls: [{ id: 'call_stock', name: 'check_stock', arguments: { item: 'blue kettle' } }] };
    const { conversation_id: conversationId } = await injectInbound(api, ws.workspaceId, { from: '+919811100001', text: 'Do you have the blue kettle?' });
    const turns = await eventually(async () => {
      const items = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`).set(CONSOLE)).body.items as { role: string; kind: string; text: string }[];
      return items.some((t) => t.role === 'model' && t.kind === 'turn') ? items : null;
    }, 'the model turn');
    expect(turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'turn', 'Do you have the blue kettle?'],
      ['model', 'trail', expect.stringMatching(/^Lookup check_stock: Checked stock \(\d+ ms\)$/)],
      ['model', 'turn', 'We have 12 blue kettles in stock.'],
    ]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]!.body.tools!.map((t) => t.function!.name).sort()).toEqual(['check_stock', 'hand_over']);
    expect(fake.requests[1]!.body.messages!.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_stock', content: '{"item":"blue kettle","in_stock":12}' });
  });
});
