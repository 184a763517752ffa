import type { Db } from 'mongodb';
import { loadConfig, type Config } from '../config';
import { connectMongo } from '../db/mongo';
import { createLogger } from '../observability/logger';
import { createMetricsRegistry } from '../observability/metrics';
import { connectTemporalClient } from '../temporal/client';
import { createMediaMetrics } from '../media/mediaMetrics';
import { createMediaServer, MEDIA_STREAM_PATH } from '../media/mediaServer';
import { temporalLineEvents } from '../media/lineEvents';
import { streamOnlyLineControl } from '../media/streamLineControl';
import { plivoSettingsFrom, plivoSettingsWarnings, type PlivoSettings } from '../providers/voice/plivo/settings';
import { PlivoVoiceProvider } from '../providers/voice/plivo/plivoVoiceProvider';
import { plivoStreamProtocol } from '../providers/voice/plivo/streamProtocol';
import { twilioSettingsFrom, twilioSettingsWarnings, type TwilioSettings } from '../providers/voice/twilio/settings';
import { twilioStreamProtocol } from '../providers/voice/twilio/streamProtocol';
import { TwilioVoiceProvider } from '../providers/voice/twilio/twilioVoiceProvider';
import type { LineControl } from '../calls';
import { createToolbox } from '../agents';
import { createEventPublisher } from '../events/publisher';
import { createTemporalDispatcher } from '../webhooks/dispatcher';
import { agentToolSourcesFromConfig } from './agentToolSources';
import type { StreamProtocol } from '../calls/line/streamProtocol';
import { ensureEveryIndex } from './indexes';
import { runMain, shutdownSignal } from './runMain';

/** What the voice provider gives the media process: the network's hang-up and transfer, and its stream protocol (handshake and frames). */
interface MediaLine {
  lineControl: LineControl;
  streamProtocol: StreamProtocol;
}

/**
 * The voice provider's line, by VOICE_PROVIDER: one line per provider. The simulator's calls
 * never reach this process: a stream is ended by closing it, a transfer is refused, and streams
 * (tests') speak Twilio's message shapes unsigned.
 */
const MEDIA_LINES: Record<Config['VOICE_PROVIDER'], (db: Db, config: Config) => MediaLine> = {
  simulator: () => ({ lineControl: streamOnlyLineControl, streamProtocol: twilioStreamProtocol(null) }),
  twilio: (db, config) => twilioMediaLine(db, twilioSettingsFrom(config)!),
  plivo: (db, config) => plivoMediaLine(db, plivoSettingsFrom(config)!),
};

/** Twilio: hang-ups and transfers through its REST API, and only streams Twilio signed. */
function twilioMediaLine(db: Db, twilio: TwilioSettings): MediaLine {
  return { lineControl: new TwilioVoiceProvider(db, twilio), streamProtocol: twilioStreamProtocol({ authToken: twilio.authToken, streamUrl: twilio.mediaStreamUrl }) };
}

/** Plivo: hang-ups and transfers through its Voice API, and its Audio Streaming protocol. */
function plivoMediaLine(db: Db, plivo: PlivoSettings): MediaLine {
  return { lineControl: new PlivoVoiceProvider(db, plivo), streamProtocol: plivoStreamProtocol({ authToken: plivo.authToken, streamUrl: plivo.mediaStreamUrl }) };
}

/**
 * The media process: bridges each call's media stream (in its provider's protocol, from
 * MEDIA_LINES; docs/media.md) to the realtime speech model (src/media/). Its sockets live as
 * long as the calls, so it runs apart from the stateless API and scales on its own; /healthz
 * and /metrics on MEDIA_PORT beside the stream endpoint.
 */
runMain(async () => {
  // The Agents SDK's tracing provider exits the process on SIGTERM or SIGINT once no other
  // listener is left (@openai/agents-core tracing/provider.js), and shutdownSignal() drops its
  // own at the first signal: without these the SDK would exit before the live calls are ended.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => undefined);
  const config = loadConfig();
  const logger = createLogger(config, 'media');
  for (const warning of [...twilioSettingsWarnings(config), ...plivoSettingsWarnings(config)]) logger.warn(warning);
  const { client: mongo, db } = await connectMongo(config, 'media');
  await ensureEveryIndex(db);
  const temporal = await connectTemporalClient(config);
  const registry = createMetricsRegistry('media');
  const events = createEventPublisher(db, createTemporalDispatcher(db, temporal, config.TEMPORAL_TASK_QUEUE));
  // The agent's tools mid-call: the same sources as the worker's chat turns (src/main/agentToolSources.ts).
  const toolbox = createToolbox(agentToolSourcesFromConfig({ db, temporal, config, events, logger }));
  const media = createMediaServer({
    db,
    lineEvents: temporalLineEvents(temporal),
    ...MEDIA_LINES[config.VOICE_PROVIDER](db, config),
    realtime: { url: config.REALTIME_URL, model: config.REALTIME_MODEL, apiKey: config.REALTIME_API_KEY },
    recordingsDir: config.MEDIA_RECORDINGS_DIR,
    maxCallSecondsCap: config.MEDIA_MAX_CALL_SECONDS,
    tools: { toolbox, holdAfterMs: config.MEDIA_TOOL_HOLD_MS, timeoutMs: config.MEDIA_TOOL_TIMEOUT_MS },
    metrics: createMediaMetrics(registry),
    logger,
    registry,
  });
  await new Promise<void>((resolve) => media.server.listen(config.MEDIA_PORT, config.HOST, resolve));
  logger.info(
    { streams: `ws://${config.HOST}:${config.MEDIA_PORT}${MEDIA_STREAM_PATH}/<call>/<secret>`, realtime: config.REALTIME_URL, model: config.REALTIME_MODEL, keySet: Boolean(config.REALTIME_API_KEY), voiceProvider: config.VOICE_PROVIDER },
    'media listening',
  );

  const signal = await shutdownSignal();
  logger.info({ signal, sessions: media.sessions.size }, 'media shutting down');
  await media.close();
  await temporal.connection.close();
  await mongo.close();
  logger.info('media stopped');
});
