import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { FakeOpenAi } from '../../support/fakeOpenAi';

/**
 * The fake OpenAI-compatible server speaks the wire formats the official `openai` client parses:
 * its JSON bodies, its server-sent events (the client's own stream helpers assemble deltas and
 * check the Responses event order), its structured output helpers and its error envelope. Other
 * tests trust the fake because this one holds.
 */
describe('the fake OpenAI-compatible server, read by the official openai client', () => {
  let fake: FakeOpenAi;
  let client: OpenAI;
  beforeAll(async () => {
    fake = new FakeOpenAi();
    client = new OpenAI({ baseURL: await fake.start(), apiKey: 'sk-fake', maxRetries: 0 });
  });
  afterAll(() => fake?.stop());
  beforeEach(() => {
    fake.requests.length = 0;
  });

  const lookUpOrder = { name: 'look_up_order', description: 'Find an order.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'], additionalProperties: false } };
  const Order = z.object({ order_id: z.string(), status: z.enum(['shipped', 'pending']) });

  describe('Chat Completions', () => {
    it('answers text and tool calls as JSON', async () => {
      fake.answer = () => ({ toolCalls: [{ id: 'call_1', name: 'look_up_order', arguments: { order_id: '4821' } }] });
      const asked = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Where is 4821?' }], tools: [{ type: 'function', function: lookUpOrder }] });
      expect(asked.object).toBe('chat.completion');
      expect(asked.choices[0]!.finish_reason).toBe('tool_calls');
      expect(asked.choices[0]!.message.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'look_up_order', arguments: '{"order_id":"4821"}' } }]);

      fake.answer = () => ({ text: 'It ships Friday.' });
      const answered = await client.chat.completions.create({
        model: 'gpt-test',
        messages: [
          { role: 'user', content: 'Where is 4821?' },
          { role: 'assistant', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look_up_order', arguments: '{"order_id":"4821"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"status":"shipped"}' },
        ],
      });
      expect(answered.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: 'It ships Friday.', refusal: null } });
      expect(answered.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
      expect(fake.requests.map((r) => [r.api, r.url, r.authorization])).toEqual([
        ['chat_completions', '/v1/chat/completions', 'Bearer sk-fake'],
        ['chat_completions', '/v1/chat/completions', 'Bearer sk-fake'],
      ]);
    });

    it('streams text in pieces the client joins, with usage in a last chunk of no choices, then [DONE]', async () => {
      fake.answer = () => ({ text: 'Your order 4821 ships on Friday.' });
      const stream = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
      const deltas: string[] = [];
      const finishes: (string | null)[] = [];
      let usage: unknown = null;
      for await (const chunk of stream) {
        expect(chunk.object).toBe('chat.completion.chunk');
        if (chunk.usage) {
          expect(chunk.choices).toEqual([]);
          usage = chunk.usage;
        }
        for (const choice of chunk.choices) {
          if (choice.delta.content) deltas.push(choice.delta.content);
          finishes.push(choice.finish_reason);
        }
      }
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe('Your order 4821 ships on Friday.');
      expect(finishes.at(-1)).toBe('stop');
      expect(finishes.slice(0, -1).every((f) => f === null)).toBe(true);
      expect(usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    });

    it('streams tool calls whose arguments the client helper assembles from fragments', async () => {
      fake.answer = () => ({
        toolCalls: [
          { id: 'call_a', name: 'look_up_order', arguments: { order_id: '4821' } },
          { id: 'call_b', name: 'look_up_order', arguments: { order_id: '77' } },
        ],
      });
      const stream = client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'Both orders?' }], tools: [{ type: 'function', function: lookUpOrder }] });
      const fragments: string[] = [];
      stream.on('tool_calls.function.arguments.delta', (event) => fragments.push(event.arguments_delta));
      const completion = await stream.finalChatCompletion();
      expect(fragments.length).toBeGreaterThan(2);
      expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
      expect(completion.choices[0]!.message.tool_calls).toEqual([
        { id: 'call_a', type: 'function', function: { name: 'look_up_order', arguments: '{"order_id":"4821"}'} },
        { id: 'call_b', type: 'function', function: { name: 'look_up_order', arguments: '{"order_id":"77"}'} },
      ]);
    });

    it('answers a json_schema response_format with JSON the client parses, also streamed', async () => {
      fake.answer = () => ({ json: { order_id: '4821', status: 'shipped' } });
      const parsed = await client.chat.completions.parse({ model: 'gpt-test', messages: [{ role: 'user', content: '4821?' }], response_format: zodResponseFormat(Order, 'order') });
      expect(parsed.choices[0]!.message.parsed).toEqual({ order_id: '4821', status: 'shipped' });
      expect(fake.requests[0]!.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'order', strict: true, schema: { type: 'object', required: ['order_id', 'status'] } } });

      const streamed = await client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: '4821?' }], response_format: zodResponseFormat(Order, 'order') }).finalChatCompletion();
      expect(streamed.choices[0]!.message.parsed).toEqual({ order_id: '4821', status: 'shipped' });
    });

    it('gives a refusal in its own field, and refuses a json_schema without a schema as OpenAI does (400)', async () => {
      fake.answer = () => ({ refusal: 'I cannot help with that.' });
      const refused = await client.chat.completions.parse({ model: 'gpt-test', messages: [{ role: 'user', content: '?' }], response_format: zodResponseFormat(Order, 'order') });
      expect(refused.choices[0]!.message).toMatchObject({ content: null, refusal: 'I cannot help with that.', parsed: null });
      const streamed = await client.chat.completions.stream({ model: 'gpt-test', messages: [{ role: 'user', content: '?' }], response_format: zodResponseFormat(Order, 'order') }).finalChatCompletion();
      expect(streamed.choices[0]!.message.refusal).toBe('I cannot help with that.');

      const bad = client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: '?' }], response_format: { type: 'json_schema', json_schema: { name: 'order' } } });
      await expect(bad).rejects.toMatchObject({ status: 400, code: 'missing_required_parameter', param: 'response_format.json_schema.schema', type: 'invalid_request_error' });
    });
  });

  describe('Responses', () => {
    it('answers function calls and text as response objects, with output_text', async () => {
      fake.answer = () => ({ toolCalls: [{ id: 'call_1', name: 'look_up_order', arguments: { order_id: '4821' } }] });
      const asked = await client.responses.create({ model: 'gpt-test', instructions: 'Be brief.', input: 'Where is 4821?', tools: [{ type: 'function', strict: true, ...lookUpOrder }] });
      expect(asked).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-test', output_text: '' });
      expect(asked.output).toEqual([{ type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_1', name: 'look_up_order', arguments: '{"order_id":"4821"}', status: 'completed' }]);

      fake.answer = () => ({ text: 'It ships Friday.' });
      const answered = await client.responses.create({
        model: 'gpt-test',
        input: [
          { role: 'user', content: 'Where is 4821?' },
          { type: 'function_call', call_id: 'call_1', name: 'look_up_order', arguments: '{"order_id":"4821"}' },
          { type: 'function_call_output', call_id: 'call_1', output: '{"status":"shipped"}' },
        ],
      });
      expect(answered.output_text).toBe('It ships Friday.');
      expect(answered.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
      expect(fake.requests.map((r) => [r.api, r.url])).toEqual([
        ['responses', '/v1/responses'],
        ['responses', '/v1/responses'],
      ]);
      expect(fake.requests[0]!.body).toMatchObject({ instructions: 'Be brief.', input: 'Where is 4821?', tools: [{ type: 'function', name: 'look_up_order', strict: true }] });
    });

    it('streams named events in the documented order, which the client stream helper accepts and assembles', async () => {
      fake.answer = () => ({ text: 'Your order 4821 ships on Friday.' });
      const stream = client.responses.stream({ model: 'gpt-test', input: 'hi' });
      const types: string[] = [];
      const sequence: number[] = [];
      const deltas: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        sequence.push(event.sequence_number);
        if (event.type === 'response.output_text.delta') deltas.push(event.delta);
      }
      const final = await stream.finalResponse();
      expect([...new Set(types)]).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      expect(sequence).toEqual(sequence.map((_, i) => i));
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join('')).toBe('Your order 4821 ships on Friday.');
      expect(final.output_text).toBe('Your order 4821 ships on Friday.');
    });

    it('streams a function call whose arguments come in fragments', async () => {
      fake.answer = () => ({ toolCalls: [{ id: 'call_1', name: 'look_up_order', arguments: { order_id: '4821' } }] });
      const stream = client.responses.stream({ model: 'gpt-test', input: 'Where is 4821?', tools: [{ type: 'function', strict: true, ...lookUpOrder }] });
      const fragments: string[] = [];
      stream.on('response.function_call_arguments.delta', (event) => fragments.push(event.delta));
      const final = await stream.finalResponse();
      expect(fragments.length).toBeGreaterThan(2);
      expect(fragments.join('')).toBe('{"order_id":"4821"}');
      expect(final.output).toEqual([{ type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_1', name: 'look_up_order', arguments: '{"order_id":"4821"}', status: 'completed', parsed_arguments: { order_id: '4821' } }]);
    });

    it('answers a json_schema text.format with JSON the client parses, also streamed; refuses one without a name (400)', async () => {
      fake.answer = () => ({ json: { order_id: '4821', status: 'pending' } });
      const parsed = await client.responses.parse({ model: 'gpt-test', input: '4821?', text: { format: zodTextFormat(Order, 'order') } });
      expect(parsed.output_parsed).toEqual({ order_id: '4821', status: 'pending' });
      expect(fake.requests[0]!.body.text).toMatchObject({ format: { type: 'json_schema', name: 'order', strict: true, schema: { type: 'object' } } });
      const streamed = await client.responses.stream({ model: 'gpt-test', input: '4821?', text: { format: zodTextFormat(Order, 'order') } }).finalResponse();
      expect(streamed.output_parsed).toEqual({ order_id: '4821', status: 'pending' });

      const bad = client.responses.create({ model: 'gpt-test', input: '?', text: { format: { type: 'json_schema', schema: { type: 'object' } } as never } });
      await expect(bad).rejects.toMatchObject({ status: 400, code: 'missing_required_parameter', param: 'text.format.name' });
    });

    it('gives a refusal as a content part, also streamed', async () => {
      fake.answer = () => ({ refusal: 'I cannot help with that.' });
      const refused = await client.responses.create({ model: 'gpt-test', input: '?' });
      expect(refused.output).toEqual([{ type: 'message', id: expect.stringMatching(/^msg_/), status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] }]);
      const stream = client.responses.stream({ model: 'gpt-test', input: '?' });
      const deltas: string[] = [];
      stream.on('response.refusal.delta', (event) => deltas.push(event.delta));
      const final = await stream.finalResponse();
      expect(deltas.join('')).toBe('I cannot help with that.');
      expect(final.output[0]).toMatchObject({ type: 'message', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] });
    });
  });

  it('answers errors in OpenAI’s envelope on both APIs, and 404 an unknown path', async () => {
    fake.answer = () => ({ status: 429, error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } });
    await expect(client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded', message: '429 Rate limit reached' });
    await expect(client.responses.create({ model: 'gpt-test', input: 'hi', stream: true })).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    await expect(client.embeddings.create({ model: 'e', input: 'x' })).rejects.toMatchObject({ status: 404, type: 'invalid_request_error' });
  });
});
