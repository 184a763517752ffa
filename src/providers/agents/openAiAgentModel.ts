import OpenAI from 'openai';
import { OpenAIChatCompletionsModel, OpenAIResponsesModel, setTracingDisabled, withTrace, type AgentInputItem, type Model, type ModelRequest as SdkModelRequest, type ModelResponse } from '@openai/agents';
import { AgentModelPermanentError, AgentModelTemporaryError, type AgentModel, type ModelRequest } from '../../agents';
import type { ModelStep } from '../../agents/contracts';
import type { Config } from '../../config';

/**
 * The chat agent's model on an OpenAI-compatible endpoint, through the OpenAI Agents SDK's
 * Chat Completions or Responses model (`@openai/agents` 0.18, AGENT_MODEL_API): one call per
 * step, whole or streamed (AGENT_MODEL_STREAM), our tools given as the SDK's function tools, the
 * conversation as its input items. The SDK's own agent loop is not used: each call and each tool
 * run is a durable step of the conversation's workflow (docs/decisions/agents.md). Errors are
 * sorted into temporary (retried) and permanent.
 */

export interface OpenAiAgentModelSettings {
  /** e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  /** Which of the endpoint's APIs the SDK speaks (`/chat/completions` or `/responses`); `chat_completions` when not given. */
  api?: Config['AGENT_MODEL_API'];
  /** Ask for server-sent events and take the finished response from the stream's end. */
  stream?: boolean;
}

function inputItems(request: ModelRequest): AgentInputItem[] {
  const items: AgentInputItem[] = request.history.map((line): AgentInputItem =>
    line.role === 'user'
      ? { role: 'user', content: line.text }
      : { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: line.text }] },
  );
  for (const item of request.items) {
    if (item.type === 'tool_call') items.push({ type: 'function_call', callId: item.callId, name: item.name, arguments: item.arguments, status: 'completed' });
    else items.push({ type: 'function_call_result', callId: item.callId, name: item.name, status: 'completed', output: item.output });
  }
  return items;
}

/** What the response said: its text and the function calls it asks for. */
export function stepFrom(response: Pick<ModelResponse, 'output'>): ModelStep {
  const texts: string[] = [];
  const toolCalls: ModelStep['toolCalls'] = [];
  for (const item of response.output) {
    if (item.type === 'function_call') toolCalls.push({ callId: item.callId, name: item.name, arguments: item.arguments });
    else if (item.type === 'message' && item.role === 'assistant') {
      for (const part of item.content) if (part.type === 'output_text') texts.push(part.text);
    }
  }
  return { text: texts.length > 0 ? texts.join('\n') : null, toolCalls };
}

function sorted(err: unknown): Error {
  if (err instanceof OpenAI.APIConnectionTimeoutError || err instanceof OpenAI.APIConnectionError) return new AgentModelTemporaryError(`the model endpoint did not answer: ${err.message}`);
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? 0;
    const temporary = status === 408 || status === 409 || status === 429 || status >= 500;
    const message = `the model endpoint answered ${status}: ${err.message}`;
    return temporary ? new AgentModelTemporaryError(message) : new AgentModelPermanentError(message);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The finished response a stream ends with (`response_done`); a stream that ends without one is a temporary failure. */
async function streamedResponse(model: Model, request: SdkModelRequest): Promise<Pick<ModelResponse, 'output'>> {
  for await (const event of model.getStreamedResponse(request)) {
    if (event.type === 'response_done') return { output: event.response.output };
  }
  throw new AgentModelTemporaryError('the model endpoint ended its stream without a finished response');
}

export function createOpenAiAgentModel(settings: OpenAiAgentModelSettings): AgentModel {
  // Nothing is sent to OpenAI's trace store: the transcript and trail are ours.
  setTracingDisabled(true);
  // The workflow retries a failed call; the client must not retry behind its back.
  const client = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey, timeout: settings.timeoutMs, maxRetries: 0 });
  const api = settings.api ?? 'chat_completions';
  const model: Model = api === 'responses' ? new OpenAIResponsesModel(client, settings.model) : new OpenAIChatCompletionsModel(client, settings.model);
  // Every call sends the whole conversation (no previous_response_id), so nothing needs keeping
  // at the provider: `store: false` on Responses, whose default is to keep responses for 30 days.
  const modelSettings = api === 'responses' ? { store: false } : {};
  return {
    name: 'openai',
    async respond(request, signal) {
      const sdkRequest: SdkModelRequest = {
        systemInstructions: request.instructions,
        input: inputItems(request),
        modelSettings,
        tools: request.tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description, parameters: tool.parameters as never, strict: false })),
        outputType: 'text',
        handoffs: [],
        tracing: false,
        signal,
      };
      try {
        // The SDK's model keeps its spans in a trace context, as its Runner would open one (tracing is off: nothing is exported).
        const response = await withTrace('chat agent step', () => (settings.stream ? streamedResponse(model, sdkRequest) : model.getResponse(sdkRequest)));
        return stepFrom(response);
      } catch (err) {
        throw sorted(err);
      }
    },
  };
}
