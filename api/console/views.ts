import type { AgentDoc, ApiKeyDoc, PhoneNumberDoc, SenderDoc, TemplateDoc, WorkspaceDoc } from '../../src/db/collections';
import { formatTimestamp } from '../format';
import { agentVoice } from '../../src/calls/agentVoice';
import { AGENT_VOICE_FIELDS } from '../../src/calls/agentVoiceRules';

/** How the console shows each record: public ids, formatted times, never a key's hash. */

export const workspaceView = (w: WorkspaceDoc) => ({
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

export const keyView = (k: ApiKeyDoc) => ({
  key_id: k.key_id,
  workspace_id: k.tenant_id,
  display_prefix: k.display_prefix,
  environment: k.environment,
  scopes: k.scopes,
  created_at: formatTimestamp(k.created_at),
  revoked_at: formatTimestamp(k.revoked_at),
  expires_at: formatTimestamp(k.expires_at),
});

/** An agent with its voice settings as they apply (the defaults filled in), and which it set itself. */
export const agentView = (a: AgentDoc) => ({
  agent_id: a._id,
  name: a.name,
  max_call_minutes: a.max_call_minutes,
  voice: agentVoice(a.voice),
  voice_set: AGENT_VOICE_FIELDS.filter((field) => a.voice?.[field] !== undefined),
  created_at: formatTimestamp(a.created_at),
});

export const numberView = (n: PhoneNumberDoc) => ({
  number: n.number,
  agent_id: n.agent_id,
  active: n.active,
  recording: n.recording,
  team_line: n.team_line ?? null,
  created_at: formatTimestamp(n.created_at),
});

export const senderView = (s: SenderDoc) => ({
  sender_id: s._id,
  channel: s.channel,
  phone: s.phone,
  display_name: s.display_name,
  is_default: s.is_default,
  connected: s.connected,
  created_at: formatTimestamp(s.created_at),
});

export const templateView = (t: TemplateDoc) => ({
  template_id: t._id,
  name: t.name,
  language: t.language,
  status: t.status,
  header: t.header,
  body: t.body,
  buttons: t.buttons,
  created_at: formatTimestamp(t.created_at),
});
