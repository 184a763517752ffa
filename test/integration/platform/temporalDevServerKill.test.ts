import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Db } from 'mongodb';
import { freePort } from '../../../src/local/net';
import { startTemporalDevServer, type LocalServer } from '../../../src/local/servers';
import { toolPath } from '../../../src/local/paths';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { systemCheckDefinition, systemCheckWorkflowId, type SystemCheckResult } from '../../../src/temporal/contracts';
import { startWorkflow } from '../../../src/temporal/startWorkflow';
import { openTestDb, testConfig, testServers, uniqueName } from '../../support/env';
import { startTestWorker } from '../../support/worker';

/**
 * The dev server runs SQLite in WAL mode with synchronous=NORMAL (src/local/servers.ts):
 * every commit is in the log before Temporal answers, so a process crash loses nothing it
 * acknowledged. A dev server of its own is killed with SIGKILL right after acknowledging work
 * and restarted on the same database file.
 */
describe('a Temporal dev server killed with SIGKILL', () => {
  const dataDir = join(testServers.runDir(), uniqueName('devserver-kill'));
  const dbFile = join(dataDir, 'temporal.db');
  let server: LocalServer | null = null;
  let db: Db;
  let drop: () => Promise<void>;

  const start = async (): Promise<{ server: LocalServer; client: Client }> => {
    const started = await startTemporalDevServer({
      binary: toolPath(testServers.toolsDir(), 'temporal'),
      port: await freePort(),
      uiPort: await freePort(),
      dataDir,
      logFile: join(dataDir, 'temporal.log'),
    });
    server = started;
    return { server: started, client: new Client({ connection: await Connection.connect({ address: started.address }) }) };
  };

  const runWorker = async (address: string, taskQueue: string, client: Client, until: () => Promise<void>) => {
    const worker = await startTestWorker({ address, taskQueue, deps: buildActivityDeps({ db, temporal: client, taskQueue }) });
    try {
      await until();
    } finally {
      await worker.close();
    }
  };

  const startCheck = (client: Client, taskQueue: string, checkId: string) =>
    startWorkflow(client, systemCheckDefinition, {
      taskQueue,
      workflowId: systemCheckWorkflowId(checkId),
      args: [{ checkId, requestedAt: '2026-11-21T10:00:00.000Z' }],
    });

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });

  afterAll(async () => {
    await server?.process.stop(2_000);
    await drop?.();
  });

  it('keeps every acknowledged start and every completed workflow across the kill and a restart', async () => {
    const taskQueue = uniqueName('tq');
    const completedIds = Array.from({ length: 5 }, (_, i) => `done-${i}`);
    const pendingIds = Array.from({ length: 20 }, (_, i) => `pending-${i}`);

    const first = await start();
    const results = new Map<string, SystemCheckResult>();
    await runWorker(first.server.address, taskQueue, first.client, async () => {
      for (const id of completedIds) results.set(id, (await (await startCheck(first.client, taskQueue, id)).result()) as SystemCheckResult);
    });
    // Acknowledged starts with no worker polling: they exist only in the server's database.
    await Promise.all(pendingIds.map((id) => startCheck(first.client, taskQueue, id)));
    first.server.process.child.kill('SIGKILL');
    await first.server.process.exited;
    await first.client.connection.close();

    // The pragmas are in force: the database header says WAL (read and write versions 2).
    const header = readFileSync(dbFile).subarray(18, 20);
    expect([...header]).toEqual([2, 2]);

    const second = await start();
    for (const id of completedIds) {
      const handle = second.client.workflow.getHandle(systemCheckWorkflowId(id));
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      expect(await handle.result()).toEqual(results.get(id));
    }
    for (const id of pendingIds) {
      expect((await second.client.workflow.getHandle(systemCheckWorkflowId(id)).describe()).status.name).toBe('RUNNING');
      await expect(startCheck(second.client, taskQueue, id)).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    }
    // And the work carries on where it stopped.
    await runWorker(second.server.address, taskQueue, second.client, async () => {
      await Promise.all(pendingIds.map((id) => second.client.workflow.getHandle(systemCheckWorkflowId(id)).result()));
    });
    for (const id of pendingIds) {
      expect((await second.client.workflow.getHandle(systemCheckWorkflowId(id)).describe()).status.name).toBe('COMPLETED');
    }
    await second.client.connection.close();
  }, 180_000);
});
