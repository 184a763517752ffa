import Router from '@koa/router';
import { z } from 'zod';
import { KeyStore } from '../../../src/auth/keyStore';
import { SCOPES } from '../../../src/domain/scopes';
import type { RequestState } from '../../context';
import { ApiError } from '../../errors';
import { bodyOf, loadWorkspace, withWorkspaceBody, type ConsoleDeps, type Params } from '../deps';
import { keyView } from '../views';

export const createKeyBody = z.object({
  scopes: z.array(z.enum(SCOPES)).max(SCOPES.length),
  environment: z.enum(['live', 'test']).optional(),
});

export function keyRoutes(router: Router<RequestState>, deps: ConsoleDeps): void {
  const keys = new KeyStore(deps.db, deps.now);
  const base = '/workspaces/:workspace_id/keys';

  router.post(base, ...withWorkspaceBody(deps, createKeyBody), async (ctx) => {
    const body = bodyOf(ctx, createKeyBody);
    const issued = await keys.create(ctx.state.workspace!._id, body.scopes, body.environment ?? deps.config.API_ENVIRONMENT);
    ctx.status = 201;
    ctx.body = { ...keyView(issued.key), api_key: issued.plaintext };
  });

  router.get(base, loadWorkspace(deps), async (ctx) => {
    ctx.body = { items: (await keys.list(ctx.state.workspace!._id)).map(keyView) };
  });

  router.post(`${base}/:key_id/roll`, loadWorkspace(deps), async (ctx) => {
    const { key_id } = (ctx as unknown as Params<'key_id'>).params;
    const tenantId = ctx.state.workspace!._id;
    const existing = await keys.get(tenantId, key_id);
    if (!existing) throw new ApiError('not_found', 'Key not found.');
    const issued = await keys.roll(tenantId, key_id);
    if (!issued) throw new ApiError('conflict', 'Only a live, unrolled key can be rolled.', { reason: 'key_not_rollable' });
    const old = (await keys.get(tenantId, key_id))!;
    ctx.status = 201;
    ctx.body = { ...keyView(issued.key), api_key: issued.plaintext, previous: keyView(old) };
  });

  router.post(`${base}/:key_id/revoke`, loadWorkspace(deps), async (ctx) => {
    const { key_id } = (ctx as unknown as Params<'key_id'>).params;
    const revoked = await keys.revoke(ctx.state.workspace!._id, key_id);
    if (!revoked) throw new ApiError('not_found', 'Key not found.');
    ctx.body = keyView(revoked);
  });
}
