import type { Db } from 'mongodb';
import type { Config } from '../../src/config';
import type { RequestState } from '../context';
import type { Middleware } from 'koa';
import { ApiError } from '../errors';
import { findWorkspace } from '../../src/workspaces/workspaces';

export interface ConsoleDeps {
  config: Config & { CONSOLE_TOKEN: string };
  db: Db;
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
