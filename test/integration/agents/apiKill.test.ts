import { createHmac } from 'node:crypto';
import { conversationIdFor } from '../../../src/conversations';
import { collections } from '../../../src/db/collections';
import type { ManagedProcess } from '../../../src/local/childProcess';
import { createOpenAiAgentModel } from '../../../src/providers/agents/openAiAgentModel';
import { CloudWhatsAppProvider } from '../../../src/providers/whatsapp/cloud';
import { startApiProcess } from '../../support/apiProcess';
import { startTestApi, type TestApi } from '../../support/app';
import { FakeGraph } from '../../support/fakeGraph';
import { FakeOpenAi } from '../../support/fakeOpenAi';
import { CONSOLE, eventually } from '../../support/messaging';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

const APP_SECRET = 'test-app-secret';

/**
 * Exactly one reply per turn when the API dies: the API process (src/main/api.ts, the Cloud API
 * webhook) is killed with SIGKILL while the turn it started is in flight (the model's answer held
 * by the fake), the turn finishes on the worker with no API running, and after a new API process
 * starts, the provider redelivering the same webhook makes no second reply, no second model call
 * and no second customer turn.
 */
describe('the API killed mid-turn', () => {
  let test: TestApi;
  let graph: FakeGraph;
  let model: FakeOpenAi;
  let ws: TestWorkspace;
  let senderDigits: string;
  let env: Record<string, string>;
  let api: { process: ManagedProcess; url: string } | null = null;

  beforeAll(async () => {
    graph = new FakeGraph();
    model = new FakeOpenAi();
    const graphUrl = await graph.start();
    const modelUrl = await model.start();
    env = {
      WHATSAPP_PROVIDER: 'cloud',
      WHATSAPP_CLOUD_BASE_URL: graphUrl,
      WHATSAPP_CLOUD_ACCESS_TOKEN: 'graph-token',
      WHATSAPP_CLOUD_PHONE_NUMBER_ID: '1001',
      WHATSAPP_CLOUD_APP_SECRET: APP_SECRET,
      AGENT_BURST_QUIET_MS: '300',
    };
    // The database, the workspace, the console reads and the worker (over the fakes) are the
    // test's; the webhooks go to the API process, the one that is killed.
    test = await startTestApi({
      env,
      worker: {
        whatsapp: new CloudWhatsAppProvider({ baseUrl: graphUrl, accessToken: 'graph-token', phoneNumberId: '1001', phoneNumberIds: {}, timeoutMs: 10_000 }),
        agentModel: createOpenAiAgentModel({ baseUrl: modelUrl, apiKey: 'sk-test', model: 'gpt-test', timeoutMs: 60_000 }),
      },
    });
    ws = await createTestWorkspace(test.db, { chatAgent: true });
    senderDigits = (await collections(test.db).senders.findOne({ _id: ws.senderId }))!.phone.slice(1);
    api = await startApiProcess(test.config, { logName: 'killed-agent-api', env });
  }, 180_000);
  afterAll(async () => {
    await api?.process.stop(1_000);
    await graph?.stop();
    await model?.stop();
    await test?.close();
  });

  /** The Cloud API's webhook for one inbound text, signed with the app secret; the same bytes each time for one id, as a redelivery is. */
  function webhook(from: string, messageId: string, text: string, at: number): { raw: string; signature: string } {
    const payload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: senderDigits, phone_number_id: '1001' },
                contacts: [{ profile: { name: 'Kiran' }, wa_id: from }],
                messages: [{ from, id: messageId, timestamp: String(Math.floor(at / 1000)), type: 'text', text: { body: text } }],
              },
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(payload);
    return { raw, signature: `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}` };
  }
  async function deliver(hook: { raw: string; signature: string }): Promise<number> {
    const res = await fetch(`${api!.url}/webhooks/whatsapp`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Hub-Signature-256': hook.signature }, body: hook.raw });
    await res.arrayBuffer();
    return res.status;
  }
  const textsTo = (digits: string) => graph.requests.filter((r) => r.body.type === 'text' && r.body.to === digits).map((r) => (r.body.text as { body: string }).body);

  it('answers once, and a webhook redelivered to the restarted API makes no second reply', async () => {
    const from = '919811100061';
    const first = webhook(from, 'wamid.apikill.1', 'Where is my order?', Date.now());
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
    expect(await deliver(webhook(from, 'wamid.apikill.2', 'And the refund?', Date.now()))).toBe(200);
    await eventually(async () => textsTo(from).length >= 2, 'the reply to the second message', 60_000);

    expect(textsTo(from)).toEqual(['Your order ships tomorrow.', 'Refunds take 5 days.']);
    // One model call per turn: the redelivery started no turn.
    expect(model.requests).toHaveLength(2);
    const conversationId = conversationIdFor(ws.workspaceId, 'whatsapp', from);
    const transcript = await fetch(`${api.url}/console/v1/workspaces/${ws.workspaceId}/conversations/${conversationId}/transcript`, { headers: CONSOLE });
    expect(transcript.status).toBe(200);
    const turns = ((await transcript.json()) as { items: { role: string; kind: string; text: string }[] }).items.filter((t) => t.kind === 'turn');
    expect(turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'Where is my order?'],
      ['model', 'Your order ships tomorrow.'],
      ['user', 'And the refund?'],
      ['model', 'Refunds take 5 days.'],
    ]);
  }, 300_000);
});
