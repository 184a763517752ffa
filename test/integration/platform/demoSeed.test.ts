import type { Db } from 'mongodb';
import { collections } from '../../../src/db/collections';
import { hashApiKey } from '../../../src/auth/apiKeys';
import { SCOPES } from '../../../src/domain/scopes';
import { DEMO_AGENT_VOICE, DEMO_FAQ_NAME, seedDemoWorkspace } from '../../../src/demo/seedDemoWorkspace';
import { deleteKnowledgeDocument, knowledgeToolSource, listKnowledgeDocuments } from '../../../src/knowledge';
import { agentVoiceSettings } from '../../../src/calls/agentVoiceRules';
import { toE164 } from '../../../src/contacts/contactIdentity';
import { insertIfAbsent } from '../../../src/db/insertIfAbsent';
import { openTestDb, testConfig } from '../../support/env';

describe('seedDemoWorkspace against FerretDB', () => {
  let db: Db;
  let drop: () => Promise<void>;
  const options = { workspaceId: 'ws_demo', name: 'Demo workspace', environment: 'test' as const };

  beforeEach(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });

  afterEach(async () => {
    await drop();
  });

  it('sets up the fixture a person needs: country IN, a number with a deployed agent, a sender, templates, a full-scope key', async () => {
    const seeded = await seedDemoWorkspace(db, options);
    const c = collections(db);

    const workspace = await c.workspaces.findOne({ _id: 'ws_demo' });
    expect(workspace).toMatchObject({ country: 'IN', suspended: false, demo: true, calling_country_codes: ['91'] });
    expect(workspace!.capabilities).toEqual({ voice_configured: true, tickets: true, conversations: true });
    expect(workspace!.plan.conversations_included).toBeGreaterThanOrEqual(10_000);
    expect(workspace!.plan.voice_minutes_included).toBeGreaterThanOrEqual(10_000);

    const number = await c.phoneNumbers.findOne({ tenant_id: 'ws_demo' });
    expect(number).toMatchObject({ number: seeded.phoneNumber, agent_id: seeded.agentId, active: true });
    expect(seeded.phoneNumber).toMatch(/^\+9180\d{8}$/);
    expect(await c.agents.findOne({ _id: seeded.agentId })).toMatchObject({ tenant_id: 'ws_demo' });
    expect(await c.senders.findOne({ _id: seeded.senderId })).toMatchObject({ channel: 'whatsapp', is_default: true, connected: true });

    const templates = await c.templates.find({ tenant_id: 'ws_demo', status: 'approved' }).toArray();
    expect(templates.some((t) => /\{\{1\}\}/.test(t.body))).toBe(true);
    expect(templates.some((t) => t.header?.type === 'text' && /\{\{1\}\}/.test(t.header.text))).toBe(true);
    expect(templates.some((t) => t.buttons.some((b) => b.type === 'url' && /\{\{1\}\}/.test(b.url)))).toBe(true);

    expect(seeded.apiKey).toMatch(/^ork_test_[A-Za-z0-9]{40}$/);
    const key = await c.apiKeys.findOne({ _id: hashApiKey(seeded.apiKey) });
    expect(key).toMatchObject({ tenant_id: 'ws_demo', environment: 'test', revoked_at: null, expires_at: null });
    expect([...key!.scopes].sort()).toEqual([...SCOPES].sort());
  });

  it('is idempotent: a second run with the key it gave changes nothing and returns the same key', async () => {
    const first = await seedDemoWorkspace(db, options);
    const counts = async () =>
      Promise.all(
        ['workspaces', 'agents', 'phone_numbers', 'senders', 'templates', 'api_keys', 'knowledge_documents', 'knowledge_chunks', 'knowledge_document_places'].map((n) =>
          db.collection(n).countDocuments(),
        ),
      );
    const before = await counts();

    const second = await seedDemoWorkspace(db, { ...options, knownApiKey: first.apiKey });
    expect(second).toEqual({ ...first, keyCreated: false });
    expect(await counts()).toEqual(before);
  });

  it('gives the demo agent voice settings that keep the rules, and its number a team line (issue 26)', async () => {
    const seeded = await seedDemoWorkspace(db, options);
    const c = collections(db);
    const agent = await c.agents.findOne({ _id: seeded.agentId });
    expect(agent!.voice).toEqual(DEMO_AGENT_VOICE);
    expect(agentVoiceSettings.parse(DEMO_AGENT_VOICE)).toEqual(DEMO_AGENT_VOICE);
    const number = await c.phoneNumbers.findOne({ tenant_id: 'ws_demo' });
    expect(number!.team_line).toBe(seeded.teamLine);
    expect(toE164(seeded.teamLine, 'IN')).toBe(seeded.teamLine);
    expect(seeded.teamLine).not.toBe(seeded.phoneNumber);
  });

  it('an agent and number seeded before voice settings gain the demo’s; ones set since keep theirs', async () => {
    const seeded = await seedDemoWorkspace(db, options);
    const c = collections(db);
    await c.agents.updateOne({ _id: seeded.agentId }, { $unset: { voice: '' } });
    await c.phoneNumbers.updateOne({ tenant_id: 'ws_demo' }, { $unset: { team_line: '' } });
    await seedDemoWorkspace(db, options);
    expect((await c.agents.findOne({ _id: seeded.agentId }))!.voice).toEqual(DEMO_AGENT_VOICE);
    expect((await c.phoneNumbers.findOne({ tenant_id: 'ws_demo' }))!.team_line).toBe(seeded.teamLine);

    await c.agents.updateOne({ _id: seeded.agentId }, { $set: { voice: { greeting: 'Vanakkam!' } } });
    await c.phoneNumbers.updateOne({ tenant_id: 'ws_demo' }, { $set: { team_line: null } });
    await seedDemoWorkspace(db, options);
    expect((await c.agents.findOne({ _id: seeded.agentId }))!.voice).toEqual({ greeting: 'Vanakkam!' });
    expect((await c.phoneNumbers.findOne({ tenant_id: 'ws_demo' }))!.team_line).toBeNull();
  });

  it('keeps a setting changed since the first seed', async () => {
    await seedDemoWorkspace(db, options);
    await collections(db).workspaces.updateOne({ _id: 'ws_demo' }, { $set: { country: 'AE' } });
    await seedDemoWorkspace(db, options);
    expect((await collections(db).workspaces.findOne({ _id: 'ws_demo' }))!.country).toBe('AE');
  });

  it('issues a new key when the known one was revoked', async () => {
    const first = await seedDemoWorkspace(db, options);
    await collections(db).apiKeys.updateOne({ _id: hashApiKey(first.apiKey) }, { $set: { revoked_at: new Date() } });
    const second = await seedDemoWorkspace(db, { ...options, knownApiKey: first.apiKey });
    expect(second.keyCreated).toBe(true);
    expect(second.apiKey).not.toBe(first.apiKey);
  });

  it('gives the workspace an FAQ document its agents search when asked, once: one deleted on purpose stays deleted', async () => {
    await seedDemoWorkspace(db, options);
    expect(await listKnowledgeDocuments(db, 'ws_demo')).toEqual([]);
    await seedDemoWorkspace(db, { ...options, faqDocument: true });
    const documents = await listKnowledgeDocuments(db, 'ws_demo');
    expect(documents.map((d) => [d._id, d.name, d.format])).toEqual([[expect.stringMatching(/^kdoc_[0-9a-f]{24}$/), DEMO_FAQ_NAME, 'markdown']]);
    const [tool] = await knowledgeToolSource({ db })({ tenantId: 'ws_demo', agentId: 'bot_x', channel: 'whatsapp' });
    const found = await tool!.run({ tenantId: 'ws_demo', agentId: 'bot_x', channel: 'whatsapp', runKey: 'k', now: new Date() }, { query: 'Where is my order?' });
    expect((found.output as { passages: { document_name: string; section: string }[] }).passages[0]).toMatchObject({ document_name: DEMO_FAQ_NAME, section: 'Orders › Where is my order?' });

    await seedDemoWorkspace(db, { ...options, faqDocument: true });
    expect(await listKnowledgeDocuments(db, 'ws_demo')).toEqual(documents);

    expect(await deleteKnowledgeDocument(db, 'ws_demo', documents[0]!._id, new Date())).toBe(true);
    await seedDemoWorkspace(db, { ...options, faqDocument: true });
    expect(await listKnowledgeDocuments(db, 'ws_demo')).toEqual([]);
  });

  it('gives two workspaces distinct numbers and ids', async () => {
    const a = await seedDemoWorkspace(db, options);
    const b = await seedDemoWorkspace(db, { ...options, workspaceId: 'ws_other' });
    expect(b.phoneNumber).not.toBe(a.phoneNumber);
    expect(b.agentId).not.toBe(a.agentId);
    expect(b.senderId).not.toBe(a.senderId);
  });
});

describe('insertIfAbsent', () => {
  it('keeps null and empty-array fields, and reports whether it inserted', async () => {
    const { db, drop } = await openTestDb(testConfig());
    try {
      const c = db.collection<{ _id: string; a: null; b: string[]; n: number }>('probe');
      expect(await insertIfAbsent(c, { _id: 'x', a: null, b: [], n: 1 })).toBe(true);
      expect(await insertIfAbsent(c, { _id: 'x', a: null, b: ['other'], n: 2 })).toBe(false);
      expect(await c.findOne({ _id: 'x' })).toEqual({ _id: 'x', a: null, b: [], n: 1 });
    } finally {
      await drop();
    }
  });
});
