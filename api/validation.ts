import type { Middleware } from 'koa';
import type { z } from 'zod';
import { ApiError } from './errors';
import type { RequestState } from './context';
import { checkResponse } from './responseCheck';
import type { RouteDef } from './route';

export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** api-core §7 rule 1: 400, `Request validation failed.`, `details.errors`, no reason. */
export function validationError(errors: FieldError[]): ApiError {
  return new ApiError('invalid_argument', 'Request validation failed.', { errors });
}

function fieldErrors(where: 'body' | 'query' | 'path', error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
}

export interface InputSchemas {
  query?: z.ZodType;
  body?: z.ZodType;
}

/**
 * Parses query and body with the route's schemas; the parsed values go on `ctx.state.input`.
 * The body is parsed as sent: no body, or `null`, is not an object and is refused.
 */
export function validate(schemas: InputSchemas): Middleware<RequestState> {
  return async (ctx, next) => {
    const errors: FieldError[] = [];
    const input: NonNullable<RequestState['input']> = {};
    if (schemas.query) {
      const parsed = schemas.query.safeParse(ctx.query);
      if (parsed.success) input.query = parsed.data;
      else errors.push(...fieldErrors('query', parsed.error));
    }
    if (schemas.body) {
      const parsed = schemas.body.safeParse(ctx.state.body);
      if (parsed.success) input.body = parsed.data;
      else errors.push(...fieldErrors('body', parsed.error));
    }
    if (errors.length > 0) throw validationError(errors);
    ctx.state.input = input;
    await next();
  };
}

/**
 * Parses the path parameters. A parameter that names a record and fails its schema answers
 * that record's 404 (it cannot exist, so it reads as unknown, api-core §7 rule 4, and costs
 * no lookup); any other failure is the validation envelope with `loc` `path`.
 */
export function validateParams(schema: z.ZodObject, notFound: Partial<Record<string, string>> = {}): Middleware<RequestState> {
  return async (ctx, next) => {
    const params = (ctx as { params?: Record<string, string> }).params ?? {};
    const parsed = schema.safeParse(params);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const message = notFound[String(issue.path[0])];
        if (message) throw new ApiError('not_found', message);
      }
      throw validationError(fieldErrors('path', parsed.error));
    }
    ctx.state.input = { ...ctx.state.input, params: parsed.data };
    await next();
  };
}

/**
 * The end of every route's chain: query and body validation, the route's preconditions,
 * path parameters, then the handler with the parsed input; what it returns is the body, with
 * the route's documented status. `checkResponses` (test runs)
 * also holds the handler's answer to the route's response schema (api/responseCheck.ts).
 */
export function routeTail(route: RouteDef, { checkResponses = false }: { checkResponses?: boolean } = {}): Middleware<RequestState>[] {
  const chain: Middleware<RequestState>[] = [];
  if (checkResponses) chain.push(checkResponse(route));
  if (route.query || route.body) chain.push(validate({ query: route.query, body: route.body }));
  if (route.requires) chain.push(route.requires);
  if (route.params) chain.push(validateParams(route.params, route.notFound));
  chain.push(async (ctx) => {
    // The one place input meets its type: it was produced above by exactly this route's schemas.
    const input = { query: undefined, params: undefined, body: undefined, ...ctx.state.input } as Parameters<RouteDef['handler']>[1];
    const answer = await route.handler(ctx, input);
    if (answer !== undefined) {
      ctx.status = route.response.status;
      ctx.body = answer;
    }
  });
  return chain;
}
