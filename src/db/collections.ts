import type { Collection, Db, IndexDescription } from 'mongodb';
import type { Scope } from '../domain/scopes';

/**
 * The read models and plain records, one typed accessor per collection. Every tenant-owned
 * document carries `tenant_id` and every query filters on it; point reads go by `_id`
 * because FerretDB on SQLite answers only `{_id: …}` filters from an index.
 */

export interface WorkspaceDoc {
  _id: string;
  name: string;
  /** ISO 3166 alpha-2; how numbers without `+` are read. */
  country: string;
  timezone: string;
  suspended: boolean;
  plan: {
    conversations_included: number;
    conversations_used: number;
    prepaid_credits: number;
    voice_minutes_included: number;
    voice_minutes_used: number;
    voice_credits: number;
    chat_channel: boolean;
    phone_numbers: boolean;
    /**
     * Whether campaign calls count against the daily call budget (api-core §8). Absent or
     * false: they do not (docs/decisions/campaigns.md "Voice campaigns"); set in the console.
     */
    campaign_calls_use_daily_budget?: boolean;
  };
  /** Calling codes enabled for outbound calls, digits only (e.g. `91`). */
  calling_country_codes: string[];
  installed_apps: string[];
  capabilities: { voice_configured: boolean; tickets: boolean; conversations: boolean };
  demo: boolean;
  /** The latest calls whose minutes the plan holds, written with the plan's change (src/calls/billing.ts): a retried finish bills once. */
  billed_call_ids?: string[];
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyDoc {
  /** sha256 of the full key: the key itself is never stored. */
  _id: string;
  key_id: string;
  tenant_id: string;
  /** What a person calls it ("Billing system"); absent on keys made before keys had names. */
  name?: string;
  environment: 'live' | 'test';
  scopes: Scope[];
  /** First characters of the key, enough for a person to recognise it in the console. */
  display_prefix: string;
  created_at: Date;
  revoked_at: Date | null;
  /** Set on the old half of a rolled key: refused after this instant. */
  expires_at: Date | null;
}

/**
 * What a voice agent needs on a real line beyond its name and maximum call length. Stored on
 * the agent (`agents.voice`, each field optional); declared beside the agent's record so this
 * file imports no feature. The defaults and their reading are the calls slice's
 * (src/calls/agentVoice.ts).
 */
export interface AgentVoice {
  /** Who the agent is, in a sentence ("a friendly assistant for Acme's billing team"). */
  persona: string;
  /** Standing instructions added to every call's own (tone, what never to say). */
  instructions: string;
  /** The realtime model's voice name. */
  voice: string;
  /** BCP 47 language the agent speaks and transcribes. */
  language: string;
  /** What the agent says first on an inbound call (an outbound call opens with the fixed opening). */
  greeting: string;
  /** Silence, in seconds, after which the agent ends the call as `idle`. */
  idle_seconds: number;
}

export interface AgentDoc {
  _id: string;
  tenant_id: string;
  name: string;
  /** Longest call the agent may take; reserved (rounded up) against the daily budget. */
  max_call_minutes: number;
  /** How the agent sounds and behaves on a real line; absent fields take src/calls/agentVoice.ts's defaults. */
  voice?: Partial<AgentVoice>;
  created_at: Date;
}

export interface PhoneNumberDoc {
  /** Digits only, with country code: numbers are compared on digits. */
  _id: string;
  tenant_id: string;
  number: string;
  agent_id: string | null;
  active: boolean;
  recording: boolean;
  /** The number's team line (E.164): where the agent hands a caller to a person. Absent or null: no hand-over. */
  team_line?: string | null;
  created_at: Date;
}

export interface SenderDoc {
  _id: string;
  tenant_id: string;
  channel: 'whatsapp';
  phone: string;
  display_name: string;
  is_default: boolean;
  connected: boolean;
  /** The chat agent that answers this sender's customers (one agent per sender); absent or null: none. */
  agent_id?: string | null;
  created_at: Date;
}

export interface TemplateDoc {
  _id: string;
  tenant_id: string;
  name: string;
  language: string;
  status: 'approved' | 'pending' | 'rejected';
  header: { type: 'text'; text: string } | { type: 'image' | 'video'; media_url: string | null } | null;
  body: string;
  buttons: ({ type: 'url'; text: string; url: string } | { type: 'quick_reply'; text: string })[];
  created_at: Date;
}

export interface SystemCheckDoc {
  _id: string;
  requested_at: Date;
  recorded_at: Date;
  workflow_id: string;
  attempts: number;
}

export interface Collections {
  workspaces: Collection<WorkspaceDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  agents: Collection<AgentDoc>;
  phoneNumbers: Collection<PhoneNumberDoc>;
  senders: Collection<SenderDoc>;
  templates: Collection<TemplateDoc>;
  systemChecks: Collection<SystemCheckDoc>;
}

export function collections(db: Db): Collections {
  return {
    workspaces: db.collection<WorkspaceDoc>('workspaces'),
    apiKeys: db.collection<ApiKeyDoc>('api_keys'),
    agents: db.collection<AgentDoc>('agents'),
    phoneNumbers: db.collection<PhoneNumberDoc>('phone_numbers'),
    senders: db.collection<SenderDoc>('senders'),
    templates: db.collection<TemplateDoc>('templates'),
    systemChecks: db.collection<SystemCheckDoc>('system_checks'),
  };
}

/** Indexes by collection name: this file's platform collections', or a feature's own set. */
export type IndexSet = Record<string, IndexDescription[]>;

const PLATFORM_INDEXES: IndexSet = {
  api_keys: [{ key: { tenant_id: 1, key_id: 1 }, name: 'tenant_key', unique: true }],
  agents: [{ key: { tenant_id: 1, _id: 1 }, name: 'tenant_id' }],
  phone_numbers: [{ key: { tenant_id: 1, number: 1 }, name: 'tenant_number' }],
  senders: [{ key: { tenant_id: 1, _id: 1 }, name: 'tenant_id' }],
  templates: [{ key: { tenant_id: 1, name: 1, language: 1 }, name: 'tenant_name_language', unique: true }],
};

/**
 * Creates the platform's indexes and every feature's set (each feature declares its own
 * beside its store; the composition roots list them: src/main/indexes.ts); safe to run at
 * each start (an existing identical index is a no-op). One index per command: FerretDB 1.24
 * panics (and drops the connection) on a createIndexes naming two or more indexes that all
 * exist already, i.e. at every start after the first.
 */
export async function ensureIndexes(db: Db, features: readonly IndexSet[]): Promise<void> {
  for (const set of [PLATFORM_INDEXES, ...features]) {
    for (const [name, specs] of Object.entries(set)) {
      for (const spec of specs) await db.collection(name).createIndexes([spec]);
    }
  }
}
