import Koa from 'koa';
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import type { Registry } from 'prom-client';
import type { Config } from '../src/config';
import type { TemporalProbe } from '../src/temporal/client';
import type { Logger } from '../src/observability/logger';
import type { RequestState } from './context';
import { requestContext } from './middleware/requestContext';
import { errorHandler } from './middleware/errorHandler';
import { createHealthRouter } from './routes/health';
import { createPublicRouter } from './v1';
import { createConsoleRouter } from './console';
import { createConsoleSessionRouter } from './console/session/routes';
import { ConsoleSessionStore } from './console/session/sessionStore';
import { consoleWebStatic } from './console/webStatic';
import { fromRoot } from '../src/local/paths';
import { inboundHooksFor, requireFeatureHooks } from '../src/main/featureHooks';
import { CursorCodec } from './pagination';
import type { CounterStore } from '../src/rateLimit/counterStore';
import type { CredentialCache } from '../src/auth/credentialCache';
import { AuthFailureLimiter } from '../src/auth/failureLimiter';
import { attemptGuard } from './middleware/authFailures';
import type { TenantReadCache } from '../src/db/tenantReadCache';
import { createAudienceCache } from '../src/campaigns/audienceCache';
import { createEventPublisher, type EventPublisher } from '../src/events/publisher';
import { createTemporalDispatcher } from '../src/webhooks/dispatcher';
import { createRazorpayWebhookRouter } from './providerWebhooks/razorpay';
import { createWhatsAppWebhookRouter } from './providerWebhooks/whatsapp';
import { createTwilioWebhookRouter } from './providerWebhooks/twilio';
import { createPlivoWebhookRouter } from './providerWebhooks/plivo';

export interface AppDeps {
  config: Config & { CONSOLE_TOKEN: string };
  db: Db;
  temporal: Client;
  temporalProbe: TemporalProbe;
  logger: Logger;
  registry: Registry;
  rateLimitStore: CounterStore;
  /** Defaults to one with the production bound (`CREDENTIAL_CACHE_MS`). */
  credentialCache?: CredentialCache;
  /** Defaults to one with the production bound (`TENANT_READ_CACHE_MS`). */
  listCache?: TenantReadCache<unknown>;
  cursorSecret: string;
  now?: () => Date;
  /** The built web console (default dist/console-web), served at /console/. */
  consoleWebDir?: string;
  /** Failed authentication attempts per address; default: one with the configured budget. */
  authFailures?: AuthFailureLimiter;
  /** Wraps the event publisher (tests inject a failing dependency); default: as built. */
  wrapEvents?: (events: EventPublisher) => EventPublisher;
  /** How long /readyz waits on each dependency (default 2 s, api/routes/health.ts). */
  probeTimeoutMs?: number;
}

/** The Koa app with every router mounted; `src/main/api.ts` listens on it, tests too. */
export function createApp(deps: AppDeps): Koa<RequestState> {
  // The webhook and send routes record statuses whose campaign recipients follow: no app without the hooks.
  requireFeatureHooks();
  const app = new Koa<RequestState>();
  app.proxy = false;
  // Errors are answered and logged by errorHandler; Koa's default printer would repeat them.
  app.silent = true;

  app.use(requestContext(deps.logger, deps.registry));
  app.use(errorHandler());

  const health = createHealthRouter({
    db: deps.db,
    temporalProbe: deps.temporalProbe,
    registry: deps.registry,
    probeTimeoutMs: deps.probeTimeoutMs,
    launcherStatusFile: deps.config.LAUNCHER_STATUS_FILE,
  });
  app.use(health.routes());
  app.use(health.allowedMethods());

  // One per API process, shared by the API keys, the console token and the console log-in.
  const authFailures =
    deps.authFailures ??
    new AuthFailureLimiter({ limit: deps.config.AUTH_FAILURE_LIMIT, windowMs: deps.config.AUTH_FAILURE_WINDOW_SECONDS * 1000 });
  const attempts = attemptGuard(authFailures);

  const built = createEventPublisher(deps.db, createTemporalDispatcher(deps.db, deps.temporal, deps.config.TEMPORAL_TASK_QUEUE));
  const events = deps.wrapEvents ? deps.wrapEvents(built) : built;
  // One per API process, shared by the public and console campaign routes.
  const audiences = createAudienceCache();
  const publicRouter = createPublicRouter({
    config: deps.config,
    db: deps.db,
    temporal: deps.temporal,
    logger: deps.logger,
    cursors: new CursorCodec(deps.cursorSecret),
    rateLimitStore: deps.rateLimitStore,
    credentialCache: deps.credentialCache,
    authFailures,
    listCache: deps.listCache,
    events,
    audiences,
    now: deps.now,
  });
  app.use(publicRouter.routes());
  app.use(publicRouter.allowedMethods());

  const now = deps.now ?? (() => new Date());
  const consoleSessions = new ConsoleSessionStore(deps.db, now);
  const sessionRouter = createConsoleSessionRouter(deps.config.CONSOLE_TOKEN, consoleSessions, attempts);
  app.use(sessionRouter.routes());
  app.use(sessionRouter.allowedMethods());
  app.use(consoleWebStatic(deps.consoleWebDir ?? fromRoot('dist/console-web')));

  // A recorded customer message reaches the features that react to it (the sender's chat agent).
  const inboundHooks = inboundHooksFor(deps.config);
  const consoleRouter = createConsoleRouter({ config: deps.config, db: deps.db, temporal: deps.temporal, events, now, audiences, inboundHooks }, consoleSessions, attempts);
  app.use(consoleRouter.routes());
  app.use(consoleRouter.allowedMethods());

  const whatsappWebhook = createWhatsAppWebhookRouter({ config: deps.config, db: deps.db, temporal: deps.temporal, events, inboundHooks, now: deps.now });
  app.use(whatsappWebhook.routes());
  app.use(whatsappWebhook.allowedMethods());

  const razorpayWebhook = createRazorpayWebhookRouter({ config: deps.config, db: deps.db, temporal: deps.temporal, events, now: deps.now });
  app.use(razorpayWebhook.routes());
  app.use(razorpayWebhook.allowedMethods());

  const twilioWebhook = createTwilioWebhookRouter({ config: deps.config, db: deps.db, temporal: deps.temporal, now: deps.now });
  app.use(twilioWebhook.routes());
  app.use(twilioWebhook.allowedMethods());

  const plivoWebhook = createPlivoWebhookRouter({ config: deps.config, db: deps.db, temporal: deps.temporal, now: deps.now });
  app.use(plivoWebhook.routes());
  app.use(plivoWebhook.allowedMethods());
  return app;
}
