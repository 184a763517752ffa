import request from 'supertest';
import { agentBuiltInTools, createToolbox, type AgentToolSource } from '../../../src/agents';
import { loadConfig } from '../../../src/config';
import { createAgentModel } from '../../../src/providers/agents';
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

/**
 * The conversation's workflow with the OpenAI-compatible model, as the worker builds it from its
 * settings, on each API: each model call is a real HTTP request to the fake, each tool call its
 * own step.
 */
describe.each([
  { api: 'chat_completions', stream: 'false' },
  { api: 'responses', stream: 'true' },
] as const)('the chat agent on an OpenAI-compatible endpoint, end to end (AGENT_MODEL_API=$api, AGENT_MODEL_STREAM=$stream)', ({ api: modelApi, stream }) => {
  let fake: FakeOpenAi;
  let baseUrl: string;
  beforeAll(async () => {
    fake = new FakeOpenAi();
    baseUrl = await fake.start();
  });
  afterAll(() => fake?.stop());
  const { api, ws } = useTestApi(() => ({
    env: { AGENT_BURST_QUIET_MS: '300' },
    worker: {
      agentModel: createAgentModel(
        loadConfig({ AGENT_MODEL_PROVIDER: 'openai', AGENT_MODEL_BASE_URL: baseUrl, AGENT_MODEL_API_KEY: 'sk-test', AGENT_MODEL: 'gpt-test', AGENT_MODEL_API: modelApi, AGENT_MODEL_STREAM: stream, AGENT_MODEL_TIMEOUT_MS: '10000' }),
      ),
      toolbox: createToolbox([agentBuiltInTools, stockTools]),
    },
    workspace: { chatAgent: true },
  }));

  it('calls the tool the model asks for, gives it the result, and sends its answer as a model turn', async () => {
    fake.answer = (req) =>
      JSON.stringify(req.body).includes('in_stock')
        ? { text: 'We have 12 blue kettles in stock.' }
        : { toolCalls: [{ id: 'call_stock', name: 'check_stock', arguments: { item: 'blue kettle' } }] };
    const { conversation_id: conversationId } = await injectInbound(api, ws.workspaceId, { from: '+919811100001', text: 'Do you have the blue kettle?' });
    const turns = await eventually(async () => {
      const items = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`).set(CONSOLE)).body.items as { role: string; kind: string; text: string }[];
      return items.some((t) => t.role === 'model' && t.kind === 'turn') ? items : null;
    }, 'the model turn', 60_000);
    expect(turns.map((t) => [t.role, t.kind, t.text])).toEqual([
      ['user', 'turn', 'Do you have the blue kettle?'],
      ['model', 'trail', expect.stringMatching(/^Lookup check_stock: Checked stock \(\d+ ms\)$/)],
      ['model', 'turn', 'We have 12 blue kettles in stock.'],
    ]);
    expect(fake.requests.map((r) => [r.api, r.body.stream ?? false])).toEqual([
      [modelApi, stream === 'true'],
      [modelApi, stream === 'true'],
    ]);
    expect(fake.requests[0]!.body.tools!.map((t) => t.function?.name ?? t.name ?? '').sort()).toEqual(['check_stock', 'hand_over']);
    if (modelApi === 'chat_completions') {
      expect(fake.requests[1]!.body.messages!.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_stock', content: '{"item":"blue kettle","in_stock":12}' });
    } else {
      expect((fake.requests[1]!.body.input as object[]).at(-1)).toMatchObject({ type: 'function_call_output', call_id: 'call_stock', output: '{"item":"blue kettle","in_stock":12}' });
    }
  });
});
