import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { RequestState } from '../context';
import { jsonBody } from '../middleware/jsonBody';
import { textBody } from '../middleware/textBody';
import { openApiDocument, openApiRoute, type DocumentSurface } from '../openapi';
import { koaPath, type RouteDef } from '../route';
import { createAppRouter } from '../routerMethods';
import type { AttemptGuard } from '../middleware/authFailures';
import { routeTail } from '../validation';
import { consoleAuth } from './auth';
import { SESSION_COOKIE } from './session/cookie';
import type { ConsoleSessionStore } from './session/sessionStore';
import { CONSOLE_PREFIX, loadWorkspace, WORKSPACE_NOT_FOUND, type ConsoleDeps } from './deps';
import { agentInboxRoutes } from './routes/agentInbox';
import { callConsoleRoutes } from './routes/calls';
import { campaignConsoleRoutes } from './routes/campaigns';
import { callSearchRoutes } from './routes/callSearch';
import { conversationReadRoutes } from './routes/conversationReads';
import { findRoutes } from './routes/find';
import { overviewRoutes } from './routes/overview';
import { conversationConsoleRoutes } from './routes/conversations';
import { duesConsoleRoutes } from './routes/dues';
import { keyRoutes } from './routes/keys';
import { uploadedListRoutes } from './routes/lists';
import { knowledgeRoutes } from './routes/knowledge';
import { businessToolRoutes } from './routes/businessTools';
import { messagingRoutes } from './routes/messaging';
import { agentAndNumberRoutes } from './routes/numbers';
import { ticketRoutes } from './routes/tickets';
import { workspaceRoutes } from './routes/workspaces';
import { webhookRoutes } from './routes/webhooks';
import { webhookDeliveryRoutes } from './routes/webhookDeliveries';
import { webhookTestRoutes } from './routes/webhookTests';
import { whatsappConsoleRoutes } from './routes/whatsapp';

const consoleSurface: DocumentSurface = {
  info: {
    title: 'Orchestrator console API',
    version: '0.1.0',
    description: 'The private console under /console/v1: workspaces, keys, numbers, messaging, calls, webhooks, tickets, campaigns, the dues app and the simulators. Admin token; no compatibility promise.',
  },
  securitySchemes: {
    consoleToken: { type: 'http', scheme: 'bearer', description: 'The console token (CONSOLE_TOKEN).' },
    consoleSession: {
      type: 'apiKey',
      in: 'cookie',
      name: SESSION_COOKIE,
      description: 'The web console session from POST /console/session; a request that changes something also sends X-CSRF-Token and its Origin.',
    },
  },
  security: (): Record<string, string[]>[] => [{ consoleToken: [] }, { consoleSession: [] }],
  baseErrors: (route) => [
    'unauthenticated',
    // An address past its failed token attempts (api/middleware/authFailures.ts).
    'rate_limited',
    'internal',
    ...(route.body || route.query || route.params ? (['invalid_argument'] as const) : []),
    // Every route under a workspace answers 404 for a workspace that does not exist.
    ...(route.path.includes('{workspace_id}') ? (['not_found'] as const) : []),
  ],
  headers: () => [],
  usesDatabase: () => true,
};

/** The console's OpenAPI 3.1 description, generated from its route definitions. */
export function consoleDocument(routes: RouteDef[]): Record<string, unknown> {
  return openApiDocument(routes, consoleSurface);
}

/** Every console route; the order here is the order in its OpenAPI document. */
export function consoleRoutes(deps: ConsoleDeps): RouteDef[] {
  const routes: RouteDef[] = [
    ...workspaceRoutes(deps),
    ...keyRoutes(deps),
    ...agentAndNumberRoutes(deps),
    ...messagingRoutes(deps),
    ...callConsoleRoutes(deps),
    ...callSearchRoutes(deps),
    ...webhookRoutes(deps),
    ...webhookTestRoutes(deps),
    ...webhookDeliveryRoutes(deps),
    ...ticketRoutes(deps),
    ...whatsappConsoleRoutes(deps),
    ...conversationConsoleRoutes(deps),
    ...campaignConsoleRoutes(deps),
    ...uploadedListRoutes(deps),
    ...conversationReadRoutes(deps),
    ...agentInboxRoutes(deps),
    ...findRoutes(deps),
    ...overviewRoutes(deps),
    ...duesConsoleRoutes(deps),
    ...knowledgeRoutes(deps),
    ...businessToolRoutes(deps),
  ];
  routes.push(
    openApiRoute(`${CONSOLE_PREFIX}/openapi.json`, 'getConsoleOpenApi', () => routes, consoleSurface, 'This machine-readable description of the console API.'),
  );
  return routes;
}

/**
 * The private console API under /console/v1: admin token (or the web console's session
 * cookie, api/console/auth.ts), no compatibility promise. Each route: the credential, the workspace of `{workspace_id}` (404 first), the body, then
 * validation and the handler as on the public API.
 */
export function createConsoleRouter(deps: ConsoleDeps, sessions: ConsoleSessionStore, attempts: AttemptGuard): Router<RequestState> {
  const router = createAppRouter({ prefix: CONSOLE_PREFIX });
  router.use(consoleAuth(deps.config.CONSOLE_TOKEN, sessions, attempts));
  const workspace = loadWorkspace(deps);
  const body = jsonBody();
  for (const route of consoleRoutes(deps)) {
    const chain: Middleware<RequestState>[] = [];
    const inWorkspace = route.path.includes('{workspace_id}');
    if (inWorkspace) chain.push(workspace);
    if (route.body) chain.push(route.bodyMedia ? textBody(route.bodyMedia) : body);
    const described = inWorkspace ? { ...route, notFound: { workspace_id: WORKSPACE_NOT_FOUND, ...route.notFound } } : route;
    chain.push(...routeTail(described, { checkResponses: deps.config.NODE_ENV === 'test' }));
    router[route.method](koaPath(route.path.slice(CONSOLE_PREFIX.length)), ...chain);
  }
  return router;
}
