import { z } from 'zod';
import { workspaceRoute } from '../../../api/console/deps';
import { ApiError, found } from '../../../api/errors';
import { route, type RouteContext, type RouteDef } from '../../../api/route';
import { routeTail } from '../../../api/validation';

/**
 * How a handler answers (api/validation.ts routeTail): what it returns is the body, sent
 * with the route's documented status; a handler that returns nothing answers through ctx.
 * And what a console workspace route (api/console/deps.ts workspaceRoute) adds to its own.
 */
async function run(def: RouteDef, state: Record<string, unknown> = {}, params: Record<string, string> = {}): Promise<RouteContext> {
  const ctx = { state, params, status: 404, body: undefined } as unknown as RouteContext;
  const chain = routeTail(def);
  // Each middleware's next() runs the rest of the chain, as Koa does.
  const from = (i: number): Promise<void> => (i < chain.length ? Promise.resolve(chain[i]!(ctx as never, () => from(i + 1))) : Promise.resolve());
  await from(0);
  return ctx;
}

describe('a route handler answers', () => {
  const created = z.object({ id: z.string() });

  it('with what it returns, under the documented status', async () => {
    const def = route({
      method: 'post',
      path: '/things',
      operationId: 'createThing',
      summary: 'Create a thing.',
      response: { status: 201, description: 'The thing.', schema: created },
      handler: () => ({ id: 't1' }),
    });
    const ctx = await run(def);
    expect(ctx.status).toBe(201);
    expect(ctx.body).toEqual({ id: 't1' });
  });

  it('through ctx when it returns nothing (a 204, a download)', async () => {
    const def = route({
      method: 'delete',
      path: '/things/{id}',
      operationId: 'deleteThing',
      summary: 'Forget a thing.',
      response: { status: 204, description: 'Deleted.' },
      handler: (ctx) => {
        ctx.status = 204;
      },
    });
    const ctx = await run(def);
    expect(ctx.status).toBe(204);
    expect(ctx.body).toBeUndefined();
  });

  it('found() passes the record on and turns none into the 404 with the route’s message', () => {
    expect(found({ id: 't1' }, 'Thing not found.')).toEqual({ id: 't1' });
    expect(() => found(undefined, 'Thing not found.')).toThrow('Thing not found.');
    let refused: unknown = null;
    try {
      found(null, 'Thing not found.');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'not_found', status: 404, message: 'Thing not found.' });
  });
});

describe('a console workspace route', () => {
  const def = workspaceRoute({
    method: 'post',
    path: 'things/{thing_id}/poke',
    operationId: 'pokeThing',
    summary: 'Poke a thing.',
    params: { thing_id: z.string().max(8) },
    notFound: { thing_id: 'Thing not found.' },
    response: { status: 202, description: 'Poked.', schema: z.object({ tenant: z.string(), thing: z.string() }) },
    errors: ['conflict'],
    handler: (ctx, { params, tenantId, workspace }) => ({ tenant: `${tenantId}/${workspace.name}`, thing: params.thing_id }),
  });

  it('is described under the console prefix, with workspace_id first and not_found among its errors', () => {
    expect(def.path).toBe('/console/v1/workspaces/{workspace_id}/things/{thing_id}/poke');
    expect(Object.keys(def.params!.shape)).toEqual(['workspace_id', 'thing_id']);
    expect(def.errors).toEqual(['not_found', 'conflict']);
  });

  it('hands its handler the workspace and its tenant id, and answers with the documented status', async () => {
    const ctx = await run(def, { workspace: { _id: 'ws_1', name: 'Acme' } }, { workspace_id: 'ws_1', thing_id: 'th_1' });
    expect(ctx.status).toBe(202);
    expect(ctx.body).toEqual({ tenant: 'ws_1/Acme', thing: 'th_1' });
  });

  it('answers the route’s own 404 for a parameter that cannot name its record', async () => {
    await expect(run(def, { workspace: { _id: 'ws_1', name: 'Acme' } }, { workspace_id: 'ws_1', thing_id: 'far_too_long' })).rejects.toMatchObject({
      code: 'not_found',
      message: 'Thing not found.',
    });
  });
});
