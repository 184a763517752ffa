import type { Middleware } from 'koa';
import type { z } from 'zod';
import { ApiError } from './errors';
import type { RequestState } from './context';

export interface FieldError {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** api-core §7 rule 1: 400, `Request validation failed.`, `details.errors`, no reason. */
export function validationError(errors: FieldError[]): ApiError {
  return new ApiError('invalid_argument', 'Request validation failed.', { errors });
}

function fieldErrors(where: 'body' | 'query', error: z.ZodError): FieldError[] {
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

/** Parses query and body with the route's schemas; the parsed values go on `ctx.state.input`. */
export function validate(schemas: InputSchemas): Middleware<RequestState> {
  return async (ctx, next) => {
    const errors: FieldError[] = [];
    const input: { query?: unknown; body?: unknown } = {};
    if (schemas.query) {
      const parsed = schemas.query.safeParse(ctx.query);
      if (parsed.success) input.query = parsed.data;
      else errors.push(...fieldErrors('query', parsed.error));
    }
    if (schemas.body) {
      const parsed = schemas.body.safeParse(ctx.state.body ?? {});
      if (parsed.success) input.body = parsed.data;
      else errors.push(...fieldErrors('body', parsed.error));
    }
    if (errors.length > 0) throw validationError(errors);
    ctx.state.input = input;
    await next();
  };
}
