import type { Middleware } from 'koa';
import type { Scope } from '../../src/domain/scopes';
import { ApiError } from '../errors';
import type { RequestState } from '../context';

export function requireScope(scope: Scope): Middleware<RequestState> {
  return async (ctx, next) => {
    if (!ctx.state.apiKey!.scopes.includes(scope)) {
      throw new ApiError('permission_denied', `This key lacks the ${scope} scope this route requires.`, {
        reason: 'missing_scope',
        required_scope: scope,
      });
    }
    await next();
  };
}
