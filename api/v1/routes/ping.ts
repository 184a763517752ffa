import { routeGroup, type RouteDef } from '../../route';
import { pingResponse } from './ping.schema';

/** Any key may ping. */
const ping = routeGroup({ auth: { scope: null } });

export function pingRoutes(): RouteDef[] {
  return [
    ping.get('ping', '/api/v1/ping', {
      summary: 'Verify a key, with no side effects beyond counting against the rate limit.',
      response: { status: 200, description: 'The key works.', schema: pingResponse },
      handler: (ctx) => {
        const key = ctx.state.apiKey!;
        return { ok: true, workspace_id: key.tenant_id, environment: key.environment, scopes: key.scopes };
      },
    }),
  ];
}
