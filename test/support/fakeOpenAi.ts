import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an OpenAI-compatible endpoint speaking the two APIs as OpenAI documents them:
 * Chat Completions (`POST /v1/chat/completions`) and Responses (`POST /v1/responses`), each
 * with function tool calls, server-sent-event streaming when `stream` is asked, and structured
 * output (`response_format` / `text.format` of type `json_schema`, answered as JSON text, or a
 * refusal). It answers from `answer(request)` after `delayMs` (and after `hold`, when a test
 * holds the model), and records every request, so a test can check what was sent over HTTP.
 * test/integration/agents/fakeOpenAi.test.ts proves the wire format with the official `openai`
 * client.
 */

type Json = Record<string, unknown>;

/** The function tools as each API declares them: nested under `function` (Chat Completions) or flat (Responses). */
export type FakeTool = { type: string; name?: string; description?: string; parameters?: unknown; strict?: boolean; function?: { name: string; description?: string; parameters?: unknown; strict?: boolean } };

/** A request as the fake received it. `api` says which endpoint; the body is as sent. */
export interface ChatRequest {
  api: 'chat_completions' | 'responses';
  url: string;
  authorization: string | undefined;
  body: {
    model: string;
    /** Chat Completions' conversation. */
    messages?: { role: string; content?: unknown; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
    /** Responses' conversation: a string or input items (messages, function_call, function_call_output). */
    input?: string | Json[];
    instructions?: string | null;
    tools?: FakeTool[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean } | null;
    response_format?: { type: string; json_schema?: { name?: string; schema?: unknown; strict?: boolean } };
    text?: { format?: { type: string; name?: string; schema?: unknown; strict?: boolean } };
  };
}

/**
 * What the fake answers one request with: text, structured output (`json`: sent as the JSON
 * text of the value, and only to a request that asked for a json_schema format), a refusal, tool
 * calls, or an HTTP error.
 */
export type ChatAnswer =
  | { text: string }
  | { json: unknown }
  | { refusal: string }
  | { toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[] }
  | { status: number; error: { message: string; type: string; code?: string | null; param?: string | null } };

const USAGE = { input: 10, output: 5 };

/** Pieces of `text` as a model streams them: a few characters at a time, so a client must join them. */
function pieces(text: string, size = 7): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

function structuredFormat(request: ChatRequest): { type: string; name?: string; schema?: unknown } | null {
  if (request.api === 'chat_completions') {
    const format = request.body.response_format;
    if (!format || format.type === 'text') return null;
    return format.type === 'json_schema' ? { type: format.type, name: format.json_schema?.name, schema: format.json_schema?.schema } : { type: format.type };
  }
  const format = request.body.text?.format;
  return format && format.type !== 'text' ? format : null;
}

/** The 400s OpenAI gives a structured-output request it cannot serve, before any model runs. */
function refusedFormat(request: ChatRequest): ChatAnswer | null {
  const format = structuredFormat(request);
  if (!format || format.type !== 'json_schema') return null;
  const where = request.api === 'chat_completions' ? 'response_format.json_schema' : 'text.format';
  if (!format.name) return { status: 400, error: { message: `Missing required parameter: '${where}.name'.`, type: 'invalid_request_error', param: `${where}.name`, code: 'missing_required_parameter' } };
  if (!format.schema || typeof format.schema !== 'object') return { status: 400, error: { message: `Missing required parameter: '${where}.schema'.`, type: 'invalid_request_error', param: `${where}.schema`, code: 'missing_required_parameter' } };
  return null;
}

export class FakeOpenAi {
  readonly requests: ChatRequest[] = [];
  delayMs = 0;
  /** While set, every request waits for it before being answered (a test holds the model's answer). */
  hold: Promise<void> | null = null;
  answer: (request: ChatRequest) => ChatAnswer = () => ({ text: 'Hello from the fake model.' });
  /** Told of each request as it arrives, before it is answered (a test may kill a process then). */
  onRequest: ((request: ChatRequest) => void) | null = null;
  private server!: Server;
  private count = 0;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void this.route(req, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  private async route(req: IncomingMessage, raw: Buffer, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!;
    const api = path.endsWith('/chat/completions') ? 'chat_completions' : path.endsWith('/responses') ? 'responses' : null;
    if (req.method !== 'POST' || !api) {
      sendError(res, 404, { message: `Invalid URL (${req.method} ${req.url})`, type: 'invalid_request_error' });
      return;
    }
    let body: ChatRequest['body'];
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      sendError(res, 400, { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error' });
      return;
    }
    const request: ChatRequest = { api, url: req.url!, authorization: req.headers.authorization, body };
    this.requests.push(request);
    this.onRequest?.(request);
    if (this.hold) await this.hold;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (res.destroyed) return;
    const answer = refusedFormat(request) ?? this.answer(request);
    if ('status' in answer) {
      sendError(res, answer.status, answer.error);
      return;
    }
    if ('json' in answer && !structuredFormat(request)) {
      // The test's script is wrong, not the client: said loudly, as a status no client retries.
      sendError(res, 400, { message: 'fake OpenAI: a json answer to a request that asked for no structured output', type: 'fake_script_error' });
      return;
    }
    const n = ++this.count;
    if (api === 'chat_completions') this.chatCompletion(request, answer, n, res);
    else this.response(request, answer, n, res);
  }

  private chatCompletion(request: ChatRequest, answer: Exclude<ChatAnswer, { status: number }>, n: number, res: ServerResponse): void {
    const id = `chatcmpl-fake${n}`;
    const created = Math.floor(Date.now() / 1000);
    const model = request.body.model;
    const content = 'text' in answer ? answer.text : 'json' in answer ? JSON.stringify(answer.json) : null;
    const refusal = 'refusal' in answer ? answer.refusal : null;
    const calls = 'toolCalls' in answer ? answer.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) : null;
    const finish = calls ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
    if (!request.body.stream) {
      const message = { role: 'assistant', content, refusal, ...(calls ? { tool_calls: calls } : {}) };
      sendJson(res, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message, logprobs: null, finish_reason: finish }], usage, system_fingerprint: 'fp_fake' });
      return;
    }
    // As OpenAI streams: the role first, then content (or refusal) in pieces, or each tool call's
    // id and name followed by its arguments in fragments, then the finish reason, then usage in a
    // chunk of its own with no choices when `stream_options.include_usage` asks, then [DONE].
    const chunk = (delta: Json, finishReason: string | null = null) => ({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
    const events: Json[] = [chunk({ role: 'assistant', content: calls || refusal !== null ? null : '', refusal: null })];
    if (content !== null) for (const piece of pieces(content)) events.push(chunk({ content: piece }));
    if (refusal !== null) for (const piece of pieces(refusal)) events.push(chunk({ refusal: piece }));
    calls?.forEach((call, index) => {
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
      for (const piece of pieces(call.function.arguments, 5)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    events.push(chunk({}, finish));
    if (request.body.stream_options?.include_usage) events.push({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [], usage });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
    res.end('data: [DONE]\n\n');
  }

  private response(request: ChatRequest, answer: Exclude<ChatAnswer, { status: number }>, n: number, res: ServerResponse): void {
    const created_at = Math.floor(Date.now() / 1000);
    const output: Json[] = [];
    if ('toolCalls' in answer) {
      answer.toolCalls.forEach((c, i) => output.push({ type: 'function_call', id: `fc_fake${n}_${i}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.arguments), status: 'completed' }));
    } else {
      const part = 'refusal' in answer ? { type: 'refusal', refusal: answer.refusal } : { type: 'output_text', text: 'text' in answer ? answer.text : JSON.stringify(answer.json), annotations: [], logprobs: [] };
      output.push({ type: 'message', id: `msg_fake${n}`, status: 'completed', role: 'assistant', content: [part] });
    }
    const base = {
      id: `resp_fake${n}`,
      object: 'response',
      created_at,
      model: request.body.model,
      instructions: request.body.instructions ?? null,
      tools: request.body.tools ?? [],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      text: request.body.text ?? { format: { type: 'text' } },
      error: null,
      incomplete_details: null,
      metadata: {},
      temperature: 1,
      top_p: 1,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      store: false,
      truncation: 'disabled',
    };
    const usage = { input_tokens: USAGE.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: USAGE.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: USAGE.input + USAGE.output };
    const completed = { ...base, status: 'completed', output, usage };
    if (!request.body.stream) {
      sendJson(res, completed);
      return;
    }
    // The documented event sequence: created, in_progress, then per output item its `added`, its
    // parts' and deltas' events and its `done`, then `completed` with the whole response. Each
    // event is named (`event:`) and carries its type and a rising sequence_number; no [DONE].
    let sequence = 0;
    const events: Json[] = [];
    const emit = (type: string, fields: Json) => events.push({ type, sequence_number: sequence++, ...fields });
    emit('response.created', { response: { ...base, status: 'in_progress', output: [], usage: null } });
    emit('response.in_progress', { response: { ...base, status: 'in_progress', output: [], usage: null } });
    output.forEach((item, output_index) => {
      if (item.type === 'function_call') {
        emit('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
        for (const delta of pieces(item.arguments as string, 5)) emit('response.function_call_arguments.delta', { item_id: item.id, output_index, delta });
        emit('response.function_call_arguments.done', { item_id: item.id, output_index, name: item.name, arguments: item.arguments });
      } else {
        const [part] = item.content as Json[];
        const emptyPart = part!.type === 'refusal' ? { type: 'refusal', refusal: '' } : { type: 'output_text', text: '', annotations: [], logprobs: [] };
        emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
        emit('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part: emptyPart });
        if (part!.type === 'refusal') {
          for (const delta of pieces(part!.refusal as string)) emit('response.refusal.delta', { item_id: item.id, output_index, content_index: 0, delta });
          emit('response.refusal.done', { item_id: item.id, output_index, content_index: 0, refusal: part!.refusal });
        } else {
          for (const delta of pieces(part!.text as string)) emit('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta, logprobs: [] });
          emit('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text: part!.text, logprobs: [] });
        }
        emit('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part });
      }
      emit('response.output_item.done', { output_index, item });
    });
    emit('response.completed', { response: completed });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    for (const event of events) res.write(`event: ${event.type as string}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function sendJson(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_fake${Date.now()}` }).end(JSON.stringify(body));
}

/** OpenAI's error envelope, for both APIs. */
function sendError(res: ServerResponse, status: number, error: { message: string; type: string; code?: string | null; param?: string | null }): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: error.message, type: error.type, param: error.param ?? null, code: error.code ?? null } }));
}
