import { createServer } from 'node:http';
import { Runtime } from '@temporalio/worker';
import { loadConfig, webhookPrivateUrlsAllowed } from '../config';
import { connectMongo } from '../db/mongo';
import { registerFeatureHooks } from './featureHooks';
import { ensureEveryIndex } from './indexes';
import { createLogger } from '../observability/logger';
import { createMetricsRegistry } from '../observability/metrics';
import { activityMetricsInterceptor } from '../observability/activityMetrics';
import { temporalLoggerFrom } from '../observability/temporalLogger';
import { createWorker } from '../worker/createWorker';
import { buildActivityDeps } from '../worker/activityDeps';
import { createCallReader } from '../providers/reader';
import { createWhatsAppProvider } from '../providers/whatsapp';
import { createAgentModel } from '../providers/agents';
import { SimulatedWhatsAppProvider } from '../providers/whatsapp/simulator';
import { createEventPublisher } from '../events/publisher';
import { createPaymentLinkProvider } from '../providers/payments';
import { scriptingFromConsole } from '../providers/payments/simulatorScript';
import { readerScriptFromCalleeScripts } from '../providers/voice/simulatorScript';
import { SimulatedVoiceProvider } from '../providers/voice/simulatedVoiceProvider';
import { createVoiceProvider } from '../providers/voice';
import { connectTemporalClient } from '../temporal/client';
import { describeTemporalConnection, temporalConnectionOptions } from '../temporal/connectionSettings';
import { createTemporalDispatcher } from '../webhooks/dispatcher';
import { createEventSweeper } from '../events/sweeper';
import { startRetentionSweeper } from '../events/retention';
import { settleParkedStatuses } from '../messaging/earlyStatuses';
import { sweepExpiredSendIntents } from '../messaging/sendIntents';
import { sweepExpiredSendResolutions } from '../messaging/unknownOutcomes';
import { configuredRetentionSweeps } from './retentionSweeps';
import { SWEEP_PAUSE_MS } from '../db/idRangeSweep';
import { createSetupSweeper } from '../dues/setupSweeper';
import { createLivePlaceSweeper } from '../calls/livePlaceSweeper';
import { backfillCallEntries } from '../calls/callEntries';
import { backfillCampaignEntries } from '../campaigns/campaignEntries';
import { backfillConversationEntries } from '../conversations/conversationEntries';
import { backfillDueEntries } from '../dues/dueEntries';
import { backfillContactTagEntries } from '../contacts';
import { backfillNameEntries } from '../conversations/nameEntries';
import { sweepExpiredStreamClaims } from '../calls/line/lineCalls';
import { startLateRecounts } from '../campaigns/whatsapp/lateRecounts';
import { runMain, shutdownSignal } from './runMain';

/**
 * The worker process: hosts every workflow and activity on the task queue, and serves
 * /healthz (200 while polling) and /metrics on WORKER_METRICS_PORT.
 */
