import type { Middleware } from 'koa';
import type { z } from 'zod';
import type { Scope } from '../../src/domain/scopes';
import type { ErrorCode } from '../errors';
import type { RequestState } from '../context';

/**
 * One public route, described once: the router is built from it and the OpenAPI document is
 * generated from it, so what validates a request is what the description says.
 */
export interface RouteDef {
  method: 'get' | 'post' | 'patch';
  /** OpenAPI form, e.g. `/api/v1/calls/{call_id}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Omitted on the one unkeyed route (the description itself). */
  auth?: { scope: Scope | null };
  /** Honours `Idempotency-Key`. */
  idempotent?: boolean;
  query?: z.ZodObject;
  params?: z.ZodObject;
  body?: z.ZodType;
  response: { status: number; description: string; schema: z.ZodType };
  /** Failures beyond those every keyed route can give (400, 401, 403, 429, 500). */
  errors?: ErrorCode[];
  handler: Middleware<RequestState>;
}

/** The Koa form of an OpenAPI path. */
export function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
