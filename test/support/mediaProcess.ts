import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, untilReady, type ManagedProcess } from '../../src/local/childProcess';
import { freePort, waitFor } from '../../src/local/net';
import { fromRoot } from '../../src/local/paths';
import type { Config } from '../../src/config';
import { testServers } from './env';

/**
 * The media process (src/main/media.ts) as `npm start` runs it, from its TypeScript source, on a
 * free loopback port against the test run's database and Temporal, with the fake realtime model
 * and recordings in a folder of its own: ready once its /healthz answers.
 */
export async function startMediaProcess(options: {
  config: Pick<Config, 'MONGODB_URL' | 'MONGODB_DB' | 'TEMPORAL_ADDRESS'>;
  realtime: { url: string; apiKey: string };
  /** Names its log file and recordings folder. */
  name: string;
  /** More settings, e.g. VOICE_PROVIDER=twilio and the TWILIO_* the fake Twilio needs. */
  env?: NodeJS.ProcessEnv;
}): Promise<{ process: ManagedProcess; port: number }> {
  const port = await freePort();
  const child = startProcess('media', process.execPath, ['-r', fromRoot('test/support/registerTs.cjs'), fromRoot('src/main/media.ts')], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      MONGODB_URL: options.config.MONGODB_URL,
      MONGODB_DB: options.config.MONGODB_DB,
      TEMPORAL_ADDRESS: options.config.TEMPORAL_ADDRESS,
      MEDIA_PORT: String(port),
      REALTIME_URL: options.realtime.url,
      REALTIME_MODEL: 'fake-realtime',
      REALTIME_API_KEY: options.realtime.apiKey,
      MEDIA_RECORDINGS_DIR: mkdtempSync(join(testServers.runDir(), `${options.name}-recordings-`)),
      ...options.env,
    },
    logFile: join(testServers.runDir(), `${options.name}-media-${port}.log`),
  });
  await untilReady(child, waitFor('media', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 45_000, 250));
  return { process: child, port };
}
