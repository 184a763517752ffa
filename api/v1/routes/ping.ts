import { route, type RouteDef } from '../../route';
import { pingResponse } from './ping.schema';

export function pingRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/api/v1/ping',
      operationId: 'ping',
      summary: 'Verify a key, with no side effects beyond counting against the rate limit.',
      auth: { scope: null },
      response: { status: 200, description: 'The key works.', schema: pingResponse },
      handler: (ctx) => {
        const key = ctx.state.apiKey!;
        return { ok: true, workspace_id: key.tenant_id, environment: key.environment, scopes: key.scopes };
      },
    }),
  ];
}
