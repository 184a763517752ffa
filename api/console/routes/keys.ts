import { KeyStore } from '../../../src/auth/keyStore';
import { ApiError } from '../../errors';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, workspaceParams, type ConsoleDeps } from '../deps';
import { issuedKeyRecord, itemsOf, keyRecord, keyView } from '../views';
import { createKeyBody, keyParams } from './keys.schema';

const KEY_NOT_FOUND = 'Key not found.';

export function keyRoutes(deps: ConsoleDeps): RouteDef[] {
  const keys = new KeyStore(deps.db, deps.now);
  const base = `${CONSOLE_PREFIX}/workspaces/{workspace_id}/keys`;
  return [
    route({
      method: 'post',
      path: base,
      operationId: 'createKey',
      summary: 'Create an API key with fixed scopes; the key is shown this once.',
      params: workspaceParams({}),
      body: createKeyBody,
      response: { status: 201, description: 'The key plus `api_key`.', schema: issuedKeyRecord },
      errors: ['not_found'],
      handler: async (ctx, { body }) => {
        const issued = await keys.create(ctx.state.workspace!._id, body.scopes, body.environment ?? deps.config.API_ENVIRONMENT);
        ctx.status = 201;
        ctx.body = { ...keyView(issued.key), api_key: issued.plaintext };
      },
    }),
    route({
      method: 'get',
      path: base,
      operationId: 'listKeys',
      summary: "List the workspace's keys, never their secrets.",
      params: workspaceParams({}),
      response: { status: 200, description: '`{items}`.', schema: itemsOf(keyRecord) },
      errors: ['not_found'],
      handler: async (ctx) => {
        ctx.body = { items: (await keys.list(ctx.state.workspace!._id)).map(keyView) };
      },
    }),
    route({
      method: 'post',
      path: `${base}/{key_id}/roll`,
      operationId: 'rollKey',
      summary: 'Create a new key with the same scopes; the old one keeps working for 24 hours.',
      params: keyParams,
      notFound: { key_id: KEY_NOT_FOUND },
      response: { status: 201, description: 'The new key plus `api_key`, and `previous`.', schema: issuedKeyRecord.extend({ previous: keyRecord }) },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { params: { key_id } }) => {
        const tenantId = ctx.state.workspace!._id;
        const existing = await keys.get(tenantId, key_id);
        if (!existing) throw new ApiError('not_found', KEY_NOT_FOUND);
        const issued = await keys.roll(tenantId, key_id);
        if (!issued) throw new ApiError('conflict', 'Only a live, unrolled key can be rolled.', { reason: 'key_not_rollable' });
        const old = (await keys.get(tenantId, key_id))!;
        ctx.status = 201;
        ctx.body = { ...keyView(issued.key), api_key: issued.plaintext, previous: keyView(old) };
      },
    }),
    route({
      method: 'post',
      path: `${base}/{key_id}/revoke`,
      operationId: 'revokeKey',
      summary: 'Revoke a key for good; revoking again keeps the first time.',
      params: keyParams,
      notFound: { key_id: KEY_NOT_FOUND },
      response: { status: 200, description: 'The key with `revoked_at`.', schema: keyRecord },
      errors: ['not_found'],
      handler: async (ctx, { params: { key_id } }) => {
        const revoked = await keys.revoke(ctx.state.workspace!._id, key_id);
        if (!revoked) throw new ApiError('not_found', KEY_NOT_FOUND);
        ctx.body = keyView(revoked);
      },
    }),
  ];
}
