import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { AGENT_SETUP_FRESH_MS, AgentSetups, createToolbox, modelStep, type AgentTurnDeps, type ModelRequest } from '../../../src/agents';
import type { AgentTurn } from '../../../src/agents/contracts';
import { businessToolSource, createBusinessTool, deleteBusinessTool } from '../../../src/businessTools';
import { recordTurn } from '../../../src/conversations';
import { collections } from '../../../src/db/collections';
import { createEventPublisher } from '../../../src/events/publisher';
import { knowledgeToolSource } from '../../../src/knowledge';
import { openTestDb, testConfig } from '../../support/env';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * An agent's setup (its instructions, the workspace's tools) read once and shared by the turns
 * of all its conversations for AGENT_SETUP_FRESH_MS in a process (src/agents/agentSetups.ts),
 * against FerretDB: the second conversation's turn reads none of the three, and a change is
 * seen by the first turn past the bound.
 */
describe("an agent's setup, shared by its conversations' turns", () => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;
  let n = 0;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db, { chatAgent: true });
    await createBusinessTool(db, ws.workspaceId, { name: 'look_up_order', description: 'Where an order is.', parameters: { type: 'object', properties: { order_id: { type: 'string' } } }, url: 'http://127.0.0.1:9/orders', timeout_ms: 1_000 }, true, new Date());
  });
  afterAll(async () => {
    await drop();
  });

  async function newConversationTurn(at: Date): Promise<AgentTurn> {
    const phone = `+9197${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++).padStart(2, '0')}`;
    const inbound = await recordTurn({ db, events: createEventPublisher(db, { dispatch: async () => undefined }) }, { tenantId: ws.workspaceId, channel: 'whatsapp', customer: { phone }, role: 'user', text: 'Where is my order?', at, dedupeKey: `wa-in:wamid.SETUP${n}` });
    return { tenantId: ws.workspaceId, conversationId: inbound.conversationId, senderId: ws.senderId, customerPhone: phone, workflowId: `agent-${inbound.conversationId}`, turnKey: `turn-1-${inbound.messageId}`, messageIds: [inbound.messageId], providerMessageId: `wamid.SETUP${n}`, at: at.toISOString() };
  }

  it('serves a second conversation within the bound without reading the agent, its tools or the knowledge stamp, and reads them again past it', async () => {
    const watched = await new MongoClient(testConfig().MONGODB_URL, { monitorCommands: true }).connect();
    const reads: string[] = [];
    watched.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && ['agents', 'business_tools', 'knowledge_stamps'].includes(String(e.command.find))) reads.push(String(e.command.find));
    });
    const asked: ModelRequest[] = [];
    let clock = new Date();
    const watchedDb = watched.db(db.databaseName);
    const deps: AgentTurnDeps = {
      db: watchedDb,
      events: createEventPublisher(watchedDb, { dispatch: async () => undefined }),
      whatsapp: { name: 'simulator', send: () => Promise.reject(new Error('nothing is sent in this test')) },
      deploymentChannels: ['whatsapp'],
      model: { name: 'recorder', respond: async (request) => (asked.push(request), { text: null, toolCalls: [{ callId: 'c1', name: 'look_up_order', arguments: '{}' }] }) },
      toolbox: createToolbox([knowledgeToolSource({ db: watchedDb }), businessToolSource({ db: watchedDb, allowPrivateUrls: true })]),
      now: () => clock,
      setups: new AgentSetups(),
    };
    const agentName = (await collections(db).agents.findOne({ _id: ws.agentId }))!.name;
    try {
      await modelStep(deps, { turn: await newConversationTurn(clock), agentId: ws.agentId, step: 0, items: [] });
      expect(reads.sort()).toEqual(['agents', 'business_tools', 'knowledge_stamps']);
      expect(asked[0]!.instructions).toContain(`Your name is ${agentName}.`);
      expect(asked[0]!.tools.map((t) => t.name)).toEqual(['look_up_order']);

      // Changed in the console: renamed, its tool deleted.
      await collections(db).agents.updateOne({ _id: ws.agentId }, { $set: { name: 'Renamed' } });
      expect(await deleteBusinessTool(db, ws.workspaceId, 'look_up_order')).toBe(true);

      reads.length = 0;
      clock = new Date(clock.getTime() + AGENT_SETUP_FRESH_MS);
      await modelStep(deps, { turn: await newConversationTurn(clock), agentId: ws.agentId, step: 0, items: [] });
      expect(reads).toEqual([]);
      expect(asked[1]!.instructions).toContain(`Your name is ${agentName}.`);
      expect(asked[1]!.tools.map((t) => t.name)).toEqual(['look_up_order']);

      clock = new Date(clock.getTime() + 1);
      await modelStep(deps, { turn: await newConversationTurn(clock), agentId: ws.agentId, step: 0, items: [] });
      expect(reads.sort()).toEqual(['agents', 'business_tools', 'knowledge_stamps']);
      expect(asked[2]!.instructions).toContain('Your name is Renamed.');
      expect(asked[2]!.tools).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  it('keeps no failed read', async () => {
    const setups = new AgentSetups();
    const now = new Date();
    await expect(setups.get('ws', 'agt', now, () => Promise.reject(new Error('database away')))).rejects.toThrow('database away');
    await expect(setups.get('ws', 'agt', now, async () => ({ instructions: 'read again', tools: [] }))).resolves.toEqual({ instructions: 'read again', tools: [] });
  });
});
