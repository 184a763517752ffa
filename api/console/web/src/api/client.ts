import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../generated/console';

/** The error envelope every console route answers with (api-core §7). */
export interface ErrorEnvelope {
  error: { code: string; message: string; details: Record<string, unknown>; request_id: string };
}

/** A refused call, carrying the envelope so a page can show its message and reason. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope | null,
  ) {
    super(envelope?.error.message ?? `The console API answered ${status}.`);
  }
  get reason(): string | undefined {
    return this.envelope?.error.details.reason as string | undefined;
  }
}

let csrfToken: string | null = null;
let onSessionEnded: () => void = () => {};

/** Set by the session module after log-in; sent on every request that changes something. */
export function useCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function currentCsrfToken(): string | null {
  return csrfToken;
}

export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The session cookie goes by itself (same origin, HttpOnly: no script sees it); a change
 * also carries the CSRF token in its header. A 401 means the session ended: back to log-in.
 */
const session: Middleware = {
  onRequest({ request }) {
    if (!SAFE.has(request.method) && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) onSessionEnded();
    return response;
  },
};

const options = { baseUrl: '', credentials: 'same-origin' as const };

/** Typed from the console's OpenAPI document (src/generated/console.ts). */
export const api = createClient<paths>(options);
api.use(session);

/** The data of an openapi-fetch answer, or an ApiFailure with its envelope. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiFailure(response.status, (error as ErrorEnvelope | undefined) ?? null);
  return data as T;
}
