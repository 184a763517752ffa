import type { Middleware } from 'koa';
import type { Collection, Db, Sort } from 'mongodb';
import { z } from 'zod';
import type { Client } from '@temporalio/client';
import type { AudienceCache } from '../../src/campaigns/audienceCache';
import type { Config } from '../../src/config';
import type { EventPublisher } from '../../src/events/publisher';
import type { InboundHooks } from '../../src/messaging/inboundHooks';
import type { WorkspaceDoc } from '../../src/db/collections';
import { findWorkspace } from '../../src/workspaces/workspaces';
import type { RequestState } from '../context';
import type { ErrorCode } from '../errorCodes';
import { ApiError } from '../errors';
import { mergeErrors, methodsOf, route, routeGroup, type HttpMethod, type RouteContext, type RouteDef, type RouteInput, type RouteSpec } from '../route';
import { itemsOf } from './views';

export interface ConsoleDeps {
  config: Config & { CONSOLE_TOKEN: string };
  db: Db;
  temporal: Client;
  events: EventPublisher;
  now: () => Date;
  /** What reacts to an injected customer message (the sender's chat agent): the composition root's set. */
  inboundHooks: InboundHooks;
  /** Shared with the public routes: a launch reuses an evaluate's audience (src/campaigns/audienceCache.ts). */
  audiences?: AudienceCache;
}

/** Every console path starts here. */
export const CONSOLE_PREFIX = '/console/v1';

export const WORKSPACE_NOT_FOUND = 'Workspace not found.';

/** Console routes outside a workspace (`/console/v1/workspaces`, `/console/v1/event-types`): nothing shared but the router. */
export const consoleApi = routeGroup({});

/** An id path parameter: ids are short; a longer one cannot name a record. */
export const idParam = () => z.string().min(1).max(64);

/** The path parameters of `/workspaces/{workspace_id}/…`, plus the route's own. */
export function workspaceParams<S extends z.ZodRawShape>(shape: S) {
  return z.object({ workspace_id: idParam(), ...shape });
}

type IdParam = ReturnType<typeof idParam>;

type WorkspaceParams<S extends z.ZodRawShape> = ReturnType<typeof workspaceParams<S>>;

/** A workspace route's input: its parsed query, path and body, and the workspace of its path. */
export interface WorkspaceRouteInput<Q, S extends z.ZodRawShape, B> extends RouteInput<Q, WorkspaceParams<S>, B> {
  workspace: WorkspaceDoc;
  /** The workspace's id: what the records of the workspace carry as `tenant_id`. */
  tenantId: string;
}

/** A route under `/workspaces/{workspace_id}/`, described as `route` describes one. */
export interface WorkspaceRouteSpec<Q extends z.ZodObject | undefined, S extends z.ZodRawShape, B extends z.ZodType | undefined>
  extends Omit<RouteSpec<Q, WorkspaceParams<S>, B>, 'path' | 'params' | 'handler'> {
  /** The path below `/console/v1/workspaces/{workspace_id}/`, e.g. `calls/{call_id}`. */
  path: string;
  /** The route's own path parameters; `workspace_id` comes first. */
  params?: S;
  /** Failures beyond `not_found`, which every workspace route gives for an unknown workspace. */
  errors?: ErrorCode[];
  /** As `RouteSpec.handler`: what it returns is the answer, with `response.status`. */
  handler(ctx: RouteContext, input: WorkspaceRouteInput<Q, S, B>): unknown;
}

/**
 * A console route of one workspace: the prefix, the `workspace_id` parameter, its 404 and
 * the workspace `loadWorkspace` found (handed to the handler with its `tenantId`) belong here.
 */
export function workspaceRoute<
  Q extends z.ZodObject | undefined = undefined,
  S extends z.ZodRawShape = Record<never, never>,
  B extends z.ZodType | undefined = undefined,
