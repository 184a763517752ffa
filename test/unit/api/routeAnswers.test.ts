import { z } from 'zod';
import { workspaceGroup, workspaceRoute } from '../../../api/console/deps';
import { ApiError, found } from '../../../api/errors';
import { route, routeGroup, type RouteContext, type RouteDef } from '../../../api/route';
import { routeTail } from '../../../api/validation';

/**
 * How a handler answers (api/validation.ts routeTail): what it returns is the body, sent
 * with the route's documented status; a handler that returns nothing answers through ctx.
 * And what a console workspace route (api/console/deps.ts workspaceRoute) adds to its own,
 * and what a route group (api/route.ts routeGroup, api/console/deps.ts workspaceGroup) merges in.
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

describe('a route group', () => {
  const things = routeGroup({ auth: { scope: 'calls:write' }, errors: ['failed_precondition'] });
  const thing = things.group({ params: z.object({ thing_id: z.string().max(8) }), notFound: { thing_id: 'Thing not found.' }, errors: ['not_found'] });
  const poke = thing.post('pokeThing', '/things/{thing_id}/poke', {
    summary: 'Poke a thing.',
    body: z.object({ times: z.number() }),
    response: { status: 200, description: 'Poked.', schema: z.object({ thing: z.string(), times: z.number() }) },
    errors: ['conflict'],
    // The parsed types reach the handler: `params.thing_id` is a string, `body.times` a number.
    handler: (ctx, { params, body }) => ({ thing: params.thing_id.toUpperCase(), times: body.times + 1 }),
  });

  it('gives each route its method, name and path, and the group’s shared fields', () => {
    expect(poke).toMatchObject({ method: 'post', operationId: 'pokeThing', path: '/things/{thing_id}/poke', auth: { scope: 'calls:write' }, notFound: { thing_id: 'Thing not found.' } });
    expect(Object.keys(poke.params!.shape)).toEqual(['thing_id']);
  });

  it('adds a route’s errors after the group’s, outer group first', () => {
    expect(poke.errors).toEqual(['failed_precondition', 'not_found', 'conflict']);
  });

  it('lets a route’s own field win over the group’s', () => {
    const open = things.get('openThings', '/things/open', {
      summary: 'Any key may read.',
      auth: { scope: null },
      response: { status: 200, description: 'Open.' },
      handler: () => ({}),
    });
    expect(open.auth).toEqual({ scope: null });
    expect(open.errors).toEqual(['failed_precondition']);
  });

  it('types a route’s path parameters from the group’s schema', () => {
    const get = thing.get('getThing', '/things/{thing_id}', {
      summary: 'Read a thing.',
      response: { status: 200, description: 'The thing.' },
      handler: (ctx, { params }) => {
        // @ts-expect-error the group's params are typed: there is no `other_id` (tsc checks this line).
        return params.other_id;
      },
    });
    expect(get.params).toBe(poke.params);
  });
});

describe('a console workspace group', () => {
  const ws = workspaceGroup();
  const thing = ws.record('thing_id', 'Thing not found.');
  const part = thing.record('part_id', 'Part not found.', z.string().max(200));
  const def = part.get('getPart', 'things/{thing_id}/parts/{part_id}', {
    summary: 'Read a part of a thing.',
    response: { status: 200, description: 'The part.', schema: z.object({ tenant: z.string(), thing: z.string(), part: z.string() }) },
    errors: ['conflict'],
    handler: (ctx, { params, tenantId }) => ({ tenant: tenantId, thing: params.thing_id, part: params.part_id }),
  });

  it('is a workspaceRoute: the prefix, workspace_id first, then each record’s parameter, and not_found first', () => {
    expect(def.method).toBe('get');
    expect(def.path).toBe('/console/v1/workspaces/{workspace_id}/things/{thing_id}/parts/{part_id}');
    expect(Object.keys(def.params!.shape)).toEqual(['workspace_id', 'thing_id', 'part_id']);
    expect(def.notFound).toEqual({ thing_id: 'Thing not found.', part_id: 'Part not found.' });
    expect(def.errors).toEqual(['not_found', 'conflict']);
  });

  it('hands the handler both records’ ids and the tenant id', async () => {
    const ctx = await run(def, { workspace: { _id: 'ws_1', name: 'Acme' } }, { workspace_id: 'ws_1', thing_id: 'th_1', part_id: 'p'.repeat(100) });
    expect(ctx.body).toEqual({ tenant: 'ws_1', thing: 'th_1', part: 'p'.repeat(100) });
  });

  it('answers a record’s own 404 for an id that cannot name one (idParam: at most 64)', async () => {
    await expect(run(def, { workspace: { _id: 'ws_1', name: 'Acme' } }, { workspace_id: 'ws_1', thing_id: 't'.repeat(65), part_id: 'p1' })).rejects.toMatchObject({
      code: 'not_found',
      message: 'Thing not found.',
    });
    await expect(run(def, { workspace: { _id: 'ws_1', name: 'Acme' } }, { workspace_id: 'ws_1', thing_id: 'th_1', part_id: 'p'.repeat(201) })).rejects.toMatchObject({
      code: 'not_found',
      message: 'Part not found.',
    });
  });
});
