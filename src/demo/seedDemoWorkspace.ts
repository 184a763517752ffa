import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { collections, type TemplateDoc, type WorkspaceDoc } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { generateApiKey, hashApiKey, keyRefusal, type KeyEnvironment } from '../auth';
import { newId } from '../domain/ids';
import { SCOPES } from '../domain/scopes';
import type { AgentVoice } from '../calls';
import { seedKnowledgeDocument } from '../knowledge';

/** The workspace `npm start` seeds and prints a key for. */
export const DEMO_WORKSPACE_ID = 'ws_demo';

export interface DemoSeedOptions {
  workspaceId: string;
  name: string;
  environment: KeyEnvironment;
  /** A key handed out earlier; reused when it still works, so restarts print the same key. */
  knownApiKey?: string | null;
  now?: Date;
  /** Deploy the demo agent to the sender as its chat agent (default true; tests of other behaviour leave it off). */
  chatAgent?: boolean;
  /**
   * Give the workspace the demo FAQ as a knowledge document, once (default false: every test
   * workspace is a seeded one, and a document changes what its agents are offered; `npm start`
   * asks for it).
   */
  faqDocument?: boolean;
}

export interface DemoSeedResult {
  workspaceId: string;
  apiKey: string;
  keyCreated: boolean;
  agentId: string;
  phoneNumber: string;
  /** Where the demo agent hands a caller to a person. */
  teamLine: string;
  senderId: string;
}

/**
 * The demo agent on a real line: an Indian business's assistant for orders, deliveries and
 * payments, in Indian English, handing over to the team line when asked for a person.
 */
export const DEMO_AGENT_VOICE: AgentVoice = {
  persona: "a friendly, concise phone assistant for the demo business's orders, deliveries and payments",
  instructions: [
    'Keep each turn to one or two short sentences and let the person finish speaking.',
    'Never invent order, delivery or payment facts: say what you were told on this call, or offer a call back.',
    'If the person asks for a human, or is upset, offer to transfer them to the team.',
    'If the person asks you to stop calling, apologise, confirm it, and end the call.',
  ].join('\n'),
  voice: 'alloy',
  language: 'en-IN',
  greeting: 'Hello, thank you for calling the demo business. I am the virtual assistant. How can I help you today?',
  idle_seconds: 15,
};

/** The demo business's FAQ, a knowledge document the chat agent answers from (docs/agents.md "Knowledge"). */
export const DEMO_FAQ_NAME = 'Demo business FAQ';
export const DEMO_FAQ = [
  '# Orders',
  '## Where is my order?',
  'Orders ship within 2 working days and arrive 3 to 5 working days later; the tracking link comes by WhatsApp when the order ships. Send us your order number and we will tell you where yours is.',
  '## Can I change my delivery address?',
  'Yes, until the order ships: write to us with your order number and the new address.',
  '# Returns and refunds',
  '## Can I return an item?',
  'Items can be returned within 30 days of delivery, unused and in their packaging; a courier collects them from your address.',
  '## When do I get my refund?',
  'Refunds reach your bank account or UPI within 5 working days of the courier collecting the item.',
  '# Payments',
  '## How can I pay?',
  'By UPI, card or net banking through the payment link we send on WhatsApp; cash on delivery for orders under Rs 5,000.',
].join('\n\n');

/** Stable per workspace, so a second seed finds what the first wrote. */
function derived(workspaceId: string, what: string, length = 24): string {
  return createHash('sha256').update(`${workspaceId}:${what}`).digest('hex').slice(0, length);
}

function derivedDigits(workspaceId: string, what: string, count: number): string {
  const n = BigInt(`0x${derived(workspaceId, what, 16)}`) % 10n ** BigInt(count);
  return n.toString().padStart(count, '0');
}

function demoTemplates(tenantId: string, now: Date): TemplateDoc[] {
  const base = { tenant_id: tenantId, status: 'approved' as const, created_at: now };
  const id = (name: string, language: string) => `tpl_${derived(tenantId, `template:${name}:${language}`)}`;
  return [
    {
      ...base,
      _id: id('order_update', 'en'),
      name: 'order_update',
      language: 'en',
      header: null,
      body: 'Hi {{1}}, your order {{2}} is on its way and should reach you by {{3}}.',
      buttons: [],
    },
    {
      ...base,
      _id: id('order_update', 'hi'),
      name: 'order_update',
      language: 'hi',
      header: null,
      body: 'नमस्ते {{1}}, आपका ऑर्डर {{2}} रास्ते में है और {{3}} तक पहुँच जाएगा।',
      buttons: [],
    },
    {
      ...base,
      _id: id('appointment_reminder', 'en'),
      name: 'appointment_reminder',
      language: 'en',
      header: { type: 'text', text: 'Reminder for {{1}}' },
      body: 'Your appointment is on {{1}} at {{2}}. Reply to this message to reschedule.',
      buttons: [{ type: 'quick_reply', text: 'Confirm' }],
    },
    {
      ...base,
      _id: id('payment_due', 'en'),
      name: 'payment_due',
      language: 'en',
      header: null,
      body: 'Hi {{1}}, your payment of Rs {{2}} is due on {{3}}.',
      buttons: [{ type: 'url', text: 'Pay now', url: 'https://pay.example.com/p/{{1}}' }],
    },
    {
      ...base,
      _id: id('welcome', 'en_US'),
      name: 'welcome',
      language: 'en_US',
      header: null,
      body: 'Thanks for getting in touch! Reply here any time and we will help.',
      buttons: [],
    },
  ];
}

