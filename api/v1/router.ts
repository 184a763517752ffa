import Router from '@koa/router';
import type { Middleware } from 'koa';
import { IdempotencyStore } from '../../src/idempotency/store';
import type { RequestState } from '../context';
import { authenticate } from '../middleware/authenticate';
import { idempotency } from '../middleware/idempotency';
import { jsonBody } from '../middleware/jsonBody';
import { rateLimit } from '../middleware/rateLimit';
import { requireScope } from '../middleware/requireScope';
import { createAppRouter } from '../routerMethods';
import { routeTail } from '../validation';
import type { PublicDeps } from './deps';
import { koaPath, type RouteDef } from '../route';

/**
 * Mounts each route with its middleware in the contract's order: key checks and standing,
 * rate limit, scope, then the body, idempotency and validation, then the handler.
 */
export function buildPublicRouter(routes: RouteDef[], deps: PublicDeps): Router<RequestState> {
  const router = createAppRouter();
  const auth = authenticate({ db: deps.db, environment: deps.config.API_ENVIRONMENT, now: deps.now, cache: deps.credentialCache, failures: deps.authFailures });
  const limiter = rateLimit({ store: deps.rateLimitStore, logger: deps.logger, now: deps.now });
  const body = jsonBody();
  const replay = idempotency({ store: deps.idempotencyStore ?? new IdempotencyStore(deps.db), now: deps.now });
  for (const route of routes) {
    const chain: Middleware<RequestState>[] = [];
    if (route.auth) {
      chain.push(auth, limiter);
      if (route.auth.scope) chain.push(requireScope(route.auth.scope));
    }
    if (route.method !== 'get') chain.push(body);
    if (route.idempotent) chain.push(replay);
    chain.push(...routeTail(route, { checkResponses: deps.config.NODE_ENV === 'test' }));
    router[route.method](koaPath(route.path), ...chain);
  }
  return router;
}
