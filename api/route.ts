import type { Middleware, ParameterizedContext } from 'koa';
import type { z } from 'zod';
import type { Scope } from '../src/domain/scopes';
import type { ErrorCode } from './errorCodes';
import type { RequestState } from './context';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives: its query, path parameters and body as its schemas parsed them. */
export interface RouteInput<Q, P, B> {
  query: Parsed<Q>;
  params: Parsed<P>;
  body: Parsed<B>;
}

export type RouteContext = ParameterizedContext<RequestState>;

/**
 * One route, described once: the router is built from it and the OpenAPI document is
 * generated from it, so what validates a request is what the description says. Public
 * routes (`/api/v1`) and console routes (`/console/v1`) share it.
 */
export interface RouteSpec<
  Q extends z.ZodObject | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
> {
  method: HttpMethod;
  /** OpenAPI form, e.g. `/api/v1/calls/{call_id}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Public routes: the key and its scope. Omitted on the one unkeyed route (the description itself) and on console routes. */
  auth?: { scope: Scope | null };
  /** Honours `Idempotency-Key`. */
  idempotent?: boolean;
  query?: Q;
  /** Path parameters. */
  params?: P;
  /**
   * The 404 message of each path parameter that names a record: such a parameter failing its
   * schema cannot name a record, so it answers exactly as an unknown id does, without a
   * lookup. A parameter not listed here answers the 400 validation envelope (`loc` `path`).
   */
  notFound?: Partial<Record<keyof Parsed<P> & string, string>>;
  body?: B;
  /**
   * A body that is not JSON (an uploaded CSV file): its media type (or the types it may be)
   * and byte limit. The body reaches `body` as text, or as the bytes themselves when `binary`
   * (a PDF; api/middleware/textBody.ts). Console routes only.
   */
  bodyMedia?: BodyMedia;
  /** Runs after query and body validation and before path parameters: capability checks (412) that come before "not found". */
  requires?: Middleware<RequestState>;
  response: {
    status: number;
    description: string;
    /** Every public route has one; console routes may leave it open (no compatibility promise). */
    schema?: z.ZodType;
    /** The body's media type when it is not JSON (a CSV download). */
    mediaType?: string;
  };
  /** Failures beyond those every route of its kind can give (keyed: 400, 401, 403, 429, 500). */
  errors?: ErrorCode[];
  /**
   * What the handler returns is the answer: the body, sent with `response.status` (api/validation.ts
   * `routeTail`). A handler that returns nothing answers through `ctx` itself: a 204, a status
   * chosen at run time, a download.
   * Method syntax on purpose: it lets a typed route sit in a list of `RouteDef`.
   */
  handler(ctx: RouteContext, input: RouteInput<Q, P, B>): unknown;
}

/** A file body's media types and byte limit (route `bodyMedia`). */
export interface BodyMedia {
  type: string | readonly string[];
  maxBytes: number;
  binary?: boolean;
}

/** A route with its input types erased, as routers and the OpenAPI generator take it. */
export type RouteDef = RouteSpec<z.ZodObject | undefined, z.ZodObject | undefined, z.ZodType | undefined>;

/** Defines a route whose handler input is typed from its schemas. */
export function route<
  Q extends z.ZodObject | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<Q, P, B>): RouteDef {
  return spec;
}

/** The Koa form of an OpenAPI path. */
export function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** What the routes of one resource share: set once on their group, merged into each route. */
export interface RouteDefaults<P extends z.ZodObject | undefined> {
  auth?: RouteSpec['auth'];
  params?: P;
  notFound?: RouteSpec<undefined, P>['notFound'];
  requires?: RouteSpec['requires'];
  /** Failures every route of the group can give; a route lists only those beyond them. */
  errors?: ErrorCode[];
}

/** A route of a group: its own description, without the method, name and path of the call. Its path parameters default to the group's. */
export type GroupRouteSpec<Q extends z.ZodObject | undefined, P extends z.ZodObject | undefined, B extends z.ZodType | undefined> = Omit<
  RouteSpec<Q, P, B>,
  'method' | 'operationId' | 'path'
>;

const METHODS: readonly HttpMethod[] = ['get', 'post', 'patch', 'put', 'delete'];

/** The five method calls of a group, each made by `define` from its method. */
export function methodsOf<M>(define: (method: HttpMethod) => M): Record<HttpMethod, M> {
  return Object.fromEntries(METHODS.map((method) => [method, define(method)])) as Record<HttpMethod, M>;
}

/** Group errors first, then the route's own: one fixed order. */
export function mergeErrors(shared: ErrorCode[] | undefined, own: ErrorCode[] | undefined): ErrorCode[] | undefined {
  return shared || own ? [...(shared ?? []), ...(own ?? [])] : undefined;
}

/**
 * One method of a group: `group.get(operationId, path, spec)`, named first as @koa/router
 * names its routes (the name is the OpenAPI operationId), the route's own query and body
 * types flowing into its handler.
 */
type PublicGroupRoute<GP extends z.ZodObject | undefined> = <
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = GP,
>(
  operationId: string,
  path: string,
  spec: GroupRouteSpec<Q, P, B>,
) => RouteDef;

export type RouteGroup<P extends z.ZodObject | undefined> = Record<HttpMethod, PublicGroupRoute<P>> & {
  /** A narrower group inside this one (a record of the resource): its defaults added to these. */
  group<P2 extends z.ZodObject | undefined = P>(more: RouteDefaults<P2>): RouteGroup<P2>;
};

/**
 * The routes of one resource: what they share (key scope, path parameters and their 404s,
 * precondition, errors) is given once, and each route is `group.get(operationId, path, {...})`
 * with its own summary, schemas, response and handler. A route's fields win over the group's,
 * except `errors`, which adds to the group's.
 */
export function routeGroup<P extends z.ZodObject | undefined = undefined>(defaults: RouteDefaults<P>): RouteGroup<P> {
  return {
    ...methodsOf<PublicGroupRoute<P>>(
      (method) =>
        (operationId, path, spec) =>
          route({ ...defaults, ...spec, method, operationId, path, errors: mergeErrors(defaults.errors, spec.errors) }),
    ),
    group: <P2 extends z.ZodObject | undefined = P>(more: RouteDefaults<P2>) =>
      routeGroup<P2>({ ...(defaults as RouteDefaults<P2>), ...more, errors: mergeErrors(defaults.errors, more.errors) }),
  };
}
