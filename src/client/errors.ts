import type { components } from './generated/v1';

/** The error envelope every failure on /api/v1 answers (api-core §7), as the document describes it. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
/** The nine codes; fixed for v1 (new conditions add a `reason`, never a code). */
export type ErrorCode = ErrorEnvelope['error']['code'];

/** The status each code answers with, unless rule 2 kept an unnamed status (a 405 is `invalid_argument`). */
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_argument',
  401: 'unauthenticated',
  403: 'permission_denied',
  404: 'not_found',
  409: 'conflict',
  412: 'failed_precondition',
  429: 'rate_limited',
  500: 'internal',
  502: 'provider_error',
};

/**
 * A failure the API answered: the envelope's fields, the HTTP status and the response's
 * headers. `reason` is `details.reason` when it is a string, else null (schema validation
 * failures carry none, and new reasons may appear under an existing code: keep a default
 * branch). Branch on `code` and `reason`, never on `message`.
 */
export class OrchestratorApiError extends Error {
  override readonly name = 'OrchestratorApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly reason: string | null;
  readonly details: Record<string, unknown>;
  /** `req_…`; null only when the body was not the envelope (something between us and the API answered). */
  readonly requestId: string | null;
  readonly correlationId: string | null;
  readonly headers: Headers;

  constructor(status: number, envelope: ErrorEnvelope['error'] | null, headers: Headers = new Headers()) {
    super(envelope?.message ?? `HTTP ${status} without the API's error envelope.`);
    this.status = status;
    // Rule 2 of api-core §7: an unnamed 4xx is invalid_argument and an unnamed 5xx internal.
    this.code = envelope?.code ?? CODE_OF_STATUS[status] ?? (status < 500 ? 'invalid_argument' : 'internal');
    this.details = envelope?.details ?? {};
    this.reason = typeof this.details.reason === 'string' ? this.details.reason : null;
    this.requestId = envelope?.request_id ?? null;
    this.correlationId = envelope?.correlation_id ?? null;
    this.headers = headers;
  }

  /** The error of a response that is not a success; `body` is its parsed JSON, or its text. */
  static fromResponse(response: Response, body: unknown): OrchestratorApiError {
    return new OrchestratorApiError(response.status, isEnvelope(body) ? body.error : null, response.headers);
  }
}

/** Whether a parsed body is the API's error envelope (anything else came from something in between). */
export function isEnvelope(body: unknown): body is ErrorEnvelope {
  const error = (body as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string' &&
    typeof error.details === 'object' &&
    error.details !== null
  );
}
