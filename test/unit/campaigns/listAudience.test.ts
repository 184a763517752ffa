import { classifyAudience, listAudienceRows, recipientChecksum } from '../../../src/campaigns/audience';
import { draftCampaign, type CampaignRequest, type CreateRefusal, type Drafted } from '../../../src/campaigns/createCampaign';

/** A create refusal as the API would read it: the domain reason, the sentence and the facts. */
function refusalOf(out: Drafted | CreateRefusal): { reason: string; message: string; details: Record<string, unknown> } {
  if (out.kind !== 'refused') throw new Error(`expected a refusal, got ${out.kind}`);
  return { reason: out.refusal.reason, message: out.refusal.message, details: out.refusal.details };
}
import { broadcastRequest } from '../../support/campaignDrafts';
import { NOW, workspace } from './fixtures';

/** An uploaded list's rows through the contact audiences' rules (console-only audience). */

const list = { headers: ['Phone', 'Name', 'City', 'Plan'], columns: ['phone', 'name', 'city', 'plan'], phone_column: 'phone' };
const row = (line: number, cells: string[]) => ({ line, cells });

describe('classifyAudience on an uploaded list', () => {
  const options = { variables: ['{{name}}', 'from {{city}}', 'fixed'], suppressed: new Set(['+919800000005']), country: 'IN' };

  it('sends each row its own values, names excluded rows by their line and gives the reason', () => {
    const rows = listAudienceRows(list, [
      row(2, ['+919800000001', 'Asha', 'Pune', 'gold']),
      row(3, ['', 'No number', 'Pune', 'gold']),
      row(4, ['12', 'Bad number', 'Pune', 'gold']),
      row(5, ['9800000001', 'Same number, national form', 'Delhi', 'gold']),
      row(6, ['+919800000005', 'Opted out', 'Goa', 'gold']),
      row(7, ['+919800000007', 'No city', '', 'gold']),
      row(9, ['98000 00008', 'Ravi', 'Delhi', 'silver']),
    ]);
    const out = classifyAudience(rows, options);
    expect(out.recipients).toEqual([
      { contact_id: null, row: 2, to: '+919800000001', name: 'Asha', variables: ['Asha', 'from Pune', 'fixed'] },
      { contact_id: null, row: 9, to: '+919800000008', name: 'Ravi', variables: ['Ravi', 'from Delhi', 'fixed'] },
    ]);
    expect(out.totalRows).toBe(7);
    expect(out.excluded).toEqual({ invalid_destination: 2, duplicate_recipient: 1, suppressed: 1, missing_variable: 1 });
    expect(out.invalidRows).toEqual([
      { reason: 'invalid_destination', row: 3 },
      { reason: 'invalid_destination', row: 4 },
      { reason: 'duplicate_recipient', row: 5 },
      { reason: 'suppressed', row: 6 },
      { reason: 'missing_variable', row: 7, field: 'city' },
    ]);
  });

  it('fills a call campaign’s purpose and script from the row, {{phone}} as dialled and {{all}} as every detail', () => {
    const rows = listAudienceRows(list, [row(2, ['98000 00001', 'Asha', 'Pune', ''])]);
    const out = classifyAudience(rows, {
      variables: [],
      suppressed: new Set(),
      country: 'IN',
      callTexts: { purpose: 'Renew {{name}} on {{phone}}', script: 'Known:\n{{all}}' },
      callingCodes: ['91'],
    });
    expect(out.recipients).toEqual([
      {
        contact_id: null,
        row: 2,
        to: '+919800000001',
        name: 'Asha',
        variables: [],
        call: { purpose: 'Renew Asha on +919800000001', script: 'Known:\nPhone: +919800000001\nName: Asha\nCity: Pune' },
      },
    ]);
  });

  it('fingerprints a list’s people by row and number', () => {
    expect(recipientChecksum([{ contact_id: null, row: 2, to: '+911' }])).not.toBe(recipientChecksum([{ contact_id: null, row: 3, to: '+911' }]));
  });
});

describe('draftCampaign with an uploaded list', () => {
  const request = (overrides: Partial<CampaignRequest> = {}): CampaignRequest =>
    broadcastRequest({
      name: 'Renewals',
      audience: { kind: 'uploaded_list', contact_ids: [], tags: [], list_id: 'lst_0195d7a0c0001234567890ab' },
      template: { name: 'renewal', language: null, variables: ['{{name}}', '{{plan}}'] },
      consent: null,
      ...overrides,
    });
  const found = { _id: 'lst_0195d7a0c0001234567890ab', name: 'March renewals', columns: list.columns };
  const context = { workspace: workspace(), createdBy: { kind: 'console' as const, id: 'console' }, now: NOW };

  it('names the list on the draft and takes its columns as the variables', () => {
    const out = draftCampaign(request(), { ...context, list: found });
    if (out.kind !== 'drafted') throw new Error(out.kind);
    expect(out.campaign.audience).toEqual({ kind: 'uploaded_list', tags: [], contact_id_count: 0, list_id: found._id });
    expect(out.contactIds).toEqual([]);
  });

  it('refuses a token that is not a column of the list, with the field', () => {
    const out = draftCampaign(request({ template: { name: 'renewal', language: null, variables: ['{{contact.name}}'] } }), { ...context, list: found });
    expect(refusalOf(out)).toEqual({
      reason: 'unknown_variable',
      message: 'The list "March renewals" has no column for {{contact.name}}; use {{phone}}, {{name}}, {{city}}, {{plan}}.',
      details: { field: 'contact.name', loc: ['body', 'template', 'variables', 0] },
    });
  });

  it('refuses a list column on a contact audience: unknown_variable with the field', () => {
    const out = draftCampaign(request({ audience: { kind: 'contact_ids', contact_ids: ['cnt_1'], tags: [] } }), { ...context, list: found });
    expect(refusalOf(out)).toMatchObject({ reason: 'unknown_variable', details: { field: 'name', loc: ['body', 'template', 'variables', 0] } });
    const call = draftCampaign(
      request({ channel: 'voice', template: null, agent_id: 'bot_1', audience: { kind: 'segment', contact_ids: [], tags: ['vip'] }, script: 'Ask about {{plan}}' }),
      context,
    );
    expect(refusalOf(call)).toMatchObject({ reason: 'unknown_variable', details: { field: 'plan', loc: ['body', 'script'] } });
  });

  it('refuses a list the workspace does not have', () => {
    expect(refusalOf(draftCampaign(request(), { ...context, list: null }))).toEqual({
      reason: 'invalid_argument',
      message: 'Uploaded list lst_0195d7a0c0001234567890ab not found.',
      details: { field: 'audience.list_id' },
    });
  });
});