/**
 * Creates the demo workspace and its fixtures if missing; leaves existing documents as they
 * are (a setting changed in the console survives a restart). Every write is an insert of a
 * derived `_id` that a duplicate-key error turns into a no-op, so running it twice, or from
 * two processes at once, changes nothing.
 */
export async function seedDemoWorkspace(db: Db, options: DemoSeedOptions): Promise<DemoSeedResult> {
  const c = collections(db);
  const now = options.now ?? new Date();
  const tenantId = options.workspaceId;
  const agentId = `bot_${derived(tenantId, 'agent')}`;
  const phoneNumber = `+9180${derivedDigits(tenantId, 'number', 8)}`;
  const senderPhone = `+919${derivedDigits(tenantId, 'sender', 9)}`;
  const senderId = `snd_${derived(tenantId, 'sender')}`;

  const workspace: WorkspaceDoc = {
    _id: tenantId,
    name: options.name,
    country: 'IN',
    timezone: 'Asia/Kolkata',
    suspended: false,
    plan: {
      conversations_included: 100_000,
      conversations_used: 0,
      prepaid_credits: 100_000,
      voice_minutes_included: 100_000,
      voice_minutes_used: 0,
      voice_credits: 100_000,
      chat_channel: true,
      phone_numbers: true,
    },
    calling_country_codes: ['91'],
    installed_apps: ['dues'],
    capabilities: { voice_configured: true, tickets: true, conversations: true },
    demo: true,
    created_at: now,
    updated_at: now,
  };
  await insertIfAbsent(c.workspaces, workspace);

  await insertIfAbsent(c.agents, { _id: agentId, tenant_id: tenantId, name: 'Demo assistant', max_call_minutes: 5, voice: DEMO_AGENT_VOICE, created_at: now });
  // An agent seeded before agents had voice settings gains the demo's; one given settings since keeps them.
  await c.agents.updateOne({ _id: agentId, voice: { $exists: false } }, { $set: { voice: DEMO_AGENT_VOICE } });
  const digits = phoneNumber.slice(1);
  const teamLine = `+9180${derivedDigits(tenantId, 'team line', 8)}`;
  await insertIfAbsent(c.phoneNumbers, {
    _id: digits,
    tenant_id: tenantId,
    number: phoneNumber,
    agent_id: agentId,
    active: true,
    recording: false,
    team_line: teamLine,
    created_at: now,
  });
  // Likewise a number seeded before team lines (null is a team line cleared on purpose: kept).
  await c.phoneNumbers.updateOne({ _id: digits, tenant_id: tenantId, team_line: { $exists: false } }, { $set: { team_line: teamLine } });
  await insertIfAbsent(c.senders, {
    _id: senderId,
    tenant_id: tenantId,
    channel: 'whatsapp' as const,
    phone: senderPhone,
    display_name: 'Demo business',
    is_default: true,
    connected: true,
    // The demo agent answers the sender's customers (the simulated chat agent by default).
    agent_id: options.chatAgent === false ? null : agentId,
    created_at: now,
  });
  // A sender seeded before chat agents gets the demo agent; one undeployed on purpose (null) keeps none.
  if (options.chatAgent !== false) await c.senders.updateOne({ _id: senderId, tenant_id: tenantId, agent_id: { $exists: false } }, { $set: { agent_id: agentId } });
  for (const template of demoTemplates(tenantId, now)) {
    await insertIfAbsent(c.templates, template);
  }
  // Once, so the chat agent's answers cite a document; a workspace that changed its documents since keeps its own.
  if (options.faqDocument) {
    await seedKnowledgeDocument(db, {
    tenantId,
    documentId: `kdoc_${derived(tenantId, 'knowledge:faq')}`,
    name: DEMO_FAQ_NAME,
    fileName: 'faq.md',
    format: 'markdown',
    bytes: Buffer.from(DEMO_FAQ, 'utf8'),
    now,
  });
  }

  const known = options.knownApiKey;
  if (known) {
    const existing = await c.apiKeys.findOne({ _id: hashApiKey(known) });
    if (existing?.tenant_id === tenantId && keyRefusal(existing, options.environment, now) === null) {
      return { workspaceId: tenantId, apiKey: known, keyCreated: false, agentId, phoneNumber, teamLine, senderId };
    }
  }

  const key = generateApiKey(options.environment);
  await c.apiKeys.insertOne({
    _id: key.hash,
    key_id: newId('key', now),
    tenant_id: tenantId,
    name: 'Demo key (every scope)',
    environment: options.environment,
    scopes: [...SCOPES],
    display_prefix: key.displayPrefix,
    created_at: now,
    revoked_at: null,
    expires_at: null,
  });
  return { workspaceId: tenantId, apiKey: key.plaintext, keyCreated: true, agentId, phoneNumber, teamLine, senderId };
}
