import type { Server } from 'node:http';
import { Connection, Client } from '@temporalio/client';
import type { Db, MongoClient } from 'mongodb';
import { createApp } from '../../api/app';
import { createApiServer } from '../../api/server';
import { requireApiSettings, webhookPrivateUrlsAllowed, type Config } from '../../src/config';
import { apiDatabaseOptions, connectMongo } from '../../src/db/mongo';
import { createTemporalProbe } from '../../src/temporal/client';
import { MongoCounterStore, type CounterStore } from '../../src/rateLimit/counterStore';
import type { CredentialCache } from '../../src/auth/credentialCache';
import type { TenantReadCache } from '../../src/db/tenantReadCache';
import { ensureEveryIndex } from '../../src/main/indexes';
import { createLogger } from '../../src/observability/logger';
import { createMetricsRegistry } from '../../src/observability/metrics';
import type { ActivityDeps } from '../../activities';
import type { EventPublisher } from '../../src/events/publisher';
import { buildActivityDeps } from '../../src/worker/activityDeps';
import { createVoiceProvider } from '../../src/providers/voice';
import { callsEndedOnTeardown } from './callsEndedOnTeardown';
import { testConfig } from './env';
import { lateBound } from './late';
import { startTestWorker, type TestWorker } from './worker';
import { createTestWorkspace, type TestWorkspace, type TestWorkspaceOptions } from './workspaces';

export interface TestApi {
  db: Db;
  config: Config;
  server: Server;
  mongo: MongoClient;
  temporal: Client;
  close(): Promise<void>;
}

/** The real app on a real HTTP server, against this run's MongoDB and Temporal. */
export interface TestApiOptions {
  env?: Record<string, string>;
  /** Replaces the MongoDB counter store, e.g. with one that fails. */
  rateLimitStore?: CounterStore;
  /** Replaces the app's credential cache (e.g. with one on a clock the test moves). */
  credentialCache?: CredentialCache;
  /** Replaces the app's list cache (e.g. with one on a clock the test moves). */
  listCache?: TenantReadCache<unknown>;
  now?: () => Date;
  /**
   * Also run a worker on this API's task queue and database (with the run's workflow
   * bundle), so routes that start workflows complete end to end. An object replaces parts
   * of the activity dependencies (a scripted provider, say).
   */
  worker?: boolean | Partial<ActivityDeps>;
  /**
   * The API process's database budget (2 s a step, src/db/mongo.ts). Off by default: on a
   * machine loaded far past its cores an ordinary step can take longer, and tests of other
   * behaviour must not see the 503 that budget gives.
   */
  databaseBudget?: boolean;
  /** Wraps the API's event publisher, e.g. with one that fails on demand. */
  wrapEvents?: (events: EventPublisher) => EventPublisher;
  /** The built web console to serve at /console/ (default dist/console-web). */
  consoleWebDir?: string;
  /** How long /readyz waits on each dependency (default 2 s): longer where its answer, not its budget, is tested. */
  probeTimeoutMs?: number;
}

export async function startTestApi({ env: overrides = {}, rateLimitStore, credentialCache, listCache, now, worker: withWorker, databaseBudget, wrapEvents, consoleWebDir, probeTimeoutMs }: TestApiOptions = {}): Promise<TestApi> {
  const config = requireApiSettings(testConfig(overrides));
  // Command monitoring lets tests prove which requests reach the database.
  const { client: mongo, db } = await connectMongo(config, 'test-api', { ...(databaseBudget ? apiDatabaseOptions : {}), monitorCommands: true });
  await ensureEveryIndex(db);
  // Lazy: an unreachable Temporal must not stop the app from starting (readiness says so).
  // Its calls end when the API closes: one a timed-out test left retrying would otherwise
  // retry against the closed channel and throw outside any promise (test/support/callsEndedOnTeardown.ts).
  const calls = callsEndedOnTeardown();
  const temporal = new Client({ connection: Connection.lazy({ address: config.TEMPORAL_ADDRESS, plugins: [calls.plugin] }), namespace: config.TEMPORAL_NAMESPACE });
  const temporalProbe = createTemporalProbe(config);
  const app = createApp({
    config,
    db,
    temporal,
    temporalProbe,
    logger: createLogger(config, 'api'),
    registry: createMetricsRegistry('api'),
    rateLimitStore: rateLimitStore ?? new MongoCounterStore(db),
    credentialCache,
    listCache,
    cursorSecret: 'test-cursor-secret-0123456789abcdef',
    now,
    wrapEvents,
    consoleWebDir,
    probeTimeoutMs,
  });
  const server = createApiServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let running: TestWorker | null = null;
  if (withWorker) {
    const deps = buildActivityDeps(
      { db, temporal, taskQueue: config.TEMPORAL_TASK_QUEUE },
      {
        webhooks: { allowPrivateUrls: webhookPrivateUrlsAllowed(config) },
        // VOICE_PROVIDER=twilio or plivo in `env`: the worker places calls through the provider's REST API (a fake's, in tests).
        ...(config.VOICE_PROVIDER !== 'simulator' ? { voice: createVoiceProvider(config, { db, temporal, taskQueue: config.TEMPORAL_TASK_QUEUE }) } : {}),
        ...(typeof withWorker === 'object' ? withWorker : {}),
      },
    );
    running = await startTestWorker({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS, deps });
  }
  return {
    db,
    config,
    server,
    mongo,
    temporal,
    async close() {
      await running?.close();
      // A client still holding keep-alive connections (a browser page that polls) would keep
      // close() waiting for ever: they are dropped once the server stops accepting.
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await temporalProbe.close();
      calls.end();
      await temporal.connection.close();
      await mongo.db(config.MONGODB_DB).dropDatabase();
      await mongo.close();
    },
  };
}

export interface TestApiFixtureOptions extends TestApiOptions {
  /** The workspace's key: its scopes or environment (a full-scope test key by default). */
  workspace?: TestWorkspaceOptions;
}

/**
 * The API and a workspace of its own for every test in this file (or describe block): started
 * in a beforeAll hook, closed in an afterAll. Returns stand-ins at once, so the file reads
 * `const { api, ws } = useTestApi({ worker: true });` at the top of its describe. Hooks run in
 * the order they are declared: a file's hooks that the API depends on come before this call.
 */
export function useTestApi(options: TestApiFixtureOptions | (() => TestApiFixtureOptions) = {}): { api: TestApi; ws: TestWorkspace } {
  const api = lateBound<TestApi>('the test API');
  const ws = lateBound<TestWorkspace>('the test workspace');
  let started: TestApi | undefined;
  beforeAll(async () => {
    // A function is read in the hook, after the file's earlier hooks (a FerretDB of its own, say).
    const { workspace, ...apiOptions } = typeof options === 'function' ? options() : options;
    started = await startTestApi(apiOptions);
    api.set(started);
    ws.set(await createTestWorkspace(started.db, workspace));
  });
  afterAll(async () => {
    api.set(undefined);
    ws.set(undefined);
    await started?.close();
  });
  return { api: api.value, ws: ws.value };
}
