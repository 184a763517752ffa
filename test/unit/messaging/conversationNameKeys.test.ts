import { NAME_INDEXED_CHARS, NAME_KEY_CHARS, hexOf, keyText, nameKeys } from '../../../src/conversations/nameKeys';

/** The customer search's keys (src/conversations/nameKeys.ts): what a conversation is found by. */
describe('nameKeys', () => {
  const base = { _id: 'con_1', tenant_id: 'ws_1' };
  const suffixOf = (key: string) => {
    const hex = key.split('|')[2]!;
    return String.fromCharCode(...hex.match(/.{4}/g)!.map((h) => parseInt(h, 16)));
  };

  it('keys every suffix of the lower-cased name that does not start with a space, and the number', () => {
    const keys = nameKeys({ ...base, customer: { name: 'Priya Sharma', display_name: 'PRIYA', phone: '+919811122233' } });
    expect(keys[0]).toBe('ws_1|phone:+919811122233|con_1');
    // The display name is held whole in the name: its suffixes are prefixes of the name's.
    expect(keys.slice(1).map(suffixOf)).toEqual(['priya sharma', 'riya sharma', 'iya sharma', 'ya sharma', 'a sharma', 'sharma', 'harma', 'arma', 'rma', 'ma', 'a']);
    expect(keys.every((k) => k.endsWith('|con_1'))).toBe(true);
  });

  it('writes any script and reserved characters as hex, cut to NAME_KEY_CHARS, and starts suffixes within NAME_INDEXED_CHARS', () => {
    const keys = nameKeys({ ...base, customer: { name: 'Zoë "Z" <a&b>|c' } });
    expect(keys.map((k) => k.split('|')).every((parts) => parts.length === 4 && /^[0-9a-f]+$/.test(parts[2]!))).toBe(true);
    expect(keys.map(suffixOf)[0]).toBe('zoë "z" <a&b>|c');
    const long = nameKeys({ ...base, customer: { name: 'x'.repeat(NAME_INDEXED_CHARS + 50) + 'tail' } });
    expect(long).toHaveLength(1);
    expect(suffixOf(long[0]!)).toBe('x'.repeat(NAME_KEY_CHARS));
    const late = nameKeys({ ...base, customer: { name: `${'y'.repeat(NAME_INDEXED_CHARS - 1)}abcdef` } });
    expect(late.map(suffixOf)).toContain('abcdef');
    expect(late.map(suffixOf)).not.toContain('bcdef');
    expect(keyText('ÉLODIE Dûpont, the longest name')).toBe('élodie dûpont, t');
    expect(hexOf('a|')).toBe('0061007c');
  });

  it('keys no name and no number of another shape', () => {
    expect(nameKeys({ ...base, customer: { phone: '919811122233' } })).toEqual([]);
    expect(nameKeys(base)).toEqual([]);
  });
});
