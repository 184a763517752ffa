import type { PublicDeps } from './deps';
import { publicOpenApiRoute } from './openapi';
import type { RouteDef } from '../route';
import { buildPublicRouter } from './router';
import { agentsRoutes } from './routes/agents';
import { callsRoutes } from './routes/calls';
import { campaignsRoutes } from './routes/campaigns';
import { channelsRoutes } from './routes/channels';
import { contactsRoutes } from './routes/contacts';
import { conversationsRoutes } from './routes/conversations';
import { duesRoutes } from './routes/dues';
import { messagesRoutes } from './routes/messages';
import { pingRoutes } from './routes/ping';
import { ticketsRoutes } from './routes/tickets';

/** Every public route; the order here is the order in the OpenAPI document. */
export function publicRoutes(deps: PublicDeps): RouteDef[] {
  const routes: RouteDef[] = [...pingRoutes(), ...channelsRoutes(deps), ...agentsRoutes(deps), ...callsRoutes(deps)];
  routes.push(...ticketsRoutes(deps), ...contactsRoutes(deps));
  routes.push(...messagesRoutes(deps), ...conversationsRoutes(deps));
  routes.push(...campaignsRoutes(deps));
  routes.push(...duesRoutes(deps));
  routes.push(publicOpenApiRoute(() => routes));
  return routes;
}

export function createPublicRouter(deps: PublicDeps) {
  return buildPublicRouter(publicRoutes(deps), deps);
}
