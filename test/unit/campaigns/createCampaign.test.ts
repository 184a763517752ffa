import { draftCampaign, type CampaignRequest } from '../../../src/campaigns/createCampaign';
import { CampaignRefusal } from '../../../src/campaigns/refusal';
import { broadcastRequest } from '../../support/campaignDrafts';
import { NOW, workspace } from './fixtures';

const request = (overrides: Partial<CampaignRequest> = {}): CampaignRequest =>
  broadcastRequest({ name: 'Spring sale', audience: { kind: 'contact_ids', contact_ids: ['cnt_1', 'cnt_2'], tags: [] }, consent: null, metadata: { crm: 'x' }, ...overrides });
const context = { workspace: workspace(), createdBy: { kind: 'api_key' as const, id: 'key_1' }, now: NOW };

/** A refused draft's refusal as its parts (the API states `reason` in `details`: api/refusals.ts). */
function refusalOf(out: ReturnType<typeof draftCampaign>) {
  if (out.kind !== 'refused') throw new Error(`not refused: ${out.kind}`);
  expect(out.refusal).toBeInstanceOf(CampaignRefusal);
  const { reason, message, details } = out.refusal;
  return { reason, message, details };
}

describe('draftCampaign', () => {
  it('makes a draft at version 1 with the schedule filled from the workspace settings', () => {
    const out = draftCampaign(request(), context);
    if (out.kind !== 'drafted') throw new Error(out.kind);
    expect(out.contactIds).toEqual(['cnt_1', 'cnt_2']);
    expect(out.campaign).toMatchObject({
      _id: expect.stringMatching(/^cmp_[0-9a-f]{24}$/),
      status: 'draft',
      version: 1,
      type: 'whatsapp_broadcast',
      recipients: 0,
      excluded: {},
      metadata: { crm: 'x' },
      audience: { kind: 'contact_ids', tags: [], contact_id_count: 2 },
      schedule: { start_at: null, timezone: 'Asia/Kolkata', throttle_per_minute: 60, send_window_start_hour: 9, send_window_end_hour: 21 },
      created_at: NOW,
      updated_at: NOW,
    });
  });

  it('uses the workspace campaign settings, and clamps asked hours while remembering them', () => {
    const ws = workspace({ campaign_settings: { throttle_per_minute: 120, timezone: 'Europe/London' } } as never);
    const out = draftCampaign(request({ schedule: { send_window_start_hour: 6, send_window_end_hour: 18 } }), { ...context, workspace: ws });
    if (out.kind !== 'drafted') throw new Error(out.kind);
    expect(out.campaign.schedule).toEqual({
      start_at: null,
      timezone: 'Europe/London',
      throttle_per_minute: 120,
      send_window_start_hour: 9,
      send_window_end_hour: 18,
      requested_start_hour: 6,
      requested_end_hour: 18,
    });
  });

  it('normalises segment tags and keeps no ids for a segment', () => {
    const out = draftCampaign(request({ audience: { kind: 'segment', contact_ids: ['cnt_1'], tags: ['VIP Customer', 'vip customer', 'Delhi'] } }), context);
    if (out.kind !== 'drafted') throw new Error(out.kind);
    expect(out.campaign.audience).toEqual({ kind: 'segment', tags: ['vip-customer', 'delhi'], contact_id_count: 0 });
    expect(out.contactIds).toEqual([]);
  });

  it('refuses a WhatsApp campaign without a template (template_not_found)', () => {
    expect(refusalOf(draftCampaign(request({ template: null }), context))).toEqual({
      reason: 'template_not_found',
      message: 'A WhatsApp campaign needs a template.',
      details: { field: 'template' },
    });
  });

  it.each([
    ['script', { script: 'Ask about the order' }],
    ['capture', { capture: { fields: [] } }],
    ['call_back_incomplete', { call_back_incomplete: true }],
    ['purpose', { purpose: 'Confirm' }],
    ['agent_id', { agent_id: 'bot_1' }],
  ])('refuses the voice-only %s on a WhatsApp campaign (invalid_argument)', (field, overrides) => {
    expect(refusalOf(draftCampaign(request(overrides as Partial<CampaignRequest>), context))).toEqual({
      reason: 'invalid_argument',
      message: `${field} applies to voice campaigns only.`,
      details: { field },
    });
  });

  it('refuses a voice campaign without agent_id, or with WhatsApp-only fields', () => {
    expect(refusalOf(draftCampaign(request({ channel: 'voice', template: null }), context))).toMatchObject({
      reason: 'invalid_argument',
      message: 'A voice campaign needs an agent_id.',
    });
    expect(refusalOf(draftCampaign(request({ channel: 'voice', agent_id: 'bot_1' }), context))).toMatchObject({
      reason: 'invalid_argument',
      message: 'template applies to WhatsApp campaigns only.',
    });
    const voice = draftCampaign(request({ channel: 'voice', agent_id: 'bot_1', template: null, purpose: 'Hello {{name}}' }), context);
    expect(voice).toMatchObject({ kind: 'drafted', campaign: { type: 'voice_batch', channel: 'voice' } });
  });

  it('refuses a variable no contact can fill with unknown_variable and the field', () => {
    const out = draftCampaign(request({ template: { name: 'order_update', language: null, variables: ['x', '{{contact.city}}'] } }), context);
    expect(refusalOf(out)).toEqual({
      reason: 'unknown_variable',
      message: 'No contact can fill {{contact.city}}; use {{contact.name}}, {{contact.phone}}, {{contact.email}}.',
      details: { field: 'contact.city', loc: ['body', 'template', 'variables', 1] },
    });
    expect(refusalOf(draftCampaign(request({ channel: 'voice', agent_id: 'bot_1', template: null, script: 'Ask {{plan}}' }), context))).toMatchObject({
      reason: 'unknown_variable',
      details: { field: 'plan', loc: ['body', 'script'] },
    });
  });

  it('refuses a window with no open hour as a field error', () => {
    expect(draftCampaign(request({ schedule: { send_window_start_hour: 22 } }), context)).toEqual({
      kind: 'invalid_field',
      loc: ['body', 'schedule', 'send_window_start_hour'],
      msg: 'The send window 22:00 to 21:00 has no open hour; the start must come before the end.',
      type: 'send_window_empty',
    });
  });
});
