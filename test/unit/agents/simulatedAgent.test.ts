import type { ModelRequest, ModelToolSpec } from '../../../src/agents';
import { createSimulatedAgentModel } from '../../../src/providers/agents/simulatedAgent';

const handOver: ModelToolSpec = { name: 'hand_over', description: 'Hand the conversation to a person.', parameters: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] } };
const orders: ModelToolSpec = { name: 'look_up_order', description: 'Find an order by number.', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] } };
const knowledge: ModelToolSpec = { name: 'search_knowledge', description: "Search the business's documents.", parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } };

const ask = (text: string, tools: ModelToolSpec[], items: ModelRequest['items'] = [], earlier: ModelRequest['history'] = []): ModelRequest => ({
  instructions: '',
  history: [...earlier, { role: 'user', text }],
  turnLines: 1,
  items,
  tools,
  stepKey: 'k',
});

/** The default chat model: deterministic, and it uses the tools it is offered when the text fits. */
describe('the simulated chat agent', () => {
  const model = createSimulatedAgentModel();

  it('calls hand_over when the customer asks for a person', async () => {
    expect(await model.respond(ask('Can I talk to a real person?', [handOver, orders]))).toEqual({
      text: null,
      toolCalls: [{ callId: 'sim_hand_over_0', name: 'hand_over', arguments: '{"reason":"The customer asked for a person."}' }],
    });
  });

  it('calls an order tool with the order number for an order question, and answers from its result', async () => {
    expect(await model.respond(ask('Where is my order 4821?', [handOver, knowledge, orders]))).toEqual({
      text: null,
      toolCalls: [{ callId: 'sim_look_up_order_0', name: 'look_up_order', arguments: '{"order_id":"4821"}' }],
    });
    const items: ModelRequest['items'] = [
      { type: 'tool_call', callId: 'c1', name: 'look_up_order', arguments: '{"order_id":"4821"}' },
      { type: 'tool_result', callId: 'c1', name: 'look_up_order', output: '{"status":"Order 4821 arrives Friday."}' },
    ];
    expect(await model.respond(ask('Where is my order 4821?', [orders], items))).toEqual({ text: 'Order 4821 arrives Friday.', toolCalls: [] });
  });

  it('searches knowledge for other questions, and says when a tool failed', async () => {
    expect((await model.respond(ask('What are your opening hours?', [knowledge]))).toolCalls).toEqual([
      { callId: 'sim_search_knowledge_0', name: 'search_knowledge', arguments: '{"query":"What are your opening hours?"}' },
    ]);
    const failed: ModelRequest['items'] = [
      { type: 'tool_call', callId: 'c1', name: 'search_knowledge', arguments: '{}' },
      { type: 'tool_result', callId: 'c1', name: 'search_knowledge', output: '{"error":"The tool search_knowledge failed."}' },
    ];
    expect((await model.respond(ask('What are your opening hours?', [knowledge], failed))).text).toBe('I could not look that up just now (The tool search_knowledge failed.).');
  });

  it('calls the order tool and the knowledge tool in one step for an order question that asks about a policy, and answers from both', async () => {
    const text = 'Where is my order 1234, and can I return it?';
    expect(await model.respond(ask(text, [handOver, knowledge, orders]))).toEqual({
      text: null,
      toolCalls: [
        { callId: 'sim_look_up_order_0', name: 'look_up_order', arguments: '{"order_id":"1234"}' },
        { callId: 'sim_search_knowledge_0', name: 'search_knowledge', arguments: JSON.stringify({ query: text }) },
      ],
    });
    // Without a policy word, or without one of the two tools, it is one call as before.
    expect((await model.respond(ask('Where is my order 1234?', [knowledge, orders]))).toolCalls.map((c) => c.name)).toEqual(['look_up_order']);
    expect((await model.respond(ask(text, [knowledge]))).toolCalls.map((c) => c.name)).toEqual(['search_knowledge']);
    const items: ModelRequest['items'] = [
      { type: 'tool_call', callId: 'c1', name: 'look_up_order', arguments: '{"order_id":"1234"}' },
      { type: 'tool_call', callId: 'c2', name: 'search_knowledge', arguments: JSON.stringify({ query: text }) },
      { type: 'tool_result', callId: 'c1', name: 'look_up_order', output: '{"status":"Order 1234 was delivered on Monday."}' },
      {
        type: 'tool_result',
        callId: 'c2',
        name: 'search_knowledge',
        output: JSON.stringify({ passages: [{ document_id: 'kdoc_1', document_name: 'Returns policy', section: 'Returns', text: 'Items can be returned within 30 days of delivery.' }] }),
      },
    ];
    expect(await model.respond(ask(text, [knowledge, orders], items))).toEqual({
      text: 'Order 1234 was delivered on Monday.\nItems can be returned within 30 days of delivery. (from our "Returns policy")',
      toolCalls: [],
    });
    // A search that found nothing says so, rather than showing the raw answer.
    const nothing: ModelRequest['items'] = [
      { type: 'tool_result', callId: 'c2', name: 'search_knowledge', output: '{"passages":[],"note":"No document of this business mentions that."}' },
    ];
    expect((await model.respond(ask('Do you sell gift cards?', [knowledge], nothing))).text).toBe('No document of this business mentions that.');
  });

  it('answers without tools when none fits, reading only the turn’s own messages', async () => {
    expect(await model.respond(ask('hello', [handOver]))).toEqual({ text: 'Hello! How can I help you today?', toolCalls: [] });
    expect(await model.respond(ask('Where is my order?', [handOver]))).toEqual({ text: 'I can help with your order: could you send me your order number?', toolCalls: [] });
    // An earlier message asking for a person is not this turn's.
    expect(await model.respond(ask('hello', [handOver], [], [{ role: 'user', text: 'I want a human' }, { role: 'assistant', text: 'A colleague will reply.' }]))).toEqual({
      text: 'Hello! How can I help you today?',
      toolCalls: [],
    });
  });
});
