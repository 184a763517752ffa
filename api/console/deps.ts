import type { Middleware } from 'koa';
import type { Collection, Db, Sort } from 'mongodb';
import { z } from 'zod';
import type { Client } from '@temporalio/client';
import type { AudienceCache } from '../../src/campaigns/audienceCache';
import type { Config } from '../../src/config';
import type { EventPublisher } from '../../src/events/publisher';
import { findWorkspace } from '../../src/workspaces/workspaces';
import type { RequestState } from '../context';
import { ApiError } from '../errors';
import { route, type RouteDef } from '../route';

export interface ConsoleDeps {
  config: Config & { CONSOLE_TOKEN: string };
  db: Db;
  temporal: Client;
  events: EventPublisher;
  now: () => Date;
  /** Shared with the public routes: a launch reuses an evaluate's audience (src/campaigns/audienceCache.ts). */
  audiences?: AudienceCache;
}

/** Every console path starts here. */
export const CONSOLE_PREFIX = '/console/v1';

export const WORKSPACE_NOT_FOUND = 'Workspace not found.';

/** An id path parameter: ids are short; a longer one cannot name a record. */
export const idParam = () => z.string().min(1).max(64);

/** The path parameters of `/workspaces/{workspace_id}/…`, plus the route's own. */
export function workspaceParams<S extends z.ZodRawShape>(shape: S) {
  return z.object({ workspace_id: idParam(), ...shape });
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
  return route({
    method: 'get',
    path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/${what}`,
    operationId,
    summary: `List the workspace's ${what.replace('/', ' ')}.`,
    params: workspaceParams({}),
    response: { status: 200, description: '`{items}`.', schema: z.object({ items: z.array(record) }) },
    handler: async (ctx) => {
      const docs = await collection.find({ tenant_id: ctx.state.workspace!._id } as never).sort(sort).toArray();
      ctx.body = { items: docs.map((doc) => view(doc as T)) };
    },
  });
}
