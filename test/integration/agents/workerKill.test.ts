import type { NativeConnection, Worker } from '@temporalio/worker';
import request from 'supertest';
import { conversationIdFor } from '../../../src/conversations';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { createOpenAiAgentModel } from '../../../src/providers/agents/openAiAgentModel';
import { buildActivityDeps } from '../../../src/worker/activityDeps';
import { createWorker } from '../../../src/worker/createWorker';
import { startTestApi, type TestApi } from '../../support/app';
import { cloudApiEnv, cloudCustomers, cloudWhatsApp, type CloudCustomers } from '../../support/cloudCustomer';
import { testServers } from '../../support/env';
import { FakeGraph } from '../../support/fakeGraph';
import { FakeOpenAi } from '../../support/fakeOpenAi';
import { CONSOLE, eventually } from '../../support/messaging';
import { startWorkerProcess } from '../../support/worker';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const APP_SECRET = 'test-app-secret';

/**
 * Exactly one reply per turn across a crash: the worker process (src/main/worker.ts, the Cloud
 * API adapter against a fake Graph API, the OpenAI-compatible model against a fake) is killed
 * with SIGKILL mid-turn, and a worker started after it finishes the turn.
 */
describe('a worker killed mid-turn', () => {
  let api: TestApi;
  let graph: FakeGraph;
  let model: FakeOpenAi;
  let ws: TestWorkspace;
  let customers: CloudCustomers;
  let child: ManagedProcess | null = null;
  let replacement: { worker: Worker; connection: NativeConnection; done: Promise<void> } | null = null;

  beforeAll(async () => {
    graph = new FakeGraph();
    model = new FakeOpenAi();
    const graphUrl = await graph.start();
    const modelUrl = await model.start();
    const env = {
      ...cloudApiEnv(graphUrl, APP_SECRET),
      AGENT_MODEL_PROVIDER: 'openai',
      AGENT_MODEL_BASE_URL: modelUrl,
      AGENT_MODEL_API_KEY: 'sk-test',
      AGENT_MODEL: 'gpt-test',
      AGENT_BURST_QUIET_MS: '300',
    };
    api = await startTestApi({ env });
    ws = await createTestWorkspace(api.db, { chatAgent: true });
    customers = await cloudCustomers(api.db, ws.senderId, APP_SECRET);
    child = await startWorkerProcess(api.config, { logName: 'killed-agent-worker', env });
    const deps = buildActivityDeps(
      { db: api.db, temporal: api.temporal, taskQueue: api.config.TEMPORAL_TASK_QUEUE },
      {
        whatsapp: cloudWhatsApp(graphUrl),
        agentModel: createOpenAiAgentModel({ baseUrl: modelUrl, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 10_000 }),
      },
    );
    // Built now, run only once the process is killed: the replacement.
    const { worker, connection } = await createWorker({ config: api.config, deps, workflowBundlePath: testServers.workflowBundle() });
    replacement = { worker, connection, done: Promise.resolve() };
  }, 180_000);
  afterAll(async () => {
    await child?.stop(1_000);
    if (replacement) {
      if (replacement.worker.getState() === 'RUNNING') replacement.worker.shutdown();
      await replacement.done;
      await replacement.connection.close();
    }
    await graph?.stop();
    await model?.stop();
    await api?.close();
  });

  const textsTo = (digits: string) => graph.requests.filter((r) => r.body.type === 'text' && r.body.to === digits);
  const kill = async () => {
    child!.child.kill('SIGKILL');
    await child!.exited;
    replacement!.done = replacement!.worker.run();
  };

  it('answers once when the worker dies during the model call', async () => {
    const from = '919811100051';
    model.answer = () => ({ text: 'Your order ships tomorrow.' });
    const killing: { done: Promise<void> | null } = { done: null };
    // The first model request: the process dies before it is answered.
    model.onRequest = () => {
      model.onRequest = null;
      killing.done = kill();
    };
    model.delayMs = 2_000;
    await customers.writes(api.server, from, `wamid.kill.${from}`, 'Where is my order?');
    await eventually(async () => killing.done !== null, 'the model call', 60_000);
    await killing.done;
    model.delayMs = 0;
    await eventually(async () => textsTo(from).length > 0, 'the reply from the replacement worker', 120_000);
    // The replacement ran the turn again (a second model request) and sent one reply.
    expect(model.requests.length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(textsTo(from)).toHaveLength(1);
    const conversationId = conversationIdFor(ws.workspaceId, 'whatsapp', from);
    const turns = (await request(api.server).get(`/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`).set(CONSOLE)).body.items as { role: string; kind: string; text: string }[];
    expect(turns.filter((t) => t.role === 'model' && t.kind === 'turn').map((t) => t.text)).toEqual(['Your order ships tomorrow.']);
  }, 240_000);
});
