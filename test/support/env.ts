import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { loadConfig, type Config } from '../../src/config';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run tests through jest with test/support/globalSetup.ts`);
  return value;
}

export const testServers = {
  temporalAddress: () => required('TEST_TEMPORAL_ADDRESS'),
  mongoUrl: () => required('TEST_MONGODB_URL'),
  workflowBundle: () => required('TEST_WORKFLOW_BUNDLE'),
  toolsDir: () => required('TEST_TOOLS_DIR'),
  runDir: () => required('TEST_RUN_DIR'),
};

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/**
 * A configuration against this run's servers with a database and task queue of its own,
 * so test files running side by side never see each other's data or tasks.
 */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    MONGODB_URL: testServers.mongoUrl(),
    MONGODB_DB: uniqueName('test'),
    TEMPORAL_ADDRESS: testServers.temporalAddress(),
    TEMPORAL_TASK_QUEUE: uniqueName('tq'),
    CONSOLE_TOKEN: 'test-console-token-0123456789',
    ...overrides,
  });
}

export async function openTestDb(config: Config): Promise<{ client: MongoClient; db: Db; drop: () => Promise<void> }> {
  const client = await new MongoClient(config.MONGODB_URL).connect();
  const db = client.db(config.MONGODB_DB);
  return {
    client,
    db,
    drop: async () => {
      await db.dropDatabase();
      await client.close();
    },
  };
}