runMain(async () => {
  const config = loadConfig();
  const logger = createLogger(config, 'worker');
  // This process owns its signals, so shutdown runs in order (worker, HTTP, connections).
  Runtime.install({ logger: temporalLoggerFrom(logger), shutdownSignals: [] });

  const { client: mongo, db } = await connectMongo(config, 'worker');
  await ensureEveryIndex(db);
  registerFeatureHooks();
  const registry = createMetricsRegistry('worker');
  // Activities that emit events or start workflows use a client of their own.
  const temporal = await connectTemporalClient(config);
  // WHATSAPP_PROVIDER: campaign sends use the deployment's provider, as POST /messages does.
  const whatsapp = createWhatsAppProvider(config, {
    db,
    events: createEventPublisher(db, createTemporalDispatcher(db, temporal, config.TEMPORAL_TASK_QUEUE)),
    onStatusError: (err, messageId) => logger.warn({ err, messageId }, 'simulated WhatsApp status not recorded; the sweep retries'),
  });
  // Simulated statuses left by a process that died are reported from here.
  if (whatsapp instanceof SimulatedWhatsAppProvider) whatsapp.statuses.startSweeping();
  const deps = buildActivityDeps(
    {
      db,
      temporal,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      logger,
    },
    {
      // VOICE_PROVIDER: the simulator (default; VOICE_SIMULATOR says whether its line events come
      // from timers here or a workflow per call) or Twilio.
      voice: createVoiceProvider(config, {
        db,
        temporal,
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        onLineError: (err, callId) => logger.warn({ err, callId }, 'simulated line event not reported; the sweep retries'),
      }),
      webhooks: { allowPrivateUrls: webhookPrivateUrlsAllowed(config) },
      // READER_PROVIDER picks the simulated reader (default) or an OpenAI-compatible endpoint.
      reader: createCallReader(config, { scriptFor: readerScriptFromCalleeScripts(db) }),
      whatsapp,
      // AGENT_MODEL_PROVIDER: the chat agent's simulated model (default) or an OpenAI-compatible endpoint.
      agentModel: createAgentModel(config),
      deploymentChannels: config.DEPLOYMENT_CHANNELS,
      originateAttempts: config.VOICE_ORIGINATE_ATTEMPTS,
      // PAYMENT_LINK_PROVIDER: the dues app's payment links (simulator or Razorpay).
      payments: createPaymentLinkProvider(config, scriptingFromConsole(db, temporal, config.TEMPORAL_TASK_QUEUE)),
    },
  );
  // Simulated line events left by a process that died are reported from here (in either mode:
  // a deployment switched from `timers` may have some left).
  const voice = deps.voice instanceof SimulatedVoiceProvider ? deps.voice : null;
  voice?.line.startSweeping();
  const { worker, connection } = await createWorker({ config, deps, activityInterceptors: [activityMetricsInterceptor(registry)] });

  const http = createServer((req, res) => {
    if (req.url === '/metrics') {
      registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    } else if (req.url === '/healthz') {
      const state = worker.getState();
      res.writeHead(state === 'RUNNING' ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: state === 'RUNNING' ? 'ok' : 'unavailable', worker: state }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"not_found"}');
    }
  });
  await new Promise<void>((resolve) => http.listen(config.WORKER_METRICS_PORT, config.HOST, resolve));

  // Events whose producer died between storing and dispatching are dispatched from here.
  const sweeper = createEventSweeper({
    db,
    dispatcher: createTemporalDispatcher(db, temporal, config.TEMPORAL_TASK_QUEUE),
    onError: (err) => logger.warn({ err }, 'event sweep failed'),
  });
  sweeper.start();
  // Dues subscribers whose create stopped short and was never asked again are finished here.
  const setups = createSetupSweeper({
    deps: { db, temporal, taskQueue: config.TEMPORAL_TASK_QUEUE, events: createEventPublisher(db, createTemporalDispatcher(db, temporal, config.TEMPORAL_TASK_QUEUE)), logger },
    onError: (err, subscriberId) => logger.warn({ err, subscriberId }, 'dues subscriber setup sweep failed; retried next pass'),
    onGiveUp: (subscriberId, failure) => logger.warn({ subscriberId, failure }, 'dues subscriber setup given up: subscriber cancelled, phone released'),
  });
  setups.start();
  // Live call places held by a call whose workflow is gone (terminated, timed out, never started) are given back here.
  const livePlaces = createLivePlaceSweeper({
    deps: { db, temporal, events: deps.events, voice: deps.voice, hooks: deps.callHooks, warn: (message, meta) => logger.warn(meta, message) },
    onError: (err, callId) => logger.warn({ err, callId }, 'live call place sweep failed; retried next pass'),
    onEnded: (callId, end) => logger.warn({ callId, ...end }, 'call ended by the live-place sweep: its workflow had stopped'),
  });
  livePlaces.start();
  // No TTL indexes on FerretDB: events, deliveries, transcripts and trail rows past their retention are deleted here, in paced batches.
  // Also WhatsApp statuses parked for a message never recorded: applied once it is, gone after a day.
  const retention = startRetentionSweeper({
    db,
    pauseMs: SWEEP_PAUSE_MS,
    also: [...configuredRetentionSweeps(config), sweepExpiredSendIntents, sweepExpiredSendResolutions, sweepExpiredStreamClaims, (options) => settleParkedStatuses({ ...options, events: deps.events })],
    onError: (err) => logger.warn({ err }, 'event retention sweep failed'),
  });
  // Finished campaigns' counters follow late delivery statuses from here (the run has ended).
  const lateRecounts = startLateRecounts({ db, onError: (err) => logger.warn({ err }, 'late campaign recount failed; retried next pass') });

  // Keyed list entries for records written before they existed (src/db/keyedEntries.ts); lists read the old way until done.
  let stopping = false;
  const backfills = (async () => {
    await backfillCallEntries(db, () => stopping);
    await backfillConversationEntries(db, () => stopping);
    await backfillCampaignEntries(db, () => stopping);
    await backfillNameEntries(db, () => stopping);
    await backfillContactTagEntries(db, () => stopping);
    await backfillDueEntries(db, () => stopping);
  })().catch((err: unknown) => logger.warn({ err }, 'list entry backfill failed; resumed at the next start'));

  const running = worker.run();
  logger.info(
    {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      // Where and how it connected (never the secrets), for an operator moving to Temporal Cloud.
      temporal: describeTemporalConnection(temporalConnectionOptions(config), config.TEMPORAL_NAMESPACE),
      metrics: `http://${config.HOST}:${config.WORKER_METRICS_PORT}/metrics`,
    },
    'worker polling',
  );
  const signal = await Promise.race([shutdownSignal(), running.then(() => null)]);
  if (signal) {
    logger.info({ signal }, 'worker shutting down');
    worker.shutdown();
  }
  await running;
  stopping = true;
  await backfills;
  await sweeper.stop();
  await setups.stop();
  await livePlaces.stop();
  if (whatsapp instanceof SimulatedWhatsAppProvider) await whatsapp.statuses.stopSweeping();
  await voice?.line.stopSweeping();
  await retention.stop();
  await lateRecounts.stop();
  http.close();
  await connection.close();
  await temporal.connection.close();
  await mongo.close();
  logger.info('worker stopped');
});
