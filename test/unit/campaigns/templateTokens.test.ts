import { BROADCAST_TOKENS, CALL_TOKENS, byPlaceholderNumber, checkTokens, renderVariables } from '../../../src/campaigns/templateTokens';

describe('template tokens', () => {
  it('accepts literals and {{contact.name|phone|email}} tokens, alone or inside text', () => {
    expect(checkTokens(['Asha', '{{contact.name}}', 'Dear {{ contact.email }}!', '{{contact.phone}}'], BROADCAST_TOKENS)).toEqual({ ok: true });
  });
  it('names the first token no contact can fill, and where it is', () => {
    expect(checkTokens(['ok', 'City: {{contact.city}}'], BROADCAST_TOKENS)).toEqual({ ok: false, field: 'contact.city', index: 1 });
    expect(checkTokens(['{{name}}'], BROADCAST_TOKENS)).toEqual({ ok: false, field: 'name', index: 0 });
    expect(checkTokens(['{{}}'], BROADCAST_TOKENS)).toEqual({ ok: false, field: '', index: 0 });
  });
  it('lets call scripts use the short forms and {{all}}', () => {
    expect(checkTokens(['Hello {{name}}, {{contact.phone}} {{all}}'], CALL_TOKENS)).toEqual({ ok: true });
    expect(checkTokens(['{{plan}}'], CALL_TOKENS)).toEqual({ ok: false, field: 'plan', index: 0 });
  });
  it('fills tokens per recipient and normalises values as POST /messages does', () => {
    const rendered = renderVariables(['{{contact.name}}', ' A-1\n\tnow ', 'Mail {{contact.email}}'], { name: ' Asha ', phone: '+919812345678', email: 'a@x.in' });
    expect(rendered).toEqual({ ok: true, values: ['Asha', 'A-1 now', 'Mail a@x.in'] });
  });
  it('gives the missing field instead of a value with a gap', () => {
    expect(renderVariables(['{{contact.name}}', '{{contact.email}}'], { name: 'Asha', phone: null, email: null })).toEqual({ ok: false, field: 'contact.email' });
    expect(renderVariables(['{{contact.name}}'], { name: '   ', phone: null, email: null })).toEqual({ ok: false, field: 'contact.name' });
  });
  it('keys sample variables by placeholder number from 1', () => {
    expect(byPlaceholderNumber(['Asha', 'A-1'])).toEqual({ '1': 'Asha', '2': 'A-1' });
  });
});
