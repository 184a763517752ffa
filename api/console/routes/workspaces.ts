import { credentialsChanged } from '../../../src/auth/credentialCache';
import { collections } from '../../../src/db/collections';
import { seedDemoWorkspace } from '../../../src/demo/seedDemoWorkspace';
import { newId } from '../../../src/domain/ids';
import { newWorkspace } from '../../../src/workspaces/workspaces';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, type ConsoleDeps } from '../deps';
import { issuedKeyRecord, itemsOf, workspaceRecord, workspaceView } from '../views';
import { createWorkspaceBody, updateWorkspaceBody, workspaceIdParams } from './workspaces.schema';


/** Nested objects become dotted paths, so a PATCH changes only the keys it names. */
function dotted(body: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) Object.assign(out, dotted(value as Record<string, unknown>, `${prefix}${key}.`));
    else out[`${prefix}${key}`] = value;
  }
  return out;
}

export function workspaceRoutes(deps: ConsoleDeps): RouteDef[] {
  const { workspaces } = collections(deps.db);
  return [
    route({
      method: 'post',
      path: `${CONSOLE_PREFIX}/workspaces`,
      operationId: 'createWorkspace',
      summary: 'Create a workspace; with `demo: true`, seeded like the demo workspace and with a full-scope key.',
      body: createWorkspaceBody,
      response: { status: 201, description: 'The workspace (and `api_key` for a demo workspace).', schema: workspaceRecord.extend({ api_key: issuedKeyRecord.shape.api_key.optional() }) },
      handler: async (ctx, { body }) => {
        const now = deps.now();
        if (body.demo) {
          const workspaceId = newId('ws', now);
          const seeded = await seedDemoWorkspace(deps.db, { workspaceId, name: body.name, environment: deps.config.API_ENVIRONMENT, now });
          const changes: Record<string, unknown> = {};
          if (body.country !== 'IN') changes.country = body.country;
          if (body.timezone) changes.timezone = body.timezone;
          if (Object.keys(changes).length) await workspaces.updateOne({ _id: workspaceId }, { $set: changes });
          ctx.status = 201;
          ctx.body = { ...workspaceView((await workspaces.findOne({ _id: workspaceId }))!), api_key: seeded.apiKey };
          return;
        }
        const workspace = newWorkspace(body, now);
        await workspaces.insertOne(workspace);
        ctx.status = 201;
        ctx.body = workspaceView(workspace);
      },
    }),
    route({
      method: 'get',
      path: `${CONSOLE_PREFIX}/workspaces`,
      operationId: 'listWorkspaces',
      summary: 'List workspaces, newest first (at most 500).',
      response: { status: 200, description: '`{items}`.', schema: itemsOf(workspaceRecord) },
      handler: async (ctx) => {
        const docs = await workspaces.find({}).sort({ created_at: -1 }).limit(500).toArray();
        ctx.body = { items: docs.map(workspaceView) };
      },
    }),
    route({
      method: 'get',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}`,
      operationId: 'getWorkspace',
      summary: 'Read a workspace.',
      params: workspaceIdParams,
      response: { status: 200, description: 'The workspace.', schema: workspaceRecord },
      errors: ['not_found'],
      handler: (ctx) => {
        ctx.body = workspaceView(ctx.state.workspace!);
      },
    }),
    route({
      method: 'patch',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}`,
      operationId: 'updateWorkspace',
      summary: 'Change the named keys of a workspace (nested objects change only the keys they name).',
      params: workspaceIdParams,
      body: updateWorkspaceBody,
      response: { status: 200, description: 'The workspace.', schema: workspaceRecord },
      errors: ['not_found'],
      handler: async (ctx, { body }) => {
        const updated = await workspaces.findOneAndUpdate(
          { _id: ctx.state.workspace!._id },
          { $set: { ...dotted(body), updated_at: deps.now() } },
          { returnDocument: 'after' },
        );
        credentialsChanged(ctx.state.workspace!._id);
        ctx.body = workspaceView(updated!);
      },
    }),
  ];
}
