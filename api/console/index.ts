import Router from '@koa/router';
import type { RequestState } from '../context';
import { consoleAuth } from './auth';
import type { ConsoleDeps } from './deps';
import { callConsoleRoutes } from './routes/calls';
import { conversationConsoleRoutes } from './routes/conversations';
import { keyRoutes } from './routes/keys';
import { messagingRoutes } from './routes/messaging';
import { agentAndNumberRoutes } from './routes/numbers';
import { ticketRoutes } from './routes/tickets';
import { workspaceRoutes } from './routes/workspaces';
import { webhookRoutes } from './routes/webhooks';
import { whatsappConsoleRoutes } from './routes/whatsapp';

/** The private console API under /console/v1: admin token, no compatibility promise. */
export function createConsoleRouter(deps: ConsoleDeps): Router<RequestState> {
  const router = new Router<RequestState>({ prefix: '/console/v1' });
  router.use(consoleAuth(deps.config.CONSOLE_TOKEN));
  workspaceRoutes(router, deps);
  keyRoutes(router, deps);
  agentAndNumberRoutes(router, deps);
  messagingRoutes(router, deps);
  callConsoleRoutes(router, deps);
  webhookRoutes(router, deps);
  ticketRoutes(router, deps);
  whatsappConsoleRoutes(router, deps);
  conversationConsoleRoutes(router, deps);
  return router;
}
