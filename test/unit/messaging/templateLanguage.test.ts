import { selectTemplateVariant } from '../../../src/messaging/templateLanguage';

const v = (language: string, status = 'approved') => ({ language, status });

describe('template language lookup (api-core §4, template.language)', () => {
  const all = [v('hi'), v('en_GB'), v('en_US'), v('pt_BR'), v('es', 'pending'), v('fr')];

  it('prefers the exact match, comparing case-insensitively with - and _ alike', () => {
    expect(selectTemplateVariant(all, 'pt_BR')!.language).toBe('pt_BR');
    expect(selectTemplateVariant(all, 'PT-br')!.language).toBe('pt_BR');
    expect(selectTemplateVariant(all, 'hi')!.language).toBe('hi');
  });

  it('then the same base language: the bare base first, else alphabetical', () => {
    expect(selectTemplateVariant(all, 'pt_PT')!.language).toBe('pt_BR');
    expect(selectTemplateVariant([v('fr_CA'), v('fr'), v('fr_BE')], 'fr_CH')!.language).toBe('fr');
    expect(selectTemplateVariant([v('fr_CA'), v('fr_BE')], 'fr_CH')!.language).toBe('fr_BE');
    expect(selectTemplateVariant(all, 'en_AU')!.language).toBe('en_US');
  });

  it('then an English variant: en, then en_US, then alphabetical', () => {
    expect(selectTemplateVariant(all, 'de')!.language).toBe('en_US');
    expect(selectTemplateVariant([v('en_GB'), v('en'), v('en_US')], 'de')!.language).toBe('en');
    expect(selectTemplateVariant([v('en_IN'), v('en_GB'), v('hi')], 'de')!.language).toBe('en_GB');
  });

  it('then any approved variant, alphabetically', () => {
    expect(selectTemplateVariant([v('hi'), v('fr'), v('es', 'rejected')], 'de')!.language).toBe('fr');
  });

  it('without a language asks for the English variant when there is one, else any', () => {
    expect(selectTemplateVariant(all, undefined)!.language).toBe('en_US');
    expect(selectTemplateVariant(all, null)!.language).toBe('en_US');
    expect(selectTemplateVariant(all, '')!.language).toBe('en_US');
    expect(selectTemplateVariant([v('hi'), v('fr')], undefined)!.language).toBe('fr');
  });

  it('never picks an unapproved variant, even on an exact match', () => {
    expect(selectTemplateVariant(all, 'es')!.language).toBe('en_US');
    expect(selectTemplateVariant([v('en', 'pending'), v('hi', 'rejected')], 'en')).toBeNull();
    expect(selectTemplateVariant([], undefined)).toBeNull();
  });
});
