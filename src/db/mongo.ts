import {
  MongoClient,
  MongoDriverError,
  MongoNetworkError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  type Db,
  type MongoClientOptions,
} from 'mongodb';
import type { Config } from '../config';
import { opTallyOptions, tallyDatabaseOps } from '../observability/databaseOpTally';

/**
 * One client per process. The URL may point at the embedded FerretDB or at a real MongoDB:
 * the code keeps to what both do (single-document atomic writes, no transactions, no change
 * streams, no TTL or partial indexes; see DESIGN.md).
 */
export async function connectMongo(
  config: Pick<Config, 'MONGODB_URL' | 'MONGODB_DB'>,
  appName: string,
  extra: MongoClientOptions = {},
): Promise<{ client: MongoClient; db: Db }> {
  const client = new MongoClient(config.MONGODB_URL, {
    appName,
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    maxPoolSize: 50,
    ...opTallyOptions(),
    ...extra,
  });
  tallyDatabaseOps(client, appName);
  await client.connect();
  return { client, db: client.db(config.MONGODB_DB) };
}

export async function pingMongo(db: Db): Promise<void> {
  await db.command({ ping: 1 });
}

/**
 * The API's budget for each step of a database operation: finding a server, a new
 * connection, a free pooled connection, and the wait for an answer on an open socket (a
 * socket that waits longer is closed). A database that is down or stopped then costs a
 * request about this long and answers 503 `unavailable`, instead of hanging for as long as
 * the operating system keeps the connection. (This driver ignores the client-wide
 * `timeoutMS`, so the budget is set step by step.)
 */
export const API_DATABASE_TIMEOUT_MS = 2_000;
export const apiDatabaseOptions: MongoClientOptions = {
  serverSelectionTimeoutMS: API_DATABASE_TIMEOUT_MS,
  connectTimeoutMS: API_DATABASE_TIMEOUT_MS,
  waitQueueTimeoutMS: API_DATABASE_TIMEOUT_MS,
  socketTimeoutMS: API_DATABASE_TIMEOUT_MS,
  // A read retried after a timed-out socket would wait a second budget; the client retries
  // on the 503 instead (Retry-After).
  retryReads: false,
};

/**
 * True for the failures that mean the database did not answer (not that it refused the
 * request): no server to select, a broken or timed-out connection, no free connection in
 * time, an operation past its time (the server's MaxTimeMSExpired, code 50).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoOperationTimeoutError ||
    // No free pooled connection in time (the driver does not export this class).
    (err instanceof MongoDriverError && err.name === 'MongoWaitQueueTimeoutError') ||
    (err instanceof MongoServerError && err.code === 50)
  );
}
