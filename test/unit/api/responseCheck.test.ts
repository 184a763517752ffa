import { z } from 'zod';
import { ApiError } from '../../../api/errors';
import { route, type RouteContext } from '../../../api/route';
import { routeTail } from '../../../api/validation';

/**
 * Test runs hold every answer to its route's response schema (api/responseCheck.ts): a
 * handler that drifts from what the document (and the console's generated types) says is a
 * 500 naming the route and the field, in whichever test reads that route.
 */
describe('the response check of test runs', () => {
  const thing = z.object({ id: z.string(), count: z.number().int(), at: z.string().nullable() });
  const answering = (body: unknown, status = 200) =>
    route({
      method: 'get',
      path: '/things/{id}',
      operationId: 'getThing',
      summary: 'A thing.',
      response: { status: 200, description: 'The thing.', schema: thing },
      handler: (ctx) => {
        ctx.status = status;
        ctx.body = body;
      },
    });

  async function run(body: unknown, options: { checkResponses?: boolean; status?: number } = { checkResponses: true }): Promise<{ ctx: RouteContext; error: unknown }> {
    const ctx = { state: {}, status: 404, body: undefined } as unknown as RouteContext;
    const chain = routeTail(answering(body, options.status), { checkResponses: options.checkResponses });
    // Each middleware's next() runs the rest of the chain, as Koa does.
    const from = (i: number): Promise<void> => (i < chain.length ? Promise.resolve(chain[i]!(ctx as never, () => from(i + 1))) : Promise.resolve());
    try {
      await from(0);
      return { ctx, error: null };
    } catch (error) {
      return { ctx, error };
    }
  }

  it('passes an answer that is what its schema says, after JSON (a Date goes as its string)', async () => {
    const { ctx, error } = await run({ id: 't1', count: 2, at: new Date('2026-01-01T00:00:00Z') });
    expect(error).toBeNull();
    expect(ctx.body).toEqual({ id: 't1', count: 2, at: new Date('2026-01-01T00:00:00Z') });
  });

  it('a field of the wrong type is a 500 response_schema_mismatch naming the route and the field', async () => {
    const { error } = await run({ id: 't1', count: '2', at: null });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 500,
      code: 'internal',
      message: 'The getThing answer does not match its response schema.',
      details: { reason: 'response_schema_mismatch', errors: [{ loc: ['count'], msg: expect.stringMatching(/expected number/) }] },
    });
  });

  it('a missing field, and a field the schema does not name, are mismatches too', async () => {
    expect((await run({ id: 't1', count: 2 })).error).toMatchObject({ details: { errors: [{ loc: ['at'] }] } });
    expect((await run({ id: 't1', count: 2, at: null, secret: 'x' })).error).toMatchObject({
      details: { reason: 'response_schema_mismatch', errors: [{ loc: ['secret'], msg: 'not in the response schema' }] },
    });
  });

  it('checks only the documented status, and only when asked (production leaves answers alone)', async () => {
    expect((await run({ anything: true }, { checkResponses: true, status: 202 })).error).toBeNull();
    expect((await run({ anything: true }, { checkResponses: false })).error).toBeNull();
  });
});
