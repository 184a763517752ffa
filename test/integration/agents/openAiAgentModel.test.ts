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
    expect(sent!.body.messages!.map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)])).toEqual([
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
    const messages = fake.requests[0]!.body.messages!;
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

  // Each API, whole and streamed: the tool call read back, then its result given and the answer read.
  describe.each([
    { api: 'chat_completions', stream: false },
    { api: 'chat_completions', stream: true },
    { api: 'responses', stream: false },
    { api: 'responses', stream: true },
  ] as const)('AGENT_MODEL_API=$api, streamed: $stream', ({ api, stream }) => {
    const chosen = () => createOpenAiAgentModel({ baseUrl, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 5_000, api, stream });

    it('makes a tool call round trip on its API', async () => {
      fake.answer = (req) =>
        JSON.stringify(req.body).includes('arrives Friday') ? { text: 'Order 4821 arrives Friday.' } : { toolCalls: [{ id: 'call_7', name: 'look_up_order', arguments: { order_id: '4821' } }] };
      const asked = await chosen().respond(request());
      expect(asked).toEqual({ text: null, toolCalls: [{ callId: 'call_7', name: 'look_up_order', arguments: '{"order_id":"4821"}' }] });
      const answered = await chosen().respond(
        request([
          { type: 'tool_call', callId: 'call_7', name: 'look_up_order', arguments: '{"order_id":"4821"}' },
          { type: 'tool_result', callId: 'call_7', name: 'look_up_order', output: '{"status":"arrives Friday"}' },
        ]),
      );
      expect(answered).toEqual({ text: 'Order 4821 arrives Friday.', toolCalls: [] });

      expect(fake.requests.map((r) => [r.api, r.url, r.authorization, r.body.model, r.body.stream ?? false])).toEqual([
        [api, api === 'responses' ? '/v1/responses' : '/v1/chat/completions', 'Bearer sk-test', 'gpt-test', stream],
        [api, api === 'responses' ? '/v1/responses' : '/v1/chat/completions', 'Bearer sk-test', 'gpt-test', stream],
      ]);
      const [first, second] = fake.requests.map((r) => r.body);
      if (api === 'chat_completions') {
        expect(first!.tools).toEqual([{ type: 'function', function: { name: 'look_up_order', description: 'Find an order.', parameters: request().tools[0]!.parameters, strict: false } }]);
        expect(first!.messages!.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
        expect(second!.messages!.slice(-2)).toMatchObject([
          { role: 'assistant', tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'look_up_order', arguments: '{"order_id":"4821"}' } }] },
          { role: 'tool', tool_call_id: 'call_7', content: '{"status":"arrives Friday"}' },
        ]);
        if (stream) expect(first!.stream_options).toEqual({ include_usage: true });
      } else {
        expect(first!.instructions).toBe('You answer customers.');
        expect(first!.tools).toEqual([{ type: 'function', name: 'look_up_order', description: 'Find an order.', parameters: request().tools[0]!.parameters, strict: false }]);
        expect((first!.input as { role?: string }[]).map((item) => item.role)).toEqual(['user', 'assistant', 'user']);
        expect(first).toMatchObject({ store: false });
        expect((second!.input as object[]).slice(-2)).toMatchObject([
          { type: 'function_call', call_id: 'call_7', name: 'look_up_order', arguments: '{"order_id":"4821"}' },
          { type: 'function_call_output', call_id: 'call_7', output: '{"status":"arrives Friday"}' },
        ]);
      }
    });

    it('sorts an HTTP failure as the whole call does (503 temporary, 401 permanent)', async () => {
      fake.answer = () => ({ status: 503, error: { message: 'overloaded', type: 'server_error' } });
      await expect(chosen().respond(request())).rejects.toThrow(AgentModelTemporaryError);
      fake.answer = () => ({ status: 401, error: { message: 'bad key', type: 'invalid_request_error' } });
      await expect(chosen().respond(request())).rejects.toThrow(new AgentModelPermanentError('the model endpoint answered 401: 401 bad key'));
      expect(fake.requests).toHaveLength(2);
    });
  });

  it('counts a model that does not answer in time as temporary', async () => {
    // Held until the call has settled, not answered after a fixed delay: a loaded machine may fire the timeout after such an answer came.
    let answer!: () => void;
    fake.hold = new Promise<void>((resolve) => (answer = resolve));
    fake.answer = () => ({ text: 'late' });
    try {
      await expect(createOpenAiAgentModel({ baseUrl, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 300 }).respond(request())).rejects.toThrow(AgentModelTemporaryError);
    } finally {
      fake.hold = null;
      answer();
    }
  });
});