>({ path, params, errors = [], ...spec }: WorkspaceRouteSpec<Q, S, B>): RouteDef {
  return route<Q, WorkspaceParams<S>, B>({
    ...spec,
    path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/${path}`,
    params: workspaceParams(params ?? ({} as S)),
    errors: ['not_found', ...errors],
    handler: (ctx, input) => {
      const workspace = ctx.state.workspace!;
      return spec.handler(ctx, { ...input, workspace, tenantId: workspace._id });
    },
  });
}

/** What the workspace routes of one resource share: its path parameters, their 404s, a precondition, errors. */
export interface WorkspaceDefaults<S extends z.ZodRawShape> {
  /** The resource's own path parameters; `workspace_id` comes first. */
  params?: S;
  notFound?: WorkspaceRouteSpec<undefined, S, undefined>['notFound'];
  requires?: WorkspaceRouteSpec<undefined, S, undefined>['requires'];
  /** Failures every route of the group can give, beyond the workspace's `not_found`. */
  errors?: ErrorCode[];
}

/** One method of a workspace group: `ws.get('getConsoleCall', 'calls/{call_id}', spec)`, named first (api/route.ts). Its path parameters default to the group's. */
type WorkspaceGroupRoute<GS extends z.ZodRawShape> = <
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  S extends z.ZodRawShape = GS,
>(
  operationId: string,
  path: string,
  spec: Omit<WorkspaceRouteSpec<Q, S, B>, 'method' | 'operationId' | 'path'>,
) => RouteDef;

export type WorkspaceGroup<S extends z.ZodRawShape> = Record<HttpMethod, WorkspaceGroupRoute<S>> & {
  /** A narrower group (a record of the workspace, e.g. one call): its defaults added to these. */
  group<S2 extends z.ZodRawShape = S>(more: WorkspaceDefaults<S2>): WorkspaceGroup<S2>;
  /**
   * The routes of one record, named by a path parameter (by default `idParam`) added to the
   * group's: a value that cannot name a record answers `notFound`, as an unknown one does.
   */
  record<K extends string, T extends z.ZodType = IdParam>(param: K, notFound: string, schema?: T): WorkspaceGroup<S & Record<K, T>>;
};

/**
 * Workspace routes as a group: `ws.get(operationId, path, {...})` is `workspaceRoute` with that
 * method, name and path, the group's defaults merged in (a route's fields win, except `errors`, which add up).
 */
export function workspaceGroup<S extends z.ZodRawShape = Record<never, never>>(defaults: WorkspaceDefaults<S> = {}): WorkspaceGroup<S> {
  return {
    ...methodsOf<WorkspaceGroupRoute<S>>(
      (method) => (operationId, path, spec) =>
        // A route naming its own path parameters names its own 404s too: its fields replace the group's.
        workspaceRoute({ ...(defaults as WorkspaceDefaults<never>), ...spec, method, operationId, path, errors: mergeErrors(defaults.errors, spec.errors) }),
    ),
    group: <S2 extends z.ZodRawShape = S>(more: WorkspaceDefaults<S2>) =>
      workspaceGroup<S2>({ ...(defaults as WorkspaceDefaults<S2>), ...more, errors: mergeErrors(defaults.errors, more.errors) }),
    record: <K extends string, T extends z.ZodType = IdParam>(param: K, notFound: string, schema?: T) =>
      workspaceGroup({
        ...defaults,
        params: { ...defaults.params, [param]: schema ?? idParam() } as S & Record<K, T>,
        notFound: { ...defaults.notFound, [param]: notFound },
      }),
  };
}

/**
 * For `/workspaces/{workspace_id}/…`: the workspace on `ctx.state.workspace`, or 404. Runs
 * before the body is read; an id that cannot name a workspace costs no lookup.
 */
export function loadWorkspace(deps: ConsoleDeps): Middleware<RequestState> {
  const id = idParam();
  return async (ctx, next) => {
    const workspaceId = (ctx as { params?: Record<string, string> }).params?.workspace_id;
    const workspace = id.safeParse(workspaceId).success ? await findWorkspace(deps.db, workspaceId!) : null;
    if (!workspace) throw new ApiError('not_found', WORKSPACE_NOT_FOUND);
    ctx.state.workspace = workspace;
    // The zone every time of the workspace is shown in (the CLI's one clock, src/cli/cliClock.ts).
    ctx.set('Workspace-Time-Zone', workspace.timezone);
    await next();
  };
}

/** `GET /workspaces/{workspace_id}/<what>`: the workspace's records in a fixed order. */
export function tenantList<T extends { tenant_id: string }, R extends z.ZodType>(
  what: string,
  operationId: string,
  collection: Collection<T>,
  view: (doc: T) => z.infer<R>,
  /** What `view` answers for one record: the list's response schema is `{items}` of it. */
  record: R,
  sort: Sort = { created_at: 1, _id: 1 },
): RouteDef {
  return workspaceGroup().get(operationId, what, {
    summary: `List the workspace's ${what.replace('/', ' ')}.`,
    response: { status: 200, description: '`{items}`.', schema: itemsOf(record) },
    handler: async (ctx, { tenantId }) => {
      const docs = await collection.find({ tenant_id: tenantId } as never).sort(sort).toArray();
      return { items: docs.map((doc) => view(doc as T)) };
    },
  });
}
