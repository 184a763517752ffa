import { classifyAudience, recipientChecksum } from '../../../src/campaigns/audience';
import { person } from './fixtures';

const options = { variables: ['{{contact.name}}', 'fixed'], suppressed: new Set<string>(), country: 'IN' };

describe('classifyAudience', () => {
  it('keeps everyone usable, in audience order, with their values rendered', () => {
    const out = classifyAudience([person(1), person(2)], options);
    expect(out).toEqual({
      recipients: [
        { contact_id: person(1).contact_id, to: person(1).phone, name: 'Person 1', variables: ['Person 1', 'fixed'] },
        { contact_id: person(2).contact_id, to: person(2).phone, name: 'Person 2', variables: ['Person 2', 'fixed'] },
      ],
      totalRows: 2,
      excluded: {},
      invalidRows: [],
    });
  });

  it('removes a repeated contact, a contact without a usable number, a second contact on one number, an opted-out number and a missing value', () => {
    const rows = [
      person(1),
      person(1),
      person(2, { phone: null }),
      person(3, { phone: '12' }),
      { ...person(4), phone: person(1).phone },
      person(5),
      person(6, { name: null }),
      person(7, { phone: '9800000007' }),
    ];
    const out = classifyAudience(rows, { ...options, suppressed: new Set([person(5).phone!]) });
    expect(out.totalRows).toBe(8);
    expect(out.recipients.map((r) => r.contact_id)).toEqual([person(1).contact_id, person(7).contact_id]);
    // A national number is read in the workspace's country.
    expect(out.recipients[1]!.to).toBe('+919800000007');
    expect(out.excluded).toEqual({ duplicate_recipient: 2, invalid_destination: 2, suppressed: 1, missing_variable: 1 });
    expect(out.invalidRows).toEqual([
      { reason: 'duplicate_recipient', contact_id: person(1).contact_id },
      { reason: 'invalid_destination', contact_id: person(2).contact_id },
      { reason: 'invalid_destination', contact_id: person(3).contact_id },
      { reason: 'duplicate_recipient', contact_id: person(4).contact_id },
      { reason: 'suppressed', contact_id: person(5).contact_id },
      { reason: 'missing_variable', contact_id: person(6).contact_id, field: 'contact.name' },
    ]);
  });

  it('lists at most 200 invalid rows but counts them all', () => {
    const rows = Array.from({ length: 250 }, (_, i) => person(i, { phone: null }));
    const out = classifyAudience(rows, options);
    expect(out.excluded).toEqual({ invalid_destination: 250 });
    expect(out.invalidRows).toHaveLength(200);
  });
});

describe('recipientChecksum', () => {
  const a = { contact_id: 'cnt_a', to: '+911' };
  const b = { contact_id: 'cnt_b', to: '+912' };
  it('fingerprints the exact list: same list same checksum; order and members matter', () => {
    expect(recipientChecksum([a, b])).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(recipientChecksum([a, b])).toBe(recipientChecksum([{ ...a }, { ...b }]));
    expect(recipientChecksum([a, b])).not.toBe(recipientChecksum([b, a]));
    expect(recipientChecksum([a])).not.toBe(recipientChecksum([a, b]));
  });
});
