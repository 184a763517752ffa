import { emptyAudienceFinding } from '../../../src/campaigns/evaluationFindings';

/** `audience_empty` names the real cause: nobody matched, or everybody matched was excluded (issue 35 §5). */
describe('emptyAudienceFinding', () => {
  const segment = (tags: string[]) => ({ kind: 'segment' as const, tags, contact_id_count: 0 });

  it('names the tag no contact has, not phone numbers', () => {
    const f = emptyAudienceFinding({ audience: segment(['nobody-has-this']), matched: 0, excluded: {} });
    expect(f).toMatchObject({
      code: 'audience_empty',
      severity: 'block',
      count: 0,
      message: 'No contact has the tag "nobody-has-this": nobody matched.',
      fix: 'Tag the contacts to reach with "nobody-has-this", or choose a tag your contacts have.',
    });
  });

  it('says a contact needs every tag of the segment', () => {
    expect(emptyAudienceFinding({ audience: segment(['vip', 'delhi']), matched: 0, excluded: {} }).message).toBe('No contact has every one of the tags "vip", "delhi": nobody matched.');
  });

  it('says an uploaded list is empty, and ids that match no contact', () => {
    expect(emptyAudienceFinding({ audience: { kind: 'uploaded_list', tags: [], contact_id_count: 0 }, matched: 0, excluded: {} }).message).toBe('The uploaded list has no rows: nobody matched.');
    expect(emptyAudienceFinding({ audience: { kind: 'contact_ids', tags: [], contact_id_count: 3 }, matched: 0, excluded: {} }).message).toBe(
      'None of the 3 contact ids is a contact of this workspace: nobody matched.',
    );
    expect(emptyAudienceFinding({ audience: { kind: 'contact_ids', tags: [], contact_id_count: 0 }, matched: 0, excluded: {} }).message).toBe('The audience names no contacts: nobody matched.');
  });

  it('blames the exclusions that removed everyone matched, largest first, with their fixes', () => {
    const f = emptyAudienceFinding({ audience: segment(['vip']), matched: 20, excluded: { suppressed: 8, invalid_destination: 12 } });
    expect(f.message).toBe('All 20 people matched were excluded (no usable phone number: 12, opted out: 8).');
    expect(f.fix).toBe('Add valid phone numbers to these contacts, or choose people who have not opted out.');
  });

  it('does not blame numbers when only opt-outs removed people', () => {
    const f = emptyAudienceFinding({ audience: segment(['vip']), matched: 1, excluded: { suppressed: 1 } });
    expect(f.message).toBe('The 1 person matched was excluded (opted out: 1).');
    expect(f.fix).toBe('Choose people who have not opted out.');
  });
});
