import { z } from 'zod';
import { callCollections } from '../../../src/calls/callStore';
import { callView } from '../../v1/routes/callView';
import { callSchema } from '../../v1/routes/calls.schema';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, workspaceParams, type ConsoleDeps } from '../deps';

/** The most calls one search shows: an operator looks up a person's recent calls, not their history. */
export const CALL_SEARCH_LIMIT = 50;

export const callSearchQuery = z.object({
  /** The other party's number: digits, with an optional `+` and separators. */
  to: z.string().max(32).regex(/\d/, 'the number needs digits'),
});

/**
 * GET /console/v1/workspaces/{workspace_id}/calls?to=: a number's calls, newest first (the
 * web console's "find by number"; by id is GET …/calls/{call_id}). This filter scans the
 * workspace's calls on FerretDB/SQLite (only `_id` is indexed there); an operator's lookup
 * is rare enough for that, and the limit bounds what is returned.
 */
export function callSearchRoutes(deps: ConsoleDeps): RouteDef[] {
  const { calls } = callCollections(deps.db);
  return [
    route({
      method: 'get',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/calls`,
      operationId: 'findConsoleCalls',
      summary: `Find a number's calls, newest first (at most ${CALL_SEARCH_LIMIT}), as GET /api/v1/calls/{id} shows each.`,
      params: workspaceParams({}),
      query: callSearchQuery,
      response: { status: 200, description: '`{items}`.', schema: z.object({ items: z.array(callSchema) }) },
      errors: ['not_found'],
      handler: async (ctx, { query }) => {
        const to = `+${query.to.replace(/\D/g, '')}`;
        const docs = await calls
          .find({ tenant_id: ctx.state.workspace!._id, to })
          .sort({ created_at: -1, _id: -1 })
          .limit(CALL_SEARCH_LIMIT)
          .toArray();
        ctx.body = { items: docs.map(callView) };
      },
    }),
  ];
}
