import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';
import type { Config } from '../config';

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
    ...extra,
  });
  await client.connect();
  return { client, db: client.db(config.MONGODB_DB) };
}

export async function pingMongo(db: Db): Promise<void> {
  await db.command({ ping: 1 });
}
