import { join } from 'node:path';
import type { Config } from '../../src/config';
import { startProcess, untilReady, type ManagedProcess } from '../../src/local/childProcess';
import { freePort, waitFor } from '../../src/local/net';
import { fromRoot } from '../../src/local/paths';
import { testServers } from './env';

/**
 * The API process (src/main/api.ts) as `npm start` runs it, from its TypeScript source, on a
 * free loopback port against a test API's database, Temporal and task queue, for tests that kill
 * it: resolves once its /healthz answers. `env` adds settings (a provider, say).
 */
export async function startApiProcess(
  config: Pick<Config, 'MONGODB_URL' | 'MONGODB_DB' | 'TEMPORAL_ADDRESS' | 'TEMPORAL_TASK_QUEUE' | 'CONSOLE_TOKEN'>,
  options: { logName: string; env?: Record<string, string> },
): Promise<{ process: ManagedProcess; url: string }> {
  const port = await freePort();
  const child = startProcess('api', process.execPath, ['-r', fromRoot('test/support/registerTs.cjs'), fromRoot('src/main/api.ts')], {
    env: {
      ...process.env,
      ...options.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      MONGODB_URL: config.MONGODB_URL,
      MONGODB_DB: config.MONGODB_DB,
      TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      CONSOLE_TOKEN: config.CONSOLE_TOKEN!,
    },
    logFile: join(testServers.runDir(), `${options.logName}-${port}.log`),
  });
  const url = `http://127.0.0.1:${port}`;
  await untilReady(child, waitFor('api', async () => (await fetch(`${url}/healthz`)).ok, 60_000, 250));
  return { process: child, url };
}
