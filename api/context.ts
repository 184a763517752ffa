import type { Logger } from '../src/observability/logger';

/** What middleware puts on every request's `ctx.state`. */
export interface RequestState {
  requestId: string;
  correlationId: string;
  log: Logger;
}
