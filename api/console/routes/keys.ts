import { z } from 'zod';
import { KeyStore } from '../../../src/auth/keyStore';
import { ApiError, found } from '../../errors';
import type { RouteDef } from '../../route';
import { consoleApi, CONSOLE_PREFIX, workspaceGroup, type ConsoleDeps } from '../deps';
import { issuedKeyRecord, itemsOf, keyRecord, keyView } from '../views';
import { createKeyBody } from './keys.schema';

const ws = workspaceGroup();

const KEY_NOT_FOUND = 'Key not found.';
/** `keys/{key_id}/…`: a key of the workspace, or 404. */
const key = ws.record('key_id', KEY_NOT_FOUND);

export function keyRoutes(deps: ConsoleDeps): RouteDef[] {
  const keys = new KeyStore(deps.db, deps.now);
  return [
    consoleApi.get('getDeployment', `${CONSOLE_PREFIX}/deployment`, {
      summary: 'The environment this deployment serves: the only one its keys may have.',
      response: { status: 200, description: '`{environment}`.', schema: z.object({ environment: z.enum(['live', 'test']) }) },
      handler: () => ({ environment: deps.config.API_ENVIRONMENT }),
    }),
    ws.post('createKey', 'keys', {
      summary: 'Create a named API key with fixed scopes; the key is shown this once.',
      body: createKeyBody,
      response: { status: 201, description: 'The key plus `api_key`.', schema: issuedKeyRecord },
      handler: async (ctx, { body, tenantId }) => {
        const served = deps.config.API_ENVIRONMENT;
        const issued = await keys.issue(tenantId, { name: body.name, scopes: body.scopes, environment: body.environment ?? served }, served);
        return { ...keyView(issued.key), api_key: issued.plaintext };
      },
    }),
    ws.get('listKeys', 'keys', {
      summary: "List the workspace's keys with their last use, never their secrets.",
      response: { status: 200, description: '`{items}`.', schema: itemsOf(keyRecord) },
      handler: async (ctx, { tenantId }) => ({ items: (await keys.list(tenantId)).map(keyView) }),
    }),
    key.post('rollKey', 'keys/{key_id}/roll', {
      summary: 'Create a new key with the same scopes; the old one keeps working for 24 hours.',
      response: { status: 201, description: 'The new key plus `api_key`, and `previous`.', schema: issuedKeyRecord.extend({ previous: keyRecord }) },
      errors: ['conflict'],
      handler: async (ctx, { params: { key_id }, tenantId }) => {
        found(await keys.get(tenantId, key_id), KEY_NOT_FOUND);
        const issued = await keys.roll(tenantId, key_id);
        if (!issued) throw new ApiError('conflict', 'Only a live, unrolled key can be rolled.', { reason: 'key_not_rollable' });
        const old = (await keys.get(tenantId, key_id))!;
        return { ...keyView(issued.key), api_key: issued.plaintext, previous: keyView(old) };
      },
    }),
    key.post('revokeKey', 'keys/{key_id}/revoke', {
      summary: 'Revoke a key for good; revoking again keeps the first time.',
      response: { status: 200, description: 'The key with `revoked_at`.', schema: keyRecord },
      handler: async (ctx, { params: { key_id }, tenantId }) => keyView(found(await keys.revoke(tenantId, key_id), KEY_NOT_FOUND)),
    }),
  ];
}
