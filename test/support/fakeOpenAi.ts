import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Chat Completions request as the fake received it. */
export interface ChatRequest {
  url: string;
  authorization: string | undefined;
  body: {
    model: string;
    messages: { role: string; content?: unknown; tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
    stream?: boolean;
  };
}

/** What the fake answers one request with: text, tool calls, or an HTTP error. */
export type ChatAnswer =
  | { text: string }
  | { toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[] }
  | { status: number; error: { message: string; type: string } };

/**
 * A stand-in for an OpenAI-compatible endpoint: `POST /v1/chat/completions` (JSON, and
 * server-sent events when `stream` is asked), answering from `answer(request)` after
 * `delayMs`. Records every request, so a test can check what the SDK sent over HTTP.
 */
export class FakeOpenAi {
  readonly requests: ChatRequest[] = [];
  delayMs = 0;
  answer: (request: ChatRequest) => ChatAnswer = () => ({ text: 'Hello from the fake model.' });
  /** Told of each request as it arrives, before it is answered (a test may kill a worker then). */
  onRequest: ((request: ChatRequest) => void) | null = null;
  private server!: Server;
  private count = 0;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.url}`, type: 'invalid_request_error' } }));
          return;
        }
        const request: ChatRequest = { url: req.url, authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
        this.requests.push(request);
        this.onRequest?.(request);
        const reply = () => this.respond(request, res);
        if (this.delayMs > 0) setTimeout(reply, this.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  private respond(request: ChatRequest, res: import('node:http').ServerResponse): void {
    const answer = this.answer(request);
    if ('status' in answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: answer.error }));
      return;
    }
    const id = `chatcmpl-${++this.count}`;
    const message =
      'text' in answer
        ? { role: 'assistant', content: answer.text }
        : { role: 'assistant', content: null, tool_calls: answer.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) };
    const finish = 'text' in answer ? 'stop' : 'tool_calls';
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (request.body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: request.body.model, choices: [{ index: 0, delta: message, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: request.body.model, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ id, object: 'chat.completion', created: 0, model: request.body.model, choices: [{ index: 0, message, finish_reason: finish }], usage }),
    );
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
