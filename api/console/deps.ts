import type Router from '@koa/router';
import type { Middleware, ParameterizedContext } from 'koa';
import type { Collection, Db, Sort } from 'mongodb';
import type { z } from 'zod';
import type { Client } from '@temporalio/client';
import type { Config } from '../../src/config';
import type { EventPublisher } from '../../src/events/publisher';
import { findWorkspace } from '../../src/workspaces/workspaces';
import type { RequestState } from '../context';
import { ApiError } from '../errors';
import { jsonBody } from '../middleware/jsonBody';
import { validate } from '../validation';

export interface ConsoleDeps {
  config: Config & { CONSOLE_TOKEN: string };
  db: Db;
  temporal: Client;
  events: EventPublisher;
  now: () => Date;
}

/** For `/workspaces/:workspace_id/…`: the workspace on `ctx.state.workspace`, or 404. */
export function loadWorkspace(deps: ConsoleDeps): Middleware<RequestState> {
  return async (ctx, next) => {
    const workspace = await findWorkspace(deps.db, (ctx as unknown as { params: { workspace_id: string } }).params.workspace_id);
    if (!workspace) throw new ApiError('not_found', 'Workspace not found.');
    ctx.state.workspace = workspace;
    await next();
  };
}

export type Params<K extends string> = { params: Record<K, string> };

/** A workspace route with a JSON body: the workspace, the body read, then validated. */
export function withWorkspaceBody(deps: ConsoleDeps, schema: z.ZodType): Middleware<RequestState>[] {
  return [loadWorkspace(deps), jsonBody(), validate({ body: schema })];
}

/** The validated body, typed by the schema that validated it. */
export function bodyOf<S extends z.ZodType>(ctx: ParameterizedContext<RequestState>, _schema: S): z.infer<S> {
  return ctx.state.input!.body as z.infer<S>;
}

/** `GET /workspaces/:workspace_id/<what>`: the workspace's records in a fixed order. */
export function tenantList<T extends { tenant_id: string }>(
  router: Router<RequestState>,
  deps: ConsoleDeps,
  what: string,
  collection: Collection<T>,
  view: (doc: T) => unknown,
  sort: Sort = { created_at: 1, _id: 1 },
): void {
  router.get(`/workspaces/:workspace_id/${what}`, loadWorkspace(deps), async (ctx) => {
    const docs = await collection.find({ tenant_id: ctx.state.workspace!._id } as never).sort(sort).toArray();
    ctx.body = { items: docs.map((doc) => view(doc as T)) };
  });
}
