import { createWorkspace, updateWorkspace } from '../../../src/workspaces/workspaceActions';
import { newestWorkspaces } from '../../../src/workspaces/workspaces';
import type { RouteDef } from '../../route';
import { consoleApi, CONSOLE_PREFIX, type ConsoleDeps } from '../deps';
import { issuedKeyRecord, itemsOf, workspaceRecord, workspaceView } from '../views';
import { createWorkspaceBody, updateWorkspaceBody, workspaceIdParams } from './workspaces.schema';

/** `/workspaces/{workspace_id}`: the workspace (loaded before the route runs), or 404. */
const workspace = consoleApi.group({ params: workspaceIdParams, errors: ['not_found'] });

/** How many workspaces the console lists. */
const CONSOLE_WORKSPACES_LIMIT = 500;

export function workspaceRoutes(deps: ConsoleDeps): RouteDef[] {
  return [
    consoleApi.post('createWorkspace', `${CONSOLE_PREFIX}/workspaces`, {
      summary: 'Create a workspace; with `demo: true`, seeded like the demo workspace and with a full-scope key.',
      body: createWorkspaceBody,
      response: { status: 201, description: 'The workspace (and `api_key` for a demo workspace).', schema: workspaceRecord.extend({ api_key: issuedKeyRecord.shape.api_key.optional() }) },
      handler: async (ctx, { body }) => {
        const created = await createWorkspace(deps.db, body, deps.config.API_ENVIRONMENT, deps.now());
        return created.apiKey === undefined ? workspaceView(created.workspace) : { ...workspaceView(created.workspace), api_key: created.apiKey };
      },
    }),
    consoleApi.get('listWorkspaces', `${CONSOLE_PREFIX}/workspaces`, {
      summary: `List workspaces, newest first (at most ${CONSOLE_WORKSPACES_LIMIT}).`,
      response: { status: 200, description: '`{items}`.', schema: itemsOf(workspaceRecord) },
      handler: async () => {
        const docs = await newestWorkspaces(deps.db, CONSOLE_WORKSPACES_LIMIT);
        return { items: docs.map(workspaceView) };
      },
    }),
    workspace.get('getWorkspace', `${CONSOLE_PREFIX}/workspaces/{workspace_id}`, {
      summary: 'Read a workspace.',
      response: { status: 200, description: 'The workspace.', schema: workspaceRecord },
      handler: (ctx) => workspaceView(ctx.state.workspace!),
    }),
    workspace.patch('updateWorkspace', `${CONSOLE_PREFIX}/workspaces/{workspace_id}`, {
      summary: 'Change the named keys of a workspace (nested objects change only the keys they name).',
      body: updateWorkspaceBody,
      response: { status: 200, description: 'The workspace.', schema: workspaceRecord },
      handler: async (ctx, { body }) => {
        const updated = await updateWorkspace(deps.db, ctx.state.workspace!._id, body, deps.now());
        return workspaceView(updated!);
      },
    }),
  ];
}
