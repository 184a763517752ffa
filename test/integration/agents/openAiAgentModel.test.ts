import { AgentModelPermanentError, AgentModelTemporaryError, type ModelRequest } from '../../../src/agents';
import { createOpenAiAgentModel } from '../../../src/providers/agents/openAiAgentModel';
import { FakeOpenAi } from '../../support/fakeOpenAi';

/** The OpenAI-compatible adapter (through @openai/agents' Chat Completions model) against a local fake over real HTTP. */
describe('the chat agent model on an OpenAI-compatible endpoint', () => {
  let fake: FakeOpenAi;
  let baseUrl: string;
  beforeAll(async () => {
    fake = new FakeOpenAi();
    baseUrl = await fake.start();
  });
  afterAll(() => fake?.stop());
  beforeEach(() => {
    fake.requests.length = 0;
  });

  const model = () => createOpenAiAgentModel({ baseUrl, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 5_000 });
  const request = (items: ModelRequest['items'] = []): ModelRequest => ({
    instructions: 'You answer customers.',
    history: [
      { role: 'user', text: 'hi' },
      { role: 'assistant', text: 'Hello! How can I help?' },
      { role: 'user', text: 'Where is order 4821?' },
    ],
    turnLines: 1,
    items,
    tools: [{ name: 'look_up_order', description: 'Find an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } }],
    stepKey: 'agent-con_1:turn-1:0',
  });

  it('sends the instructions, the conversation and the tools, and reads a tool call back', async () => {
    fake.answer = () => ({ toolCalls: [{ id: 'call_1', name: 'look_up_order', arguments: { order_id: '4821' } }] });
    const step = await model().respond(request());
    expect(step).toEqual({ text: null, toolCalls: [{ callId: 'call_1', name: 'look_up_order', arguments: '{"order_id":"4821"}' }] });
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent!.url).toBe('/v1/chat/completions');
    expect(sent!.authorization).toBe('Bearer sk-test');
    expect(sent!.body.model).toBe('gpt-test');
    expect(sent!.body.messages.map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)])).toEqual([
      ['system', 'You answer customers.'],
      ['user', 'hi'],
      ['assistant', expect.stringContaining('Hello! How can I help?')],
      ['user', 'Where is order 4821?'],
    ]);
    expect(sent!.body.tools).toEqual([
      { type: 'function', function: { name: 'look_up_order', description: 'Find an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] }, strict: false } },
    ]);
  });

  it('gives the tool results back as tool messages and reads the answer', async () => {
    fake.answer = () => ({ text: 'Order 4821 arrives Friday.' });
    const step = await model().respond(
      request([
        { type: 'tool_call', callId: 'call_1', name: 'look_up_order', arguments: '{"order_id":"4821"}' },
        { type: 'tool_result', callId: 'call_1', name: 'look_up_order', output: '{"status":"arrives Friday"}' },
      ]),
    );
    expect(step).toEqual({ text: 'Order 4821 arrives Friday.', toolCalls: [] });
    const messages = fake.requests[0]!.body.messages;
    expect(messages.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look_up_order', arguments: '{"order_id":"4821"}' } }] });
    expect(messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: '{"status":"arrives Friday"}' });
  });

  it('sorts failures: 5xx and 429 are temporary, 401 is permanent', async () => {
    fake.answer = () => ({ status: 503, error: { message: 'overloaded', type: 'server_error' } });
    await expect(model().respond(request())).rejects.toThrow(AgentModelTemporaryError);
    fake.answer = () => ({ status: 429, error: { message: 'slow down', type: 'rate_limit' } });
    await expect(model().respond(request())).rejects.toThrow(AgentModelTemporaryError);
    fake.answer = () => ({ status: 401, error: { message: 'bad key', type: 'invalid_request_error' } });
    const refused = model().respond(request());
    await expect(refused).rejects.toThrow(AgentModelPermanentError);
    await expect(refused).rejects.toThrow('the model endpoint answered 401');
    // No retries behind the workflow's back: one request per call.
    expect(fake.requests).toHaveLength(3);
  });

  it('counts a model that does not answer in time as temporary', async () => {
    fake.delayMs = 1_500;
    fake.answer = () => ({ text: 'late' });
    try {
      await expect(createOpenAiAgentModel({ baseUrl, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 300 }).respond(request())).rejects.toThrow(AgentModelTemporaryError);
    } finally {
      fake.delayMs = 0;
    }
  });
});
