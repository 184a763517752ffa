import { createHash } from 'node:crypto';
import type { AgentToolContext, AgentToolResult, ToolParameters } from '../agents';
import { sendWebhook, signedHeaders } from '../webhooks';
import { BUSINESS_TOOL_LIMITS as L } from './limits';
import { argumentsProblem } from './parametersSchema';
import type { BusinessToolDoc } from './store';

/**
 * One call of a workspace's HTTP tool (docs/agents.md "Business tools"): the arguments are
 * checked against the tool's schema, then POSTed as JSON, signed exactly as a webhook is
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature` with the tool's secret, so the
 * business verifies it with the same code as our webhooks), through the webhook sender: the
 * same address policy on the connection, no redirects, the tool's timeout (capped), and the
 * answer read up to `maxResponseBytes` and no further. Never throws: every failure is
 * `ok: false` with an `output.error` the agent can say in its own words, and a trail row
 * (kind `tool`) with the result and the latency.
 *
 * A 2xx answer is JSON the model is given as it is. Its top-level `hand_over` asks for a
 * person: `{"hand_over": {"reason": "…"}}` (or `"hand_over": "…"`, or `true`) sets the
 * result's `handOver`, and the agent hands the conversation over.
 */

/** The `webhook-id` of a call: stable for a tool run (its runKey), so a retried run is recognisably the same request. */
export function callId(tenantId: string, runKey: string): string {
  return `tcall_${createHash('sha256').update(`${tenantId}\u0000${runKey}`).digest('hex').slice(0, 24)}`;
}

export const effectiveTimeoutMs = (tool: Pick<BusinessToolDoc, 'timeout_ms'>): number => Math.min(Math.max(tool.timeout_ms, L.minTimeoutMs), L.maxTimeoutMs);

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The reason a JSON answer gives for a hand-over, or null when it asks for none. */
export function handOverAsked(answer: unknown): string | null {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return null;
  const asked = (answer as Record<string, unknown>).hand_over;
  if (asked === undefined || asked === null || asked === false) return null;
  if (typeof asked === 'string') return clip(asked.trim() || 'The tool asked for a person.', L.handOverReasonChars);
  const reason = typeof asked === 'object' && !Array.isArray(asked) ? (asked as Record<string, unknown>).reason : undefined;
  return clip(typeof reason === 'string' && reason.trim() ? reason.trim() : 'The tool asked for a person.', L.handOverReasonChars);
}

/** The failing answer's own words, when it gave JSON with `error` or `message`, or short text. */
function errorText(body: string | null): string | null {
  if (!body) return null;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const said = parsed?.error ?? parsed?.message;
    if (typeof said === 'string') return clip(said, L.errorTextChars);
    if (said && typeof said === 'object' && typeof (said as { message?: unknown }).message === 'string') return clip((said as { message: string }).message, L.errorTextChars);
    return null;
  } catch {
    return /^[\s\S]{1,300}$/.test(body) && !/<[a-z!]/i.test(body) ? clip(body.trim(), L.errorTextChars) : null;
  }
}

export interface CallToolOptions {
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** The wall clock, for the signature's timestamp. */
  clock?: () => Date;
}

export async function callBusinessTool(tool: BusinessToolDoc, parameters: ToolParameters, context: AgentToolContext, args: unknown, options: CallToolOptions): Promise<AgentToolResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (said: string, why: string, detail: Record<string, unknown> = {}): AgentToolResult => {
    const latencyMs = elapsed();
    return {
      ok: false,
      output: { error: said },
      trail: { kind: 'tool', text: `${tool.name} failed: ${why} (${latencyMs} ms)`, detail: { tool: tool.name, ok: false, error: why, latency_ms: latencyMs, ...detail } },
      latencyMs,
    };
  };

  const problem = argumentsProblem(parameters, args);
  if (problem) return failed(`The arguments for ${tool.name} do not fit: ${problem}`, `arguments refused: ${problem}`, { arguments: args ?? null });

  const body = Buffer.from(JSON.stringify(args), 'utf8');
  const id = callId(context.tenantId, context.runKey);
  const sentAt = (options.clock ?? (() => new Date()))();
  const timeoutMs = effectiveTimeoutMs(tool);
  const sent = await sendWebhook({
    url: tool.url,
    body,
    headers: { ...signedHeaders([tool.secret], id, Math.floor(sentAt.getTime() / 1000), body), 'x-agent-tool': tool.name },
    timeoutMs,
    allowPrivate: options.allowPrivate,
    signal: options.signal,
    maxResponseBytes: L.maxResponseBytes,
  });
  const detail = { call_id: id, status_code: sent.statusCode, arguments: args };

  if (sent.statusCode === null && options.signal?.aborted) {
    // The caller gave up (a live call past its budget, a worker shutting down): not the tool's failure.
    return failed(`${tool.name} was stopped before it answered.`, 'stopped by the caller before an answer', detail);
  }
  if (sent.statusCode === null) {
    const timedOut = sent.error?.startsWith('no answer within') ?? false;
    return failed(
      timedOut ? `${tool.name} did not answer in time.` : `${tool.name} could not be reached.`,
      sent.error ?? 'no answer',
      detail,
    );
  }
  if (sent.tooLarge) return failed(`${tool.name} answered with more than the agent can read.`, `answer larger than ${L.maxResponseBytes} bytes`, detail);
  if (sent.statusCode < 200 || sent.statusCode > 299) {
    const said = errorText(sent.responseBody);
    return failed(`${tool.name} answered with an error (HTTP ${sent.statusCode})${said ? `: ${said}` : '.'}`, `answered ${sent.statusCode}`, { ...detail, response: said });
  }
  let answer: unknown = {};
  if (sent.responseBody !== null && sent.responseBody.trim() !== '') {
    try {
      answer = JSON.parse(sent.responseBody);
    } catch {
      return failed(`${tool.name} gave an answer that is not JSON.`, 'answer is not JSON', { ...detail, response: clip(sent.responseBody, L.trailResultChars) });
    }
  }
  const latencyMs = elapsed();
  const reason = handOverAsked(answer);
  return {
    ok: true,
    output: answer,
    trail: {
      kind: 'tool',
      text: `Ran ${tool.name}: answered ${sent.statusCode} in ${latencyMs} ms${reason ? `, asking for a person (${reason})` : ''}`,
      detail: { tool: tool.name, ok: true, latency_ms: latencyMs, ...detail, result: clip(JSON.stringify(answer), L.trailResultChars) },
    },
    ...(reason ? { handOver: { reason } } : {}),
    latencyMs,
  };
}
