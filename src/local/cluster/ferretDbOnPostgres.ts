import { mkdirSync } from 'node:fs';
import { startProcess, untilReady } from '../childProcess';
import { pingMongoServer } from '../liveness';
import { waitFor } from '../net';
import type { LocalServer } from '../servers';
import type { Watchdog } from '../watchdog';

/**
 * FerretDB with its PostgreSQL handler, on the cluster's PostgreSQL. The same binary as
 * `npm start`'s (scripts/setup-tools.sh: the handler is built in whatever package.txt says;
 * the PostgreSQL backend's own patch serves `_id` reads from the `_id_` index:
 * docs/decisions/platform.md, "FerretDB's `_id` index on PostgreSQL").
 */

export interface FerretDbOnPostgresOptions {
  binary: string;
  port: number;
  /** postgres://user:password@host:port/database */
  postgresUrl: string;
  stateDir: string;
  logFile: string;
  watchdog?: Watchdog;
}

export async function startFerretDbOnPostgres(options: FerretDbOnPostgresOptions): Promise<LocalServer> {
  mkdirSync(options.stateDir, { recursive: true });
  const proc = startProcess(
    'ferretdb',
    options.binary,
    [
      '--handler=postgresql',
      `--postgresql-url=${options.postgresUrl}`,
      `--listen-addr=127.0.0.1:${options.port}`,
      `--state-dir=${options.stateDir}`,
      '--telemetry=disable',
      `--debug-addr=${process.env.FERRETDB_DEBUG_ADDR ?? '-'}`,
      '--log-level=warn',
    ],
    { env: { ...process.env, GOGC: process.env.FERRETDB_GOGC ?? '800' }, logFile: options.logFile, watchdog: options.watchdog },
  );
  const address = `mongodb://127.0.0.1:${options.port}/`;
  await untilReady(proc, waitFor('FerretDB (PostgreSQL)', async () => (await pingMongoServer(address, 2_000), true), 60_000));
  return { process: proc, address };
}
