import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { deliveryWorkflowId, endpointWorkflowId } from '../../../src/webhooks/contracts';
import { webhookDeliveries } from '../../../src/webhooks/deliveries';
import { systemCheckWorkflowId } from '../../../src/temporal/contracts';
import { eventsCollection } from '../../../src/events/eventStore';
import { runSystemCheck } from '../../../src/temporal/systemCheck';
import { toolPath } from '../../../src/local/paths';
import { useTestApi } from '../../support/app';
import { CONSOLE_AUTH, pollCall, scriptCallee } from '../../support/calls';
import { bearer } from '../../support/http';
import { testServers } from '../../support/env';
import { eventually } from '../../support/messaging';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhookReceiver';
import { insertCampaignDraft, insertContacts, insertVoiceCampaignDraft, zoneOpenAt } from '../../support/campaigns';
import { findCampaign } from '../../../src/campaigns/campaign';
import { dueChaseWorkflowId, duesCycleStateQuery, duesCycleWorkflowId, simulatedLinkPaymentWorkflowId } from '../../../src/dues/contracts';
import { duesCollections } from '../../../src/dues/store';
import { collections } from '../../../src/db/collections';
import { createTestWorkspace } from '../../support/workspaces';
import { signalLineEvent } from '../../../src/calls/line/signalLine';
import { callCollections } from '../../../src/calls/callStore';
import type { LineEvent } from '../../../src/calls/voiceLine';
import { callBackIdFor } from '../../../src/calls';
import { builtInToolbox, toolContext } from '../../support/agentTools';
import { conversationAgentWorkflowId } from '../../../src/agents/contracts';

/**
 * Captures one real history of each workflow type (and of the call's main paths) into
 * test/workflow/histories/, for test/workflow/workflows/replay.test.ts. Run through the public API and
 * the console against this run's dev server, with the real worker:
 *
 *   TOOLS_DIR=.tools npx jest -c test/workflow/histories/jest.capture.config.js
 *
 * Not part of `npm test` (its name does not end in .test.ts). docs/workflows.md says when to run it.
 * Each test captures a set: run one with `-t '<its name>'` to capture only that set.
 *
 * dispatchEvent.json and deliverWebhook.json stay as captured before issue 13: nothing starts
 * those workflow types any more (they are hosted for runs an earlier release left open).
 * before-issue-28/endpointDeliveries.json is a run of the endpoint workflow before its inbox
 * (no `webhook-inbox-in-mongodb` patch marker): it replays the earlier loop.
 * callWorkflow.*.json are the last runs of the call lifecycle before issue 36 (callLifecycle
 * took over): nothing starts that type any more, so they stay as captured.
 * before-call-end-in-one-step/callLifecycle.*.json are callLifecycle's runs before its end became
 * one step (`call-end-in-one-step`), and callLifecycle.*.json here its runs with that patch: nothing
 * starts callLifecycle since issue 36 §3's callLifecycleV2 (no patch, no status upserts), so they
 * stay as captured; the four callLifecycleV2.*.json are the current shape, and
 * before-placement-query/callLifecycleV2.*.json its runs placed through POST /calls while the
 * API waited with the `placement` update (its accepted and completed events in the first task).
 * simulatedCallee.json likewise: the simulated callee reports from timers by default
 * (VOICE_SIMULATOR=timers), so this run starts none; the workflow-mode tests still run it.
 */
const HISTORIES = __dirname;

