import { periodicPass } from '../async/periodicPass';
import { loadConfig, requireApiSettings } from '../config';
import { cursorSecret } from '../auth/secrets';
import { MemoryCounterStore, MongoCounterStore } from '../rateLimit/counterStore';
import { IdempotencyStore } from '../idempotency/store';
import { apiDatabaseOptions, connectMongo } from '../db/mongo';
import { registerFeatureHooks } from './featureHooks';
import { ensureEveryIndex } from './indexes';
import { connectTemporalClient, createTemporalProbe } from '../temporal/client';
import { createLogger } from '../observability/logger';
import { twilioSettingsWarnings } from '../providers/voice/twilio/settings';
import { createMetricsRegistry } from '../observability/metrics';
import { createApp } from '../../api/app';
import { createApiServer } from '../../api/server';
import { runMain, shutdownSignal } from './runMain';

/** The API process: stateless; run as many as needed behind a load balancer. */
runMain(async () => {
  const config = requireApiSettings(loadConfig());
  const logger = createLogger(config, 'api');
  for (const warning of twilioSettingsWarnings(config)) logger.warn(warning);
  const { client: mongo, db } = await connectMongo(config, 'api', apiDatabaseOptions);
  await ensureEveryIndex(db);
  registerFeatureHooks();
  const temporal = await connectTemporalClient(config);
  const temporalProbe = createTemporalProbe(config);
  const registry = createMetricsRegistry('api');
  const rateLimitStore = config.RATE_LIMIT_STORE === 'memory' ? new MemoryCounterStore() : new MongoCounterStore(db);
  const app = createApp({
    config,
    db,
    temporal,
    temporalProbe,
    logger,
    registry,
    rateLimitStore,
    cursorSecret: cursorSecret(config),
  });
  // No TTL indexes on FerretDB: ended rate-limit windows and expired idempotency claims are
  // deleted here.
  const idempotencyStore = new IdempotencyStore(db);
  const sweepFailed = (err: unknown) => logger.warn({ err }, 'sweep failed');
  const sweeper = periodicPass(
    () => {
      const now = new Date();
      // Each store's sweep on its own: one failing leaves the other's to run.
      return Promise.all([rateLimitStore, idempotencyStore].map((store) => store.sweep(now).catch(sweepFailed)));
    },
    60_000,
    sweepFailed,
  );
  sweeper.start();

  const server = createApiServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  logger.info({ url: `http://${config.HOST}:${config.PORT}` }, 'api listening');

  const signal = await shutdownSignal();
  logger.info({ signal }, 'api shutting down');
  await sweeper.stop();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await temporalProbe.close();
  await temporal.connection.close();
  await mongo.close();
  logger.info('api stopped');
});
