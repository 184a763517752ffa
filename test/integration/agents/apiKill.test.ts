import { WorkflowNotFoundError } from '@temporalio/client';
import request from 'supertest';
import { conversationAgentWorkflowId } from '../../../src/agents/contracts';
import { conversationIdFor } from '../../../src/conversations';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { createOpenAiAgentModel } from '../../../src/providers/agents/openAiAgentModel';
import { startApiProcess } from '../../support/apiProcess';
import { startTestApi, type TestApi } from '../../support/app';
import { cloudApiEnv, cloudCustomers, cloudWhatsApp, type CloudCustomers, type SignedWebhook } from '../../support/cloudCustomer';
import { FakeGraph } from '../../support/fakeGraph';
import { FakeOpenAi } from '../../support/fakeOpenAi';
import { StallingProxy } from '../../support/stallingProxy';
import { CONSOLE, eventually } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const APP_SECRET = 'test-app-secret';

/**
 * Exactly one reply per turn when the API dies: the API process (src/main/api.ts, the Cloud API
 * webhook) is killed with SIGKILL while the turn it started is in flight (the model's answer held
 * by the fake), the turn finishes on the worker with no API running, and after a new API process
 * starts, the provider redelivering the same webhook makes no second reply, no second model call
 * and no second customer turn. And killed before the turn began (the message recorded, the
 * workflow's signal not yet through): the webhook was never answered, so the provider delivers it
 * again, and that delivery starts the turn that answers once.
 */