describe('capture workflow histories', () => {
  const { api, ws } = useTestApi({ worker: true });
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // The first delivery attempt fails, so the delivery history holds a retry and its timer.
    receiver = await startWebhookReceiver((_request, index) => (index === 0 ? 500 : 200));
  });

  afterAll(async () => {
    await receiver?.close();
  });

  /** `running`: a long-lived workflow, saved as far as it got instead of waiting for its end. */
  async function save(file: string, workflowType: string, workflowId: string, options: { running?: boolean } = {}): Promise<void> {
    const handle = api.temporal.workflow.getHandle(workflowId);
    if (!options.running) await handle.result().catch(() => undefined);
    // The Temporal CLI writes the standard JSON history (what `temporal workflow show` and the
    // SDKs' replayers read); the SDK's own historyToJSON trips over a second protobufjs copy here.
    const { stdout } = await promisify(execFile)(
      toolPath(testServers.toolsDir(), 'temporal'),
      ['workflow', 'show', '--address', testServers.temporalAddress(), '--namespace', api.config.TEMPORAL_NAMESPACE, '--workflow-id', workflowId, '--output', 'json'],
      { env: { ...process.env, TEMPORAL_VERSION_CHECK_DISABLED: '1' }, maxBuffer: 64 * 1024 * 1024 },
    );
    const history = JSON.parse(stdout);
    mkdirSync(HISTORIES, { recursive: true });
    writeFileSync(join(HISTORIES, file), `${JSON.stringify({ workflowType, workflowId, history }, null, 1)}\n`);
  }

  async function placeCall(to: string, script: Record<string, unknown>, body: Record<string, unknown> = {}): Promise<string> {
    await scriptCallee(api, ws, to, script);
    const res = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to, ...body });
    if (res.status !== 201) throw new Error(`call refused: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.call_id as string;
  }

  it('captures the webhook endpoint workflow: a delivery retried once, a test ping, a replay', async () => {
    const hook = await request(api.server)
      .post(`/console/v1/workspaces/${ws.workspaceId}/webhooks`)
      .set(CONSOLE_AUTH)
      .send({ url: receiver.url('/hook'), event_types: ['call.started'] });
    if (hook.status !== 201) throw new Error(`endpoint refused: ${hook.status} ${JSON.stringify(hook.body)}`);
    const endpointId = hook.body.webhook_id as string;

    // A call's call.started goes to the endpoint; the receiver fails the first attempt.
    const answered = await placeCall('+919811100009', { ring_seconds: 0.5, seconds_per_turn: 0.3 });
    const started = await eventually(
      () => eventsCollection(api.db).findOne({ tenant_id: ws.workspaceId, type: 'call.started', 'data.call_id': answered }),
      'call.started of the call',
    );
    const delivered = (id: string) =>
      eventually(async () => ((await webhookDeliveries(api.db).findOne({ _id: id }))?.status === 'succeeded' ? true : null), `delivery ${id}`, 30_000);
    await delivered(deliveryWorkflowId(started._id, endpointId));
    const base = `/console/v1/workspaces/${ws.workspaceId}/webhooks/${endpointId}`;
    const ping = await request(api.server).post(`${base}/test`).set(CONSOLE_AUTH);
    const replay = await request(api.server).post(`${base}/replay`).set(CONSOLE_AUTH).send({ event_id: started._id });
    if (ping.status !== 202 || replay.status !== 202) throw new Error(`test ${ping.status}, replay ${replay.status}`);
    await delivered(ping.body.delivery_id);
    await delivered(replay.body.delivery_id);

    await save('endpointDeliveries.json', 'endpointDeliveries', endpointWorkflowId(endpointId), { running: true });
  }, 120_000);

  it('captures every other workflow type from real runs', async () => {
    // A call answered, talked and read, with capture fields.
    const answered = await placeCall(
      '+919811100001',
      { ring_seconds: 0.5, seconds_per_turn: 0.3 },
      {
        purpose: 'confirming a delivery',
        capture: { fields: [{ label: 'Is someone home?', type: 'yes_no', required: true }, { label: 'Preferred slot', type: 'choice', options: ['Morning', 'Evening'] }] },
      },
    );
    await pollCall(api, ws.key, answered, (call) => call.result.state !== 'pending');

    // A console re-read of it.
    const reread = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/calls/${answered}/reread`).set(CONSOLE_AUTH);
    if (reread.status !== 202) throw new Error(`reread refused: ${reread.status}`);

    // A call hung up through the API while in progress (an update in the history).
    const hungUp = await placeCall('+919811100002', { ring_seconds: 0.5, end: 'never' });
    await pollCall(api, ws.key, hungUp, (call) => call.status === 'in_progress');
    const hangup = await request(api.server).post(`/api/v1/calls/${hungUp}/hangup`).set(bearer(ws.key));
    if (hangup.status !== 200 || hangup.body.ended !== true) throw new Error(`hang-up: ${hangup.status} ${JSON.stringify(hangup.body)}`);
    await pollCall(api, ws.key, hungUp, (call) => call.result.state !== 'pending');

    // A busy line: never answered, decided without reading.
    const busy = await placeCall('+919811100003', { answer: false, network_outcome: 'busy', ring_seconds: 0.5 });
    await pollCall(api, ws.key, busy, (call) => call.result.state !== 'pending');

    const check = await runSystemCheck(api.temporal, api.config.TEMPORAL_TASK_QUEUE);

    await save('callLifecycleV2.answered.json', 'callLifecycleV2', answered);
    await save('callLifecycleV2.hangup.json', 'callLifecycleV2', hungUp);
    await save('callLifecycleV2.busy.json', 'callLifecycleV2', busy);
    await save('rereadCall.json', 'rereadCall', reread.body.workflow_id);
    await save('systemCheck.json', 'systemCheck', systemCheckWorkflowId(check.checkId));
  }, 120_000);

  /**
   * Issue 32's call path behind `patched('answer-reported-late')`: the media bridge's end taken
   * before the line's answer, then Twilio's answered and completed (with the answer). Capture
   * it alone with `-t 'answer was reported late'`.
   */
  it('captures a call whose answer was reported late', async () => {
    const callId = await placeCall('+919811100004', { answer: false, ring_seconds: 60 }, { ring_seconds: 60 });
    await eventually(async () => (await callCollections(api.db).calls.findOne({ _id: callId }))?.placed_at ?? null, 'placed', 20_000);
    await new Promise((r) => setTimeout(r, 3_000));
    const now = Date.now();
    const answeredAt = new Date(now - 2_000).toISOString();
    for (const event of [
      { kind: 'ended', outcome: 'setup_error', at: new Date(now - 500).toISOString() },
      { kind: 'answered', at: answeredAt },
      { kind: 'ended', outcome: 'caller_hangup', at: new Date(now - 200).toISOString(), answeredAt },
    ] as LineEvent[]) {
      await signalLineEvent(api.temporal, callId, event);
    }
    await pollCall(api, ws.key, callId, (call) => call.result.state !== 'pending');
    await save('callLifecycleV2.answerReportedLate.json', 'callLifecycleV2', callId);
  }, 60_000);

  /**
   * The campaign run through the public API: launched, paused, resumed, then through its
   * batches to completed, its late recounts handed to the workers' pass (before issue 27 it
   * stayed open a day counting them). Capture it alone with `-t 'campaign run'`.
   */
  it('captures the campaign run', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 60);
    const campaign = await insertCampaignDraft(api.db, ws.workspaceId, {
      contactIds: people.map((p) => p._id),
      schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) },
    });
    const control = async (action: string, version: number) => {
      const res = await request(api.server).post(`/api/v1/campaigns/${campaign._id}/${action}`).set(bearer(ws.key)).send({ expected_version: version });
      if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
    };
    await control('launch', 1);
    await control('pause', 2);
    await control('resume', 3);
    await eventually(async () => (await findCampaign(api.db, ws.workspaceId, campaign._id))?.status === 'completed' || undefined, 'completed', 60_000);
    await save('campaignRun.json', 'campaignRun', campaign._id);
  }, 120_000);

  /**
   * A call campaign's run: three people (one completes, one hangs up after the first answer,
   * one is busy), launched, paused and resumed, run to the end. Capture it alone with
   * `-t 'call campaign run'`.
   */
  it('captures the call campaign run', async () => {
    const people = await insertContacts(api.db, ws.workspaceId, 3);
    const fast = { ring_seconds: 0, seconds_per_turn: 0.05 };
    await scriptCallee(api, ws, people[0]!.phone!, fast);
    await scriptCallee(api, ws, people[1]!.phone!, { ...fast, turns: [{ role: 'model', text: 'Is the delivery address correct?' }, { role: 'user', text: 'Yes.' }], end: 'caller_hangup' });
    await scriptCallee(api, ws, people[2]!.phone!, { answer: false, ring_seconds: 0, network_outcome: 'busy' });
    const campaign = await insertVoiceCampaignDraft(api.db, ws.workspaceId, {
      contactIds: people.map((p) => p._id),
      agentId: ws.agentId,
      schedule: { throttle_per_minute: 600, timezone: zoneOpenAt(new Date()) },
    });
    const control = async (action: string, version: number) => {
      const res = await request(api.server).post(`/api/v1/campaigns/${campaign._id}/${action}`).set(bearer(ws.key)).send({ expected_version: version });
      if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
    };
    await control('launch', 1);
    await control('pause', 2);
    await control('resume', 3);
    await eventually(async () => (await findCampaign(api.db, ws.workspaceId, campaign._id))?.status === 'completed' || undefined, 'completed', 90_000);
    await save('voiceCampaignRun.json', 'voiceCampaignRun', campaign._id);
  });

  /**
   * The dues chase (its reminder, if the window is open now, then stopped by a payment) and a
   * subscriber's cycle asleep until its next raise. Capture it alone with `-t 'dues'`.
   */
  it('captures the dues chase and cycle', async () => {
    const created = await request(api.server)
      .post('/api/v1/apps/dues/subscribers')
      .set(bearer(ws.key))
      // Due in ten days: the cycle's first run sleeps until then (no continue-as-new yet).
      .send({ name: 'Capture', phone: '+919733300011', amount: 500, start_date: new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10) });
    if (created.status !== 201) throw new Error(`subscriber refused: ${created.status} ${JSON.stringify(created.body)}`);
    const subscriberId = created.body.subscriber_id as string;
    const cycle = api.temporal.workflow.getHandle(duesCycleWorkflowId(subscriberId));
    await eventually(async () => (await cycle.query(duesCycleStateQuery)).raiseAtMs !== null || undefined, 'the cycle to sleep', 30_000);
    const dueId = await eventually(async () => {
      const listed = await request(api.server).get('/api/v1/apps/dues/dues').query({ limit: 200 }).set(bearer(ws.key));
      const due = (listed.body.items as { due_id: string; subscriber_id: string; version: number; due_date: string }[])
        .filter((d) => d.subscriber_id === subscriberId)
        .sort((a, b) => a.due_date.localeCompare(b.due_date))[0];
      if (!due) return undefined;
      const paid = await request(api.server).post(`/api/v1/apps/dues/dues/${due.due_id}/paid`).set(bearer(ws.key)).send({ expected_version: due.version });
      return paid.status === 200 ? due.due_id : undefined;
    }, 'the first due paid', 30_000);
    await save('dueChase.json', 'dueChase', dueChaseWorkflowId(dueId));
    await save('duesCycle.json', 'duesCycle', duesCycleWorkflowId(subscriberId), { running: true });
  }, 120_000);

  /**
   * The payment-link simulator's scripted payment ("paid after N minutes"): a workspace in
   * payment-link mode at about noon in its zone, so the reminder and its link go out at once.
   * Capture it alone with `-t 'payment-link'`.
   */
  it('captures the simulated payment-link payment', async () => {
    const linkWs = await createTestWorkspace(api.db);
    const eastOfUtc = 12 - new Date().getUTCHours();
    const timezone = eastOfUtc === 0 ? 'Etc/GMT' : `Etc/GMT${eastOfUtc > 0 ? '-' : '+'}${Math.abs(eastOfUtc)}`;
    await collections(api.db).workspaces.updateOne({ _id: linkWs.workspaceId }, { $set: { timezone, installed_apps: ['dues'] } });
    const settings = await request(api.server).put(`/console/v1/workspaces/${linkWs.workspaceId}/apps/dues/settings`).set(CONSOLE_AUTH).send({ collection: { mode: 'payment_link' } });
    if (settings.status !== 200) throw new Error(`settings refused: ${settings.status} ${JSON.stringify(settings.body)}`);
    const script = await request(api.server).put(`/console/v1/workspaces/${linkWs.workspaceId}/simulator/payment-links`).set(CONSOLE_AUTH).send({ paid_after_minutes: 0.02 });
    if (script.status !== 200) throw new Error(`script refused: ${script.status} ${JSON.stringify(script.body)}`);
    const created = await request(api.server).post('/api/v1/apps/dues/subscribers').set(bearer(linkWs.key)).send({ name: 'Link capture', phone: '+919733300012', amount: 700 });
    if (created.status !== 201) throw new Error(`subscriber refused: ${created.status} ${JSON.stringify(created.body)}`);
    const linkId = await eventually(async () => {
      const due = await duesCollections(api.db).dues.findOne({ subscriber_id: created.body.subscriber_id, cycle_index: 0 });
      return due?.status === 'paid' ? due.payment_link_id ?? undefined : undefined;
    }, 'the scripted payment', 60_000);
    await save('simulatedLinkPayment.json', 'simulatedLinkPayment', simulatedLinkPaymentWorkflowId(linkId));
  }, 120_000);

  /**
   * An agent's call-back (the built-in `schedule_call_back`): a timer, then the call placed.
   * The run began 58 s before, so the call-back "in 1 minute" rings about 2 s later.
   * Capture it alone with `-t 'call-back'`.
   */
  it('captures a call-back', async () => {
    const context = toolContext(ws.workspaceId, ws.agentId, { customerPhone: '+919811100031', now: new Date(Date.now() - 58_000) });
    const scheduled = await builtInToolbox(api).run(context, 'schedule_call_back', { in_minutes: 1 });
    if (!scheduled.ok) throw new Error(`call-back refused: ${JSON.stringify(scheduled.output)}`);
    await save('callBack.json', 'callBack', callBackIdFor(ws.workspaceId, context.runKey));
  }, 60_000);

  /**
   * The chat agent's conversation: a turn answered, a hand-over asked for, a team hand-back,
   * and a turn answered again (the simulated model; the sender's agent deployed through the
   * console). Capture it alone with `-t 'chat agent'`.
   */
  it('captures the chat agent conversation', async () => {
    const deployed = await request(api.server).patch(`/console/v1/workspaces/${ws.workspaceId}/senders/${ws.senderId}`).set(CONSOLE_AUTH).send({ agent_id: ws.agentId });
    if (deployed.status !== 200) throw new Error(`deploy refused: ${deployed.status} ${JSON.stringify(deployed.body)}`);
    const from = '+919733300021';
    const inject = async (text: string) => {
      const res = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/whatsapp/inbound`).set(CONSOLE_AUTH).send({ from, text });
      if (res.status !== 201) throw new Error(`inbound refused: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.conversation_id as string;
    };
    const modelTurns = async (conversationId: string) =>
      ((await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`).set(CONSOLE_AUTH)).body.items as { role: string; kind: string }[]).filter(
        (t) => t.role === 'model' && t.kind === 'turn',
      ).length;
    const conversationId = await inject('Where is my order?');
    await eventually(async () => (await modelTurns(conversationId)) === 1, 'the first answer');
    await inject('I want to talk to a person');
    await eventually(async () => (await modelTurns(conversationId)) === 2, 'the hand-over answer');
    await eventually(async () => {
      const back = await request(api.server).post(`/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/hand-back`).set(CONSOLE_AUTH).send({ member_name: 'Priya' });
      return back.status === 202;
    }, 'the hand-back');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await inject('hello again');
    await eventually(async () => (await modelTurns(conversationId)) === 3, 'the answer after the hand-back');
    await save('conversationAgentWorkflow.json', 'conversationAgentWorkflow', conversationAgentWorkflowId(conversationId), { running: true });
  }, 120_000);
});
