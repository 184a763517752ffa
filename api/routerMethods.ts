import Router, { type Layer, type MatchResult, type RouterOptions } from '@koa/router';
import { METHODS } from 'node:http';
import type { RequestState } from './context';

/**
 * Every method Node's parser accepts counts as implemented, so a method no route has
 * (TRACE, QUERY, PROPFIND, …) on a known path is 405 with `Allow`, as DELETE is, instead of
 * the router's 501 for methods outside its short default list.
 */
const ROUTER_METHODS: string[] = [...METHODS];

const isParameter = (segment: string) => segment.includes(':') || segment.includes('*') || segment.includes('(');

/**
 * Whether route `a` owns a path both match over route `b`: at the first segment where one
 * has a literal and the other a parameter, the literal wins (`/calls/inbound` over
 * `/calls/{call_id}`). Paths of different lengths are never compared.
 */
export function moreLiteral(a: string, b: string): boolean {
  const as = a.split('/');
  const bs = b.split('/');
  if (as.length !== bs.length) return false;
  for (let i = 0; i < as.length; i++) {
    const aParam = isParameter(as[i]!);
    if (aParam !== isParameter(bs[i]!)) return !aParam;
  }
  return false;
}

const pathOf = (layer: Layer<RequestState>) => (typeof layer.path === 'string' ? layer.path : null);

/** Leaves out of a match every route beaten by a more literal route that matched too. */
function literalFirst(found: MatchResult<RequestState>): MatchResult<RequestState> {
  const routes = found.path.filter((layer) => layer.methods.length > 0 && pathOf(layer) !== null);
  if (routes.length < 2) return found;
  const beaten = new Set(routes.filter((layer) => routes.some((other) => moreLiteral(pathOf(other)!, pathOf(layer)!))));
  if (beaten.size === 0) return found;
  const pathAndMethod = found.pathAndMethod.filter((layer) => !beaten.has(layer));
  return {
    path: found.path.filter((layer) => !beaten.has(layer)),
    pathAndMethod,
    route: pathAndMethod.some((layer) => layer.methods.length > 0),
  };
}

/**
 * Every router of the app. A path that a route names literally belongs to that route alone:
 * `@koa/router` matches each route on its own, so `GET /calls/inbound` also ran the
 * `GET /calls/{call_id}` route (with `call_id` `inbound`) and `OPTIONS` listed GET in `Allow`
 * beside POST. Here a route whose path is beaten by a more literal matching route is left
 * out of the match, so routing and `Allow` (405, OPTIONS) agree: only the literal route's
 * methods. Middleware layers (`router.use`) match as before.
 */
export function createAppRouter(options: Omit<RouterOptions, 'methods'> = {}): Router<RequestState> {
  const router = new Router<RequestState>({ ...options, methods: ROUTER_METHODS });
  const match = router.match.bind(router);
  router.match = (path, method) => literalFirst(match(path, method));
  return router;
}
