import type { Logger } from '../src/observability/logger';
import type { ApiKeyDoc, WorkspaceDoc } from '../src/db/collections';

/** What middleware puts on every request's `ctx.state`. */
export interface RequestState {
  requestId: string;
  correlationId: string;
  log: Logger;
  /** Set by `authenticate` on keyed routes. */
  apiKey?: ApiKeyDoc;
  workspace?: WorkspaceDoc;
  /** Set by `jsonBody`: the bytes as sent, and their parse. */
  rawBody?: Buffer;
  body?: unknown;
  /**
   * Set by `idempotency` on a request with an Idempotency-Key that runs: the key's record and
   * when its first request claimed it (the same for a request that took a dead one's claim over).
   */
  idempotency?: { recordId: string; firstAt: Date };
  /** Set by `validate` and `validateParams`: the parsed query, body and path parameters. */
  input?: { query?: unknown; body?: unknown; params?: unknown };
}

/** The pattern of the route that matched (e.g. `/api/v1/calls/:call_id`), set by the router. */
export function matchedRoute(ctx: object): string | undefined {
  return (ctx as { _matchedRoute?: string })._matchedRoute;
}
