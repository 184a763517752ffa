import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { CAMPAIGN_BATCH_MAX, campaignRunDefinition, type CampaignRunInput, type SendBatchInput, type SendBatchResult } from '../../../src/campaigns/contracts';
import { startWorkflow } from '../../../src/temporal/startWorkflow';
import { testServers, uniqueName } from '../../support/env';
import { createTimeSkippingEnv } from '../../support/timeSkipping';

/**
 * Issue 28: the run plans a batch from the throttle's plan (up to CAMPAIGN_CATCH_UP_MS in the
 * past), not from the workflow task's time, so what the previous batch ran late is caught up
 * by the next rather than moving the plan later for good. The batch is a stand-in that takes
 * 300 ms and says its next slot was 100 ms after its planned start.
 */
describe('the campaign run plans from the throttle’s plan (time-skipping)', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = uniqueName('campaign-catch-up');
  const batches: SendBatchInput[] = [];

  beforeAll(async () => {
    env = await createTimeSkippingEnv();
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: testServers.workflowBundle() },
      activities: {
        async sendCampaignBatch(input: SendBatchInput): Promise<SendBatchResult> {
          batches.push(input);
          const next = Math.min(input.recipients, input.from + input.max);
          await new Promise((resolve) => setTimeout(resolve, 300));
          return { kind: 'sent', next, nextSendAtMs: input.plannedStartMs + 100, sent: next - input.from, failed: 0, skipped: 0 };
        },
        moveCampaign: () => Promise.resolve(),
        recountCampaign: () => Promise.resolve(),
        handOverLateRecounts: () => Promise.resolve(),
        skipOutstanding: (input: { recipients: number }) => Promise.resolve(input.recipients),
      },
    });
    running = worker.run();
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  /** A started campaign run of `recipients` people at 600 a minute, run to its end; its batches as the activity saw them. */
  async function runAt600(tenantId: string, recipients: number) {
    const input: CampaignRunInput = {
      campaignId: uniqueName('cmp'),
      tenantId,
      recipients,
      startAt: null,
      throttlePerMinute: 600,
      control: 'running',
      cursor: 0,
      started: true,
      nextSendAtMs: null,
    };
    const handle = await startWorkflow(env.client, campaignRunDefinition, { workflowId: input.campaignId, taskQueue, args: [input] });
    await handle.result();
    return { ours: batches.filter((b) => b.campaignId === input.campaignId), handle };
  }

  it('a batch after one that ran late is planned at the slot that batch gave, not at the workflow task’s time', async () => {
    const { ours } = await runAt600('ws_catch_up', 2 * CAMPAIGN_BATCH_MAX);
    expect(ours.map((b) => b.from)).toEqual([0, CAMPAIGN_BATCH_MAX]);
    // The first batch took 300 ms and left its next slot 100 ms after its planned start.
    expect(ours[1]!.plannedStartMs).toBe(ours[0]!.plannedStartMs + 100);
  });

  it('at 600 a minute a batch is 10 s of sends (100): 300 people take three batch activities, not six', async () => {
    const { ours, handle } = await runAt600('ws_batch_span', 300);
    expect(ours.map((b) => [b.from, b.max])).toEqual([[0, 100], [100, 100], [200, 100]]);
    const events = (await handle.fetchHistory()).events ?? [];
    // The three batches, the final count, the completion and the late recounts' hand-over.
    expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(3 + 3);
  });
});
