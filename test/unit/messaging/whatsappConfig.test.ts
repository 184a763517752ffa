import { ConfigError, loadConfig } from '../../../src/config';
import { cloudSettingsFrom, parsePhoneNumberIds } from '../../../src/providers/whatsapp';

describe('WhatsApp provider settings', () => {
  it('defaults to the simulator', () => {
    expect(loadConfig({}).WHATSAPP_PROVIDER).toBe('simulator');
  });

  it('needs an access token and a phone-number id for the Cloud API', () => {
    expect(() => loadConfig({ WHATSAPP_PROVIDER: 'cloud' })).toThrow(ConfigError);
    try {
      loadConfig({ WHATSAPP_PROVIDER: 'cloud', WHATSAPP_CLOUD_ACCESS_TOKEN: 't' });
    } catch (err) {
      expect((err as ConfigError).problems).toEqual(['WHATSAPP_CLOUD_PHONE_NUMBER_ID: required when WHATSAPP_PROVIDER is cloud']);
    }
    const config = loadConfig({
      WHATSAPP_PROVIDER: 'cloud',
      WHATSAPP_CLOUD_ACCESS_TOKEN: 't',
      WHATSAPP_CLOUD_PHONE_NUMBER_ID: '1001',
      WHATSAPP_CLOUD_PHONE_NUMBER_IDS: '+919000000001=2002,919000000002=2003',
    });
    expect(cloudSettingsFrom(config)).toEqual({
      baseUrl: 'https://graph.facebook.com/v21.0',
      accessToken: 't',
      phoneNumberId: '1001',
      phoneNumberIds: { '919000000001': '2002', '919000000002': '2003' },
      timeoutMs: 10_000,
    });
  });

  it('refuses a malformed phone-number id list, naming the variable', () => {
    expect(() => loadConfig({ WHATSAPP_CLOUD_PHONE_NUMBER_IDS: '+91=abc' })).toThrow(/WHATSAPP_CLOUD_PHONE_NUMBER_IDS/);
    expect(parsePhoneNumberIds(undefined)).toEqual({});
  });
});
