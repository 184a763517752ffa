import { z } from 'zod';
import type { AgentDoc, ApiKeyDoc, PhoneNumberDoc, SenderDoc, TemplateDoc, WorkspaceDoc } from '../../src/db/collections';
import { SCOPES } from '../../src/domain/scopes';
import { formatTimestamp } from '../format';
import { agentVoice } from '../../src/calls/agentVoice';
import { AGENT_VOICE_FIELDS } from '../../src/calls/agentVoiceRules';

/**
 * How the console shows each record: public ids, formatted times, never a key's hash. Each
 * view is typed by its response schema, which the routes declare (the console's OpenAPI
 * document, and from it the web console's generated types).
 */

const timestamp = z.string().nullable();
const count = z.number().int();

/** A workspace's plan as shown; its update body is this shape `.partial().strict()` (routes/workspaces.schema.ts). */
export const workspacePlan = z.object({
  conversations_included: z.number().int().min(0),
  conversations_used: z.number().int().min(0),
  prepaid_credits: z.number().int().min(0),
  voice_minutes_included: z.number().int().min(0),
  voice_minutes_used: z.number().int().min(0),
  voice_credits: z.number().int().min(0),
  chat_channel: z.boolean(),
  phone_numbers: z.boolean(),
  /** Campaign calls count against the daily call budget (default false: docs/decisions/README.md); absent on a workspace that never set it. */
  campaign_calls_use_daily_budget: z.boolean().optional(),
});

export const workspaceRecord = z.object({
  workspace_id: z.string(),
  name: z.string(),
  country: z.string(),
  timezone: z.string(),
  suspended: z.boolean(),
  plan: workspacePlan,
  calling_country_codes: z.array(z.string()),
  installed_apps: z.array(z.string()),
  capabilities: z.object({ voice_configured: z.boolean(), tickets: z.boolean(), conversations: z.boolean() }),
  demo: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const keyRecord = z.object({
  key_id: z.string(),
  workspace_id: z.string(),
  /** null for a key made before keys had names. */
  name: z.string().nullable(),
  display_prefix: z.string(),
  environment: z.enum(['live', 'test']),
  scopes: z.array(z.enum(SCOPES)),
  created_at: timestamp,
  revoked_at: timestamp,
  expires_at: timestamp,
  /** The latest request it authenticated, to within a minute (src/auth/keyUses.ts); null if none since uses were recorded. */
  last_used_at: timestamp,
});

/** A key as issued: the secret, shown this once. */
export const issuedKeyRecord = keyRecord.extend({ api_key: z.string() });

export const agentVoiceRecord = z.object({
  persona: z.string(),
  instructions: z.string(),
  voice: z.string(),
  language: z.string(),
  greeting: z.string(),
  idle_seconds: count,
});

export const agentRecord = z.object({
  agent_id: z.string(),
  name: z.string(),
  max_call_minutes: count,
  voice: agentVoiceRecord,
  /** The voice fields this agent set; the others take the service's defaults. */
  voice_set: z.array(z.enum(AGENT_VOICE_FIELDS)),
  created_at: timestamp,
});

export const numberRecord = z.object({
  number: z.string(),
  agent_id: z.string().nullable(),
  active: z.boolean(),
  recording: z.boolean(),
  /** Where the agent hands a caller to a person (E.164); null: no hand-over. */
  team_line: z.string().nullable(),
  created_at: timestamp,
});

export const senderRecord = z.object({
  sender_id: z.string(),
  channel: z.literal('whatsapp'),
  phone: z.string(),
  display_name: z.string(),
  is_default: z.boolean(),
  connected: z.boolean(),
  /** The chat agent deployed to the sender (it answers inbound messages); null: none. */
  agent_id: z.string().nullable(),
  created_at: timestamp,
});

export const templateRecord = z.object({
  template_id: z.string(),
  name: z.string(),
  language: z.string(),
  status: z.enum(['approved', 'pending', 'rejected']),
  header: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('text'), text: z.string() }),
      z.object({ type: z.enum(['image', 'video']), media_url: z.string().nullable() }),
    ])
    .nullable(),
  body: z.string(),
  buttons: z.array(
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('url'), text: z.string(), url: z.string() }),
      z.object({ type: z.literal('quick_reply'), text: z.string() }),
    ]),
  ),
  created_at: timestamp,
});

/** `{items}` of one record. */
export const itemsOf = <T extends z.ZodType>(record: T) => z.object({ items: z.array(record) });

export const workspaceView = (w: WorkspaceDoc): z.infer<typeof workspaceRecord> => ({
  workspace_id: w._id,
  name: w.name,
  country: w.country,
  timezone: w.timezone,
  suspended: w.suspended,
  plan: w.plan,
  calling_country_codes: w.calling_country_codes,
  installed_apps: w.installed_apps,
  capabilities: w.capabilities,
  demo: w.demo,
  created_at: formatTimestamp(w.created_at),
  updated_at: formatTimestamp(w.updated_at),
});

export const keyView = (k: ApiKeyDoc & { last_used_at?: Date | null }): z.infer<typeof keyRecord> => ({
  key_id: k.key_id,
  workspace_id: k.tenant_id,
  name: k.name ?? null,
  display_prefix: k.display_prefix,
  environment: k.environment,
  scopes: k.scopes,
  created_at: formatTimestamp(k.created_at),
  revoked_at: formatTimestamp(k.revoked_at),
  expires_at: formatTimestamp(k.expires_at),
  last_used_at: formatTimestamp(k.last_used_at ?? null),
});

/** An agent with its voice settings as they apply (the defaults filled in), and which it set itself. */
export const agentView = (a: AgentDoc): z.infer<typeof agentRecord> => ({
  agent_id: a._id,
  name: a.name,
  max_call_minutes: a.max_call_minutes,
  voice: agentVoice(a.voice),
  voice_set: AGENT_VOICE_FIELDS.filter((field) => a.voice?.[field] !== undefined),
  created_at: formatTimestamp(a.created_at),
});

export const numberView = (n: PhoneNumberDoc): z.infer<typeof numberRecord> => ({
  number: n.number,
  agent_id: n.agent_id,
  active: n.active,
  recording: n.recording,
  team_line: n.team_line ?? null,
  created_at: formatTimestamp(n.created_at),
});

export const senderView = (s: SenderDoc): z.infer<typeof senderRecord> => ({
  sender_id: s._id,
  channel: s.channel,
  phone: s.phone,
  display_name: s.display_name,
  is_default: s.is_default,
  connected: s.connected,
  agent_id: s.agent_id ?? null,
  created_at: formatTimestamp(s.created_at),
});

export const templateView = (t: TemplateDoc): z.infer<typeof templateRecord> => ({
  template_id: t._id,
  name: t.name,
  language: t.language,
  status: t.status,
  header: t.header,
  body: t.body,
  buttons: t.buttons,
  created_at: formatTimestamp(t.created_at),
});
