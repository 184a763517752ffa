import type { AgentModel, ModelRequest, ModelToolSpec } from '../../agents';
import type { ModelStep, TurnItem } from '../../agents/contracts';

/**
 * The default chat agent's model: deterministic and offline, as the voice simulator is, so
 * the system runs with no model and tests exercise tools without one. It reads the customer's
 * latest messages and, when a tool it is offered fits, calls it: `hand_over` when a person is
 * asked for, an order or tracking tool for order questions, a knowledge or search tool for
 * other questions, and both at once (two tool calls in one step, as a real model calls tools in
 * parallel) for an order question that also asks about a policy ("Where is my order 1234, and
 * can I return it?"); given the tools' results it answers from them, naming the document a
 * knowledge passage came from. It understands nothing:
 * what only a real model shows is in docs/agents.md.
 */

const PERSON = /\b(human|person|people|agent|someone|somebody|representative|operator|staff|colleague|manager|real)\b|talk to|speak (to|with)/i;
const ORDER = /\b(order|orders|delivery|deliver|shipment|shipped|parcel|package|track|tracking)\b/i;
/** Words a business's documents answer (its policies), asked beside an order question: "can I return it?". */
const POLICY = /\b(return|returns|returning|refund|refunds|refunded|exchange|exchanges|cancel|cancellation|cancelling|warranty|guarantee)\b/i;
const GREETING = /^\s*(hi|hello|hey|namaste|good (morning|afternoon|evening))\b[\s!.]*$/i;
const QUESTION = /\?|\b(what|when|where|how|why|which|who|can|do|does|is|are)\b/i;

const ORDER_TOOL = /order|track|shipment|delivery/i;
const KNOWLEDGE_TOOL = /knowledge|search|faq|docs?|lookup|look_up/i;

function customerText(request: ModelRequest): string {
  return request.history
    .slice(request.history.length - request.turnLines)
    .map((line) => line.text)
    .join('\n')
    .trim();
}

function reference(text: string): string | null {
  return /\b[A-Z]{0,4}-?\d{3,}\b/i.exec(text)?.[0] ?? null;
}

/** Arguments for a tool from its schema: ids take the reference in the text, everything else the text. */
function argumentsFor(tool: ModelToolSpec, text: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const properties = tool.parameters.properties as Record<string, { type?: string }>;
  const names = tool.parameters.required?.length ? tool.parameters.required : Object.keys(properties).slice(0, 1);
  for (const name of names) {
    const type = properties[name]?.type ?? 'string';
    const ref = reference(text);
    if (type === 'number' || type === 'integer') args[name] = ref ? Number(ref.replace(/\D/g, '')) : 0;
    else if (type === 'boolean') args[name] = true;
    else if (/id|number|ref|code/i.test(name) && ref) args[name] = ref;
    else if (name === 'reason') args[name] = 'The customer asked for a person.';
    else args[name] = text;
  }
  return args;
}

const find = (tools: ModelToolSpec[], pattern: RegExp) => tools.find((tool) => tool.name !== 'hand_over' && (pattern.test(tool.name) || pattern.test(tool.description)));

/** What a tool's JSON output says, briefly: its answer-like fields, or the output itself. */
function gist(output: string): string {
  try {
    const value: unknown = JSON.parse(output);
    if (value && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (typeof record.error === 'string') return `I could not look that up just now (${record.error}).`;
      for (const key of ['answer', 'text', 'summary', 'status', 'message']) if (typeof record[key] === 'string') return record[key];
      // search_knowledge's answer: the best passage, with the document it comes from (as the tool asks of a model).
      const passage = (Array.isArray(record.passages) ? record.passages[0] : undefined) as Record<string, unknown> | undefined;
      if (passage && typeof passage.text === 'string') return typeof passage.document_name === 'string' ? `${passage.text} (from our "${passage.document_name}")` : passage.text;
      if (Array.isArray(record.passages) && typeof record.note === 'string') return record.note;
      const results = Array.isArray(record.results) ? record.results : Array.isArray(value) ? value : null;
      const top = results?.[0] as Record<string, unknown> | undefined;
      if (top) for (const key of ['text', 'snippet', 'answer', 'content']) if (typeof top[key] === 'string') return top[key];
      return JSON.stringify(value).slice(0, 300);
    }
    return String(value);
  } catch {
    return output.slice(0, 300);
  }
}

export function replyFromResults(items: TurnItem[]): string {
  const results = items.filter((item): item is Extract<TurnItem, { type: 'tool_result' }> => item.type === 'tool_result');
  if (results.some((result) => result.name === 'hand_over')) return 'I have asked a colleague to take over: a person from our team will reply here shortly.';
  return results.map((result) => gist(result.output)).join('\n');
}

function firstStep(request: ModelRequest, text: string): ModelStep {
  const call = (...tools: ModelToolSpec[]): ModelStep => ({
    text: null,
    toolCalls: tools.map((tool) => ({ callId: `sim_${tool.name}_${request.items.length}`, name: tool.name, arguments: JSON.stringify(argumentsFor(tool, text)) })),
  });
  const handOver = request.tools.find((tool) => tool.name === 'hand_over');
  if (PERSON.test(text) && handOver) return call(handOver);
  const orderTool = ORDER.test(text) ? find(request.tools, ORDER_TOOL) : undefined;
  const knowledge = !GREETING.test(text) && QUESTION.test(text) ? (request.tools.find((tool) => tool.name === 'search_knowledge') ?? find(request.tools, KNOWLEDGE_TOOL)) : undefined;
  if (orderTool && knowledge && knowledge !== orderTool && POLICY.test(text)) return call(orderTool, knowledge);
  if (orderTool) return call(orderTool);
  if (knowledge) return call(knowledge);
  if (GREETING.test(text) || text === '') return { text: 'Hello! How can I help you today?', toolCalls: [] };
  if (ORDER.test(text)) {
    const ref = reference(text);
    return { text: ref ? `Thanks: I have noted order ${ref}. A colleague will confirm its status here.` : 'I can help with your order: could you send me your order number?', toolCalls: [] };
  }
  return { text: `Thanks for your message. I have noted: "${text.slice(0, 200)}". How else can I help?`, toolCalls: [] };
}

export function createSimulatedAgentModel(): AgentModel {
  return {
    name: 'simulator',
    respond(request) {
      const results = request.items.filter((item) => item.type === 'tool_result');
      if (results.length > 0) return Promise.resolve({ text: replyFromResults(request.items), toolCalls: [] });
      return Promise.resolve(firstStep(request, customerText(request)));
    },
  };
}
