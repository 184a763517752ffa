import request from 'supertest';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { campaignRunWorkflowId } from '../../../src/campaigns/contracts';
import { lateRecountsCollection, lateRecountOffsetMs, recountDueCampaigns } from '../../../src/campaigns/whatsapp/lateRecounts';
import { campaignCounters } from '../../../src/campaigns/progress';
import { advanceRecipients } from '../../../src/campaigns/recipients';
import { readRecipientBatch } from '../../../src/campaigns/staging';
import { findCampaign } from '../../../src/campaigns/campaign';
import { PhoneNumber, ResourceKind, ResourceName, ResourceStatus, WorkspaceId } from '../../../src/temporal/searchAttributes';
import { useTestApi } from '../../support/app';
import { pollCall, scriptCallee } from '../../support/calls';
import { CountingWhatsAppProvider, insertCampaignDraft, insertContacts, zoneOpenAt } from '../../support/campaigns';
import { bearer } from '../../support/http';
import { eventually } from '../../support/messaging';

/**
 * What an operator finds in the Temporal UI (docs/workflows.md "Finding a workflow in the
 * Temporal UI"), asked of the real dev server with the UI's own visibility queries: a
 * workspace's running campaigns, a call by its number, a status as it changes, the memo's
 * name; and a completed campaign's run reads Completed at once, its late statuses still
 * counted afterwards. The dev server's visibility store catches up a moment after each
 * change, so each query is asked again until it answers or a deadline passes.
 */
