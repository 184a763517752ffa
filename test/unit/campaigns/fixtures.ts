import type { CampaignDoc } from '../../../src/campaigns/campaign';
import type { TemplateDoc, WorkspaceDoc } from '../../../src/db/collections';

export const NOW = new Date('2025-03-10T06:00:00Z');

export function workspace(overrides: Partial<WorkspaceDoc> = {}): WorkspaceDoc {
  return {
    _id: 'ws_unit',
    name: 'Unit',
    country: 'IN',
    timezone: 'Asia/Kolkata',
    suspended: false,
    plan: {
      conversations_included: 100,
      conversations_used: 0,
      prepaid_credits: 0,
      voice_minutes_included: 100,
      voice_minutes_used: 0,
      voice_credits: 0,
      chat_channel: true,
      phone_numbers: true,
    },
    calling_country_codes: ['91'],
    installed_apps: [],
    capabilities: { voice_configured: true, tickets: true, conversations: true },
    demo: false,
    created_at: NOW,
    updated_at: NOW,
    ...overrides,
  };
}

export function campaign(overrides: Partial<CampaignDoc> = {}): CampaignDoc {
  return {
    _id: 'cmp_0195d7a0c0001234567890ab',
    tenant_id: 'ws_unit',
    name: 'Spring sale',
    channel: 'whatsapp',
    type: 'whatsapp_broadcast',
    status: 'draft',
    version: 1,
    audience: { kind: 'contact_ids', tags: [], contact_id_count: 0 },
    template: { name: 'order_update', language: null, variables: ['{{contact.name}}', 'A-1', 'Friday'] },
    sender_id: null,
    agent_id: null,
    purpose: null,
    script: null,
    capture: null,
    call_back_incomplete: false,
    schedule: {
      start_at: null,
      timezone: 'Asia/Kolkata',
      throttle_per_minute: 60,
      send_window_start_hour: 9,
      send_window_end_hour: 21,
      requested_start_hour: null,
      requested_end_hour: null,
    },
    consent: null,
    metadata: {},
    recipients: 0,
    counters: { sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 },
    excluded: {},
    created_by: { kind: 'api_key', id: 'key_unit' },
    created_at: NOW,
    updated_at: NOW,
    launched_at: null,
    completed_at: null,
    ...overrides,
  };
}

export function template(overrides: Partial<TemplateDoc> = {}): TemplateDoc {
  return {
    _id: 'tpl_1',
    tenant_id: 'ws_unit',
    name: 'order_update',
    language: 'en',
    status: 'approved',
    header: null,
    body: 'Hi {{1}}, your order {{2}} arrives {{3}}.',
    buttons: [],
    created_at: NOW,
    ...overrides,
  };
}

/** A contact row with an Indian mobile number derived from `n`. */
export const person = (n: number, overrides: Partial<{ name: string | null; phone: string | null; email: string | null }> = {}) => ({
  contact_id: `cnt_${String(n).padStart(24, '0')}`,
  name: `Person ${n}`,
  phone: `+9198${String(n).padStart(8, '0')}`,
  email: `p${n}@example.com`,
  ...overrides,
});
