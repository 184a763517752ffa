import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import type { Config } from '../../../src/config';
import { collections } from '../../../src/db/collections';
import { connectTemporalClient } from '../../../src/temporal/client';
import { runSystemCheck } from '../../../src/temporal/systemCheck';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { createSystemActivities } from '../../../activities/system';
import { systemCheckDefinition, systemCheckWorkflowId } from '../../../src/temporal/contracts';
import { startWorkflow } from '../../../src/temporal/startWorkflow';
import { openTestDb, testConfig } from '../../support/env';
import { startTestWorker, type TestWorker } from '../../support/worker';

describe('the system check round trip on the real dev server and FerretDB', () => {
  let config: Config;
  let db: Db;
  let drop: () => Promise<void>;
  let client: Client;
  let worker: TestWorker;

  beforeAll(async () => {
    config = testConfig();
    ({ db, drop } = await openTestDb(config));
    client = await connectTemporalClient(config);
    worker = await startTestWorker({ taskQueue: config.TEMPORAL_TASK_QUEUE, deps: buildActivityDeps({ db, temporal: client, taskQueue: config.TEMPORAL_TASK_QUEUE }) });
  });

  afterAll(async () => {
    await worker?.close();
    await client?.connection.close();
    await drop?.();
  });

  it('starts a workflow whose activity writes MongoDB, and the write reads back', async () => {
    const result = await runSystemCheck(client, config.TEMPORAL_TASK_QUEUE);

    const doc = await collections(db).systemChecks.findOne({ _id: result.checkId });
    expect(doc).not.toBeNull();
    expect(doc!.workflow_id).toBe(systemCheckWorkflowId(result.checkId));
    expect(doc!.recorded_at.toISOString()).toBe(result.recordedAt);
    expect(doc!.attempts).toBe(1);

    const history = await client.workflow.getHandle(systemCheckWorkflowId(result.checkId)).fetchHistory();
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name)).toEqual(['recordSystemCheck']);
  });

  it('refuses a second workflow with the same id: the engine deduplicates', async () => {
    const result = await runSystemCheck(client, config.TEMPORAL_TASK_QUEUE);
    await expect(
      startWorkflow(client, systemCheckDefinition, {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: systemCheckWorkflowId(result.checkId),
        args: [{ checkId: result.checkId, requestedAt: new Date().toISOString() }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    ).rejects.toThrow(/already started|exists/i);
  });
});

describe('recordSystemCheck', () => {
  it('changes nothing but the attempt count when retried', async () => {
    const config = testConfig();
    const { db, drop } = await openTestDb(config);
    try {
      let clock = new Date('2026-11-21T10:00:00.000Z');
      const system = createSystemActivities({ db, now: () => clock });
      const recordSystemCheck = (...args: Parameters<typeof system.recordSystemCheck>) => system.recordSystemCheck(...args);
      const input = { checkId: 'check-1', requestedAt: '2026-11-21T09:59:59.000Z', workflowId: 'system-check-check-1' };

      const first = await recordSystemCheck(input);
      clock = new Date('2026-11-21T10:05:00.000Z');
      const second = await recordSystemCheck(input);

      expect(second).toEqual(first);
      expect(first).toEqual({ checkId: 'check-1', recordedAt: '2026-11-21T10:00:00.000Z' });
      const docs = await collections(db).systemChecks.find({}).toArray();
      expect(docs).toHaveLength(1);
      expect(docs[0]).toMatchObject({ _id: 'check-1', attempts: 2, requested_at: new Date(input.requestedAt) });
    } finally {
      await drop();
    }
  });
});
