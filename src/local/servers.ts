import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { startProcess, untilReady, type ManagedProcess } from './childProcess';
import { pingMongoServer } from './liveness';
import { CLI_SEARCH_ATTRIBUTE_TYPE, SEARCH_ATTRIBUTES } from '../temporal/searchAttributes';
import { EVERY_ATTRIBUTE_QUERY, registerMissingSearchAttributes } from '../temporal/registerSearchAttributes';
import { refuseBusyPort, waitFor } from './net';
import type { Watchdog } from './watchdog';

/**
 * The embedded servers: the Temporal CLI dev server and FerretDB on SQLite, both on
 * loopback with their state in a data directory. Used by `npm start` and by the test run.
 */

export interface TemporalDevServerOptions {
  binary: string;
  port: number;
  uiPort: number;
  dataDir: string;
  namespace?: string;
  logFile: string;
  /** Set by the launcher: see startProcess. */
  watchdog?: Watchdog;
}

export interface LocalServer {
  process: ManagedProcess;
  address: string;
}

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<LocalServer> {
  await refuseBusyPort(options.port, 'Temporal', 'TEMPORAL_PORT');
  await refuseBusyPort(options.uiPort, 'the Temporal UI', 'TEMPORAL_UI_PORT');
  mkdirSync(options.dataDir, { recursive: true });
  const namespace = options.namespace ?? 'default';
  const proc = startProcess(
    'temporal',
    options.binary,
    [
      'server', 'start-dev',
      '--ip', '127.0.0.1',
      '--port', String(options.port),
      '--ui-port', String(options.uiPort),
      '--db-filename', join(options.dataDir, 'temporal.db'),
      // WAL with synchronous=NORMAL: a commit is in the log before the call returns, so a
      // killed process loses nothing; only a power cut may lose the last commits (docs/decisions/README.md).
      '--sqlite-pragma', 'journal_mode=wal',
      '--sqlite-pragma', 'synchronous=normal',
      '--namespace', namespace,
      // What operators filter on in the UI (src/temporal/searchAttributes.ts). Read only when
      // the database is created: one from an earlier release gets the rest below.
      ...SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${CLI_SEARCH_ATTRIBUTE_TYPE[key.type]}`]),
      '--log-level', 'warn',
    ],
    // Nothing may call out: the server's version check is off.
    { env: { ...process.env, TEMPORAL_VERSION_CHECK_DISABLED: '1' }, logFile: options.logFile, watchdog: options.watchdog },
  );
  const address = `127.0.0.1:${options.port}`;
  await untilReady(
    proc,
    waitFor(
      'Temporal dev server',
      async () => {
        const connection = await Connection.connect({ address, connectTimeout: '1s' });
        try {
          await connection.workflowService.describeNamespace({ namespace });
          return true;
        } finally {
          await connection.close();
        }
      },
      90_000,
      250,
    ),
  );
  await untilReady(proc, ensureSearchAttributes(address, namespace));
  return { process: proc, address };
}

/**
 * Registers the search attributes a database from an earlier release lacks, then waits until
 * a visibility query naming them all is accepted: the server's caches learn new attributes a
 * few seconds after they are added, and a workflow started before would be refused.
 */
async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: '5s' });
  try {
    const added = await registerMissingSearchAttributes(connection, namespace);
    if (added.length === 0) return;
    await untilAttributesQueryable(connection, namespace, `Temporal search attributes ${added.join(', ')}`);
  } finally {
    await connection.close();
  }
}

/** Waits until the server accepts a visibility query naming every search attribute of ours. */
export async function untilAttributesQueryable(connection: Connection, namespace: string, label: string): Promise<void> {
  await waitFor(
    label,
    async () => {
      await connection.workflowService.countWorkflowExecutions({ namespace, query: EVERY_ATTRIBUTE_QUERY });
      return true;
    },
    60_000,
    500,
  );
}

export interface FerretDbOptions {
  binary: string;
  port: number;
  dataDir: string;
  logFile: string;
  /** Set by the launcher: see startProcess. */
  watchdog?: Watchdog;
}

export async function startFerretDb(options: FerretDbOptions): Promise<LocalServer> {
  await refuseBusyPort(options.port, 'FerretDB', 'FERRETDB_PORT');
  const sqliteDir = join(options.dataDir, 'ferretdb');
  const stateDir = join(options.dataDir, 'ferretdb-state');
  mkdirSync(sqliteDir, { recursive: true });
  mkdirSync(stateDir, { recursive: true });
  const proc = startProcess(
    'ferretdb',
    options.binary,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${sqliteDir}/?_pragma=synchronous(normal)`,
      `--listen-addr=127.0.0.1:${options.port}`,
      `--state-dir=${stateDir}`,
      '--telemetry=disable',
      // Off unless asked: FERRETDB_DEBUG_ADDR=127.0.0.1:8088 serves Go's /debug/pprof for profiling.
      `--debug-addr=${process.env.FERRETDB_DEBUG_ADDR ?? '-'}`,
      '--log-level=warn',
    ],
    // GOGC=800: Go's collector marked and swept about a tenth of the server's CPU at the
    // default 100; its live heap is tens of MB, so a peak of about 330 MB is cheap.
    { env: { ...process.env, GOGC: process.env.FERRETDB_GOGC ?? '800' }, logFile: options.logFile, watchdog: options.watchdog },
  );
  const address = `mongodb://127.0.0.1:${options.port}/`;
  await untilReady(
    proc,
    waitFor(
      'FerretDB',
      async () => {
        await pingMongoServer(address, 2_000);
        return true;
      },
      30_000,
    ),
  );
  return { process: proc, address };
}