describe('the API killed mid-turn', () => {
  let test: TestApi;
  let graph: FakeGraph;
  let model: FakeOpenAi;
  let ws: TestWorkspace;
  let customers: CloudCustomers;
  let env: Record<string, string>;
  let api: { process: ManagedProcess; url: string } | null = null;

  beforeAll(async () => {
    graph = new FakeGraph();
    model = new FakeOpenAi();
    const graphUrl = await graph.start();
    const modelUrl = await model.start();
    env = { ...cloudApiEnv(graphUrl, APP_SECRET), AGENT_BURST_QUIET_MS: '300' };
    // The database, the workspace, the console reads and the worker (over the fakes) are the
    // test's; the webhooks go to the API process, the one that is killed.
    test = await startTestApi({
      env,
      worker: {
        whatsapp: cloudWhatsApp(graphUrl),
        agentModel: createOpenAiAgentModel({ baseUrl: modelUrl, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 60_000 }),
      },
    });
    ws = await createTestWorkspace(test.db, { chatAgent: true });
    customers = await cloudCustomers(test.db, ws.senderId, APP_SECRET);
    api = await startApiProcess(test.config, { logName: 'killed-agent-api', env });
  }, 180_000);
  afterAll(async () => {
    await api?.process.stop(1_000);
    await graph?.stop();
    await model?.stop();
    await test?.close();
  });

  /** To the API process by default; a webhook delivered again is the same bytes, as a redelivery is. */
  const deliver = (hook: SignedWebhook, to = api!) => customers.deliver(hook, to.url);
  const textsTo = (digits: string) => graph.requests.filter((r) => r.body.type === 'text' && r.body.to === digits).map((r) => (r.body.text as { body: string }).body);

  it('answers once, and a webhook redelivered to the restarted API makes no second reply', async () => {
    const from = '919811100061';
    const first = customers.text(from, 'wamid.apikill.1', 'Where is my order?', Date.now());
    let release!: () => void;
    model.hold = new Promise<void>((resolve) => (release = resolve));
    model.answer = (req) => ({ text: JSON.stringify(req.body).includes('And the refund?') ? 'Refunds take 5 days.' : 'Your order ships tomorrow.' });

    expect(await deliver(first)).toBe(200);
    // The turn is in flight: the worker's model call waits on the fake.
    await eventually(async () => model.requests.length === 1, 'the model call', 60_000);
    api!.process.child.kill('SIGKILL');
    expect(await api!.process.exited).toBe('SIGKILL');
    release();
    model.hold = null;
    // The turn finishes with no API running.
    await eventually(async () => textsTo(from).length === 1, 'the reply while the API is down', 60_000);

    api = await startApiProcess(test.config, { logName: 'restarted-agent-api', env });
    // The provider redelivers the webhook it sent before the crash (same id, same bytes).
    expect(await deliver(first)).toBe(200);
    // The customer writes again: its reply comes after the redelivered message was taken (the
    // workflow handles signals in order), so what was sent by then is all the redelivery made.
    expect(await deliver(customers.text(from, 'wamid.apikill.2', 'And the refund?', Date.now()))).toBe(200);
    await eventually(async () => textsTo(from).length >= 2, 'the reply to the second message', 60_000);

    expect(textsTo(from)).toEqual(['Your order ships tomorrow.', 'Refunds take 5 days.']);
    // One model call per turn: the redelivery started no turn.
    expect(model.requests).toHaveLength(2);
    const conversationId = conversationIdFor(ws.workspaceId, 'whatsapp', from);
    const transcript = await fetch(`${api.url}/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`, { headers: CONSOLE });
    expect(transcript.status).toBe(200);
    const turns = ((await transcript.json()) as { items: { role: string; kind: string; text: string }[] }).items.filter((t) => t.kind === 'turn');
    // Each role's turns in order (the transcript orders by time, and a webhook's time is whole
    // seconds: a customer's next message can sort before a reply made in the same second).
    expect(['user', 'model'].map((role) => turns.filter((t) => t.role === role).map((t) => t.text))).toEqual([
      ['Where is my order?', 'And the refund?'],
      ['Your order ships tomorrow.', 'Refunds take 5 days.'],
    ]);
  }, 300_000);

  it('answers once when the API dies between recording the message and signalling the workflow, once the provider redelivers', async () => {
    const from = '919811100062';
    const hook = customers.text(from, 'wamid.apikill.3', 'Is my parcel late?', Date.now());
    model.answer = () => ({ text: 'It arrives today.' });
    const before = model.requests.length;
    const [host, port] = test.config.TEMPORAL_ADDRESS.split(':');
    const proxy = new StallingProxy({ host: host!, port: Number(port) });
    const stalling = await startApiProcess({ ...test.config, TEMPORAL_ADDRESS: await proxy.start() }, { logName: 'stalled-agent-api', env });
    try {
      // Temporal stops hearing this API: the webhook records the message, then hangs on the signal.
      proxy.stall();
      const unanswered = deliver(hook, stalling).then(
        (status) => `answered ${status}`,
        () => 'no answer',
      );
      const conversationId = conversationIdFor(ws.workspaceId, 'whatsapp', from);
      const transcriptPath = `/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`;
      await eventually(async () => {
        const res = await request(test.server).get(transcriptPath).set(CONSOLE);
        return res.status === 200 && (res.body.items as { role: string }[]).some((t) => t.role === 'user');
      }, 'the recorded message', 60_000);
      stalling.process.child.kill('SIGKILL');
      expect(await stalling.process.exited).toBe('SIGKILL');
      // The provider got no 200 (so it delivers again), and no turn began.
      expect(await unanswered).toBe('no answer');
      await expect(test.temporal.workflow.getHandle(conversationAgentWorkflowId(conversationId)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
      expect(model.requests.length).toBe(before);

      // The redelivery, to the running API, records nothing twice and starts the turn.
      expect(await deliver(hook)).toBe(200);
      await eventually(async () => textsTo(from).length > 0, 'the reply after the redelivery', 60_000);
      // A second redelivery is taken as the same message: by the time the next message's turn is
      // answered, it has made no reply of its own.
      expect(await deliver(hook)).toBe(200);
      model.answer = () => ({ text: 'You are welcome.' });
      expect(await deliver(customers.text(from, 'wamid.apikill.4', 'Thanks!', Date.now()))).toBe(200);
      await eventually(async () => textsTo(from).length >= 2, 'the reply to the next message', 60_000);
      expect(textsTo(from)).toEqual(['It arrives today.', 'You are welcome.']);
      expect(model.requests.length - before).toBe(2);
      const turns = ((await request(test.server).get(transcriptPath).set(CONSOLE)).body.items as { role: string; kind: string; text: string }[]).filter((t) => t.kind === 'turn');
      expect(['user', 'model'].map((role) => turns.filter((t) => t.role === role).map((t) => t.text))).toEqual([
        ['Is my parcel late?', 'Thanks!'],
        ['It arrives today.', 'You are welcome.'],
      ]);
    } finally {
      await stalling.process.stop(1_000);
      await proxy.stop();
    }
  }, 300_000);
});