describe('operators in the Temporal UI', () => {
  const provider = new CountingWhatsAppProvider();
  const { api, ws } = useTestApi({ worker: { whatsapp: provider } });

  /** The executions a visibility query lists, once `ready` holds for them. */
  async function listed(query: string, ready: (found: WorkflowExecutionInfo[]) => boolean): Promise<WorkflowExecutionInfo[]> {
    return eventually(
      async () => {
        const found: WorkflowExecutionInfo[] = [];
        for await (const execution of api.temporal.workflow.list({ query })) found.push(execution);
        return ready(found) ? found : null;
      },
      `visibility: ${query}`,
      30_000,
    );
  }

  const post = (path: string, body: Record<string, unknown>) => request(api.server).post(path).set(bearer(ws.key)).send(body);

  it("lists a workspace's running campaigns with their name, and follows a pause in ResourceStatus", async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 2);
    // Starts tomorrow: the run stays open (scheduled) through the test.
    const campaign = await insertCampaignDraft(api.db, ws.workspaceId, {
      name: 'Diwali offers',
      contactIds: people.map((p) => p._id),
      schedule: { start_at: new Date(Date.now() + 86_400_000), throttle_per_minute: 60, timezone: 'UTC' },
    });
    expect((await post(`/api/v1/campaigns/${campaign._id}/launch`, { expected_version: 1 })).status).toBe(200);

    const running = `WorkspaceId = '${ws.workspaceId}' AND ResourceKind = 'campaign' AND ExecutionStatus = 'Running'`;
    const [found] = await listed(running, (f) => f.some((e) => e.workflowId === campaign._id));
    expect(found).toMatchObject({ workflowId: campaignRunWorkflowId(campaign._id), type: 'campaignRun', status: { name: 'RUNNING' }, memo: { name: 'Diwali offers' } });
    expect(found!.typedSearchAttributes.get(WorkspaceId)).toBe(ws.workspaceId);
    expect(found!.typedSearchAttributes.get(ResourceKind)).toBe('campaign');
    expect(found!.typedSearchAttributes.get(ResourceStatus)).toBe('scheduled');
    // The list can show the name beside the id (issue 35 §13): a column, and a query by name.
    expect(found!.typedSearchAttributes.get(ResourceName)).toBe('Diwali offers');
    await listed(`ResourceName = 'Diwali offers' AND WorkspaceId = '${ws.workspaceId}'`, (f) => f.some((e) => e.workflowId === campaign._id));
    expect(await api.temporal.workflow.getHandle(found!.workflowId).describe().then((d) => d.staticSummary())).toBe('WhatsApp campaign “Diwali offers” to 2 people');

    expect((await post(`/api/v1/campaigns/${campaign._id}/pause`, { expected_version: 2 })).status).toBe(200);
    await listed(`WorkspaceId = '${ws.workspaceId}' AND ResourceStatus = 'paused'`, (f) => f.some((e) => e.workflowId === campaign._id));

    expect((await post(`/api/v1/campaigns/${campaign._id}/cancel`, { expected_version: 3 })).status).toBe(200);
    await listed(`WorkspaceId = '${ws.workspaceId}' AND ResourceKind = 'campaign' AND ResourceStatus = 'cancelled' AND ExecutionStatus = 'Completed'`, (f) =>
      f.some((e) => e.workflowId === campaign._id),
    );
  });

  it('finds a call by its number, named by its person and number, with its status as the call moves in its current details', async () => {
    const to = '+919811127027';
    await scriptCallee(api, ws, to, { ring_seconds: 0.5, seconds_per_turn: 0.2 });
    const res = await post('/api/v1/calls', { to: '09811127027', details: { Name: 'Kavya Iyer' }, purpose: 'a delivery tomorrow' });
    expect(res.status).toBe(201);
    const callId = res.body.call_id as string;
    await pollCall(api, ws.key, callId, (call) => call.result.state !== 'pending');

    const [call] = await listed(`PhoneNumber = '${to}' AND ResourceKind = 'call' AND WorkspaceId = '${ws.workspaceId}' AND WorkflowType = 'callLifecycleV2'`, (f) =>
      f.some((e) => e.status.name === 'COMPLETED'),
    );
    expect(call).toMatchObject({ workflowId: callId, memo: { name: `Kavya Iyer (${to})` } });
    expect(call!.typedSearchAttributes.get(ResourceName)).toBe(`Kavya Iyer (${to})`);
    await listed(`ResourceName STARTS_WITH 'Kavya' AND ResourceKind = 'call' AND WorkspaceId = '${ws.workspaceId}'`, (f) => f.some((e) => e.workflowId === callId));
    expect(await api.temporal.workflow.getHandle(callId).describe().then((d) => d.staticSummary())).toBe(`Call to Kavya Iyer (${to}) about a delivery tomorrow`);
    expect(call!.typedSearchAttributes.get(PhoneNumber)).toBe(to);
    // The call's status is its current details (no upsert, issue 36 §3), and no stale ResourceStatus is left.
    expect(call!.typedSearchAttributes.get(ResourceStatus)).toBeUndefined();
    const metadata = await api.temporal.workflow.getHandle(callId).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe('status: completed');
  });

  it('a completed campaign reads Completed at once; late statuses are still counted, by the workers’ pass', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 3);
    const campaign = await insertCampaignDraft(api.db, ws.workspaceId, {
      contactIds: people.map((p) => p._id),
      schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) },
    });
    expect((await post(`/api/v1/campaigns/${campaign._id}/launch`, { expected_version: 1 })).status).toBe(200);
    await eventually(async () => (await findCampaign(api.db, ws.workspaceId, campaign._id))?.status === 'completed' || undefined, 'the campaign to complete', 60_000);

    // The run ends with the campaign (before: it stayed open a day, counting late statuses).
    const handle = api.temporal.workflow.getHandle(campaignRunWorkflowId(campaign._id));
    await handle.result();
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    await listed(`WorkspaceId = '${ws.workspaceId}' AND ResourceKind = 'campaign' AND ResourceStatus = 'completed' AND ExecutionStatus = 'Completed'`, (f) =>
      f.some((e) => e.workflowId === campaign._id),
    );

    // Handed over: the first late recount a minute after the run's end.
    const handed = (await lateRecountsCollection(api.db).findOne({ campaign_id: campaign._id }))!;
    expect(handed).toMatchObject({ tenant_id: ws.workspaceId, recipients: 3, step: 0 });
    expect(handed.due_at.getTime() - handed.ended_at.getTime()).toBe(60_000);
    expect(await campaignCounters(api.db, campaign._id)).toEqual({ sent: 3, delivered: 0, read: 0, failed: 0, skipped: 0 });

    // A delivery and a read arrive after the run ended.
    const [first, second] = await readRecipientBatch(api.db, campaign._id, 0, 2);
    await advanceRecipients(api.db, [
      { id: first!._id, to: 'delivered', at: new Date() },
      { id: second!._id, to: 'read', at: new Date() },
    ]);
    // Not due yet: not counted (a pass may take the first test's cancelled campaign, handed over earlier).
    await recountDueCampaigns(api.db, new Date(handed.ended_at.getTime() + 59_000));
    expect(await campaignCounters(api.db, campaign._id)).toMatchObject({ delivered: 0, read: 0 });
    expect(await lateRecountsCollection(api.db).findOne({ campaign_id: campaign._id })).toMatchObject({ step: 0 });

    // Due: counted (a funnel: the read one is delivered too), and the next recount is 15 minutes later.
    await recountDueCampaigns(api.db, new Date(handed.ended_at.getTime() + 60_000));
    expect(await campaignCounters(api.db, campaign._id)).toEqual({ sent: 3, delivered: 2, read: 1, failed: 0, skipped: 0 });
    expect(await lateRecountsCollection(api.db).findOne({ campaign_id: campaign._id })).toMatchObject({ step: 1, due_at: new Date(handed.ended_at.getTime() + lateRecountOffsetMs(1)) });

    // Every later step in turn; after the last (about 31 hours on) the campaign is let go.
    for (let step = 1; step < 5; step++) await recountDueCampaigns(api.db, new Date(handed.ended_at.getTime() + lateRecountOffsetMs(step)));
    expect(await lateRecountsCollection(api.db).findOne({ campaign_id: campaign._id })).toBeNull();
    expect(await campaignCounters(api.db, campaign._id)).toEqual({ sent: 3, delivered: 2, read: 1, failed: 0, skipped: 0 });
  });
});
