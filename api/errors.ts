import { LeaseTimeoutError } from '../src/db/leaseLock';
import { isDatabaseUnavailable } from '../src/db/mongo';
import { LIMITS } from '../src/domain/limits';
import { Refusal } from '../src/domain/refusal';
import { ERROR_STATUS, type ErrorCode } from './errorCodes';
import { refusalParts } from './refusals';

/**
 * The one helper behind every error the API sends (api-core §7): nine codes
 * (api/errorCodes.ts), each with its HTTP status; `details` always an object; the request
 * and correlation ids stamped by the error middleware.
 */

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    details: Record<string, unknown>;
    request_id: string;
    correlation_id: string;
  };
}

export class ApiError extends Error {
  readonly status: number;
  /** Response headers that belong to this error (e.g. `Retry-After`). */
  readonly headers: Record<string, string> = {};
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Only for the unnamed-4xx/5xx rule, where a status keeps its own number. */
    status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status ?? ERROR_STATUS[code];
  }
}

/**
 * The record a lookup found, or the 404 of the thing it names: the get-one-or-404 step of a
 * route that reads, changes or acts on one record (`message` as the route's `notFound` says it).
 */
export function found<T>(record: T | null | undefined, message: string): T {
  if (record === null || record === undefined) throw new ApiError('not_found', message);
  return record;
}

export function errorEnvelope(
  err: Pick<ApiError, 'code' | 'message' | 'details'>,
  ids: { requestId: string; correlationId: string },
): ErrorEnvelope {
  return {
    error: {
      code: err.code,
      message: err.message,
      details: err.details,
      request_id: ids.requestId,
      correlation_id: ids.correlationId,
    },
  };
}

const BARE_STATUS_MESSAGES: Record<number, string> = {
  404: 'No route matches this path.',
  405: 'This method is not allowed on this path; see the Allow header.',
  413: 'Request body is too large.',
  415: 'Unsupported content type; send application/json.',
};

/**
 * An error response nobody named (a status with no body, or an HTTP error thrown by a
 * library): 404 is `not_found`; any other 4xx is `invalid_argument` and any other 5xx is
 * `internal`, each keeping its own status (api-core §7 rule 2).
 */
export function fromStatus(status: number, message?: string): ApiError {
  if (status === 404) return new ApiError('not_found', message ?? BARE_STATUS_MESSAGES[404]!);
  if (status >= 400 && status < 500) {
    return new ApiError('invalid_argument', message ?? BARE_STATUS_MESSAGES[status] ?? 'Request could not be handled.', {}, status);
  }
  return new ApiError('internal', 'Internal server error.', {}, status >= 500 && status < 600 ? status : 500);
}

/**
 * The database did not answer in time: an unnamed 5xx, so `internal` with its own status
 * (api-core §7 rule 2), 503 because it is transient, with a reason and a `Retry-After`.
 */
export function databaseUnavailable(): ApiError {
  const err = new ApiError('internal', 'The database is not answering; retry shortly.', { reason: 'unavailable' }, 503);
  err.headers['Retry-After'] = String(LIMITS.unavailableRetryAfterSeconds);
  return err;
}

/**
 * A write that waited its whole budget for a lease of its workspace (the plan's, a
 * conversation's) while other requests of that workspace held it in turn: transient, like an
 * outage, so 503 with a short `Retry-After`, never an unhandled 500.
 */
export function workspaceBusy(): ApiError {
  const err = new ApiError('internal', 'Too many requests are changing this workspace at once; retry shortly.', { reason: 'busy' }, 503);
  err.headers['Retry-After'] = String(LIMITS.busyRetryAfterSeconds);
  return err;
}

/**
 * What a thrown value becomes: an ApiError as it is; a database that did not answer is 503
 * `unavailable`; a lease waited out is 503 `busy`; a domain refusal by its reason (`api/refusals.ts`); an HTTP error from a
 * library keeps its status; anything else is an
 * unhandled exception (api-core §7 rule 3) and says nothing about itself.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  if (err instanceof LeaseTimeoutError) return workspaceBusy();
  const refused = err instanceof Refusal ? refusalParts(err) : null;
  if (refused) return new ApiError(refused.code, refused.message, refused.details);
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 600 && status !== 500) {
    return fromStatus(status);
  }
  return new ApiError('internal', 'Internal server error.', {}, 500);
}
