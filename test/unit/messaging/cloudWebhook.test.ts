import { createHmac } from 'node:crypto';
import { parseCloudWebhook, signatureValid, verificationChallenge } from '../../../src/providers/whatsapp/cloudWebhook';
import { isOptOutReply } from '../../../src/messaging/optOut';

describe('Cloud API webhook helpers', () => {
  const secret = 'app-secret';
  const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
  const header = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

  it('accepts the X-Hub-Signature-256 of the exact bytes and refuses any change', () => {
    expect(signatureValid(body, header, secret)).toBe(true);
    expect(signatureValid(body, header.toUpperCase().replace('SHA256=', 'sha256='), secret)).toBe(true);
    const changed = Buffer.from(body);
    changed[5] = changed[5]! ^ 1;
    expect(signatureValid(changed, header, secret)).toBe(false);
    expect(signatureValid(body, header, 'other-secret')).toBe(false);
    expect(signatureValid(body, undefined, secret)).toBe(false);
    expect(signatureValid(body, 'sha256=abc', secret)).toBe(false);
  });

  it('answers the subscription challenge only for the right verify token', () => {
    const query = { 'hub.mode': 'subscribe', 'hub.verify_token': 'tok', 'hub.challenge': '1158201444' };
    expect(verificationChallenge(query, 'tok')).toBe('1158201444');
    expect(verificationChallenge(query, 'other')).toBeNull();
    expect(verificationChallenge({ ...query, 'hub.mode': 'unsubscribe' }, 'tok')).toBeNull();
    expect(verificationChallenge(query, undefined)).toBeNull();
  });

  it('reads inbound messages with the profile name and referral, statuses with errors, and echoes', () => {
    const at = new Date('2026-03-01T10:00:00Z');
    const batch = parseCloudWebhook(
      {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'WABA',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550001111', phone_number_id: '1001' },
                  contacts: [{ profile: { name: 'Asha' }, wa_id: '919800000001' }],
                  messages: [
                    {
                      from: '919800000001',
                      id: 'wamid.A',
                      timestamp: '1772359200',
                      type: 'text',
                      text: { body: 'hi' },
                      referral: { source_url: 'https://fb.me/x', source_id: '42', source_type: 'ad', headline: 'Sale', ctwa_clid: 'clid' },
                    },
                    { from: '919800000001', id: 'wamid.B', timestamp: '1772359201', type: 'button', button: { text: 'Yes', payload: 'y' } },
                  ],
                  statuses: [
                    { id: 'wamid.OUT', status: 'failed', timestamp: '1772359202', recipient_id: '919800000001', errors: [{ code: 131026, title: 'Message undeliverable' }] },
                    { id: 'wamid.OUT2', status: 'deleted', timestamp: '1772359202' },
                    // As Meta's status webhook reference shows it: the send's biz_opaque_callback_data echoed.
                    { id: 'wamid.OUT3', status: 'delivered', timestamp: '1772359203', recipient_id: '919800000002', biz_opaque_callback_data: 'ws_1|campaign|cmp_1|cmp_1:7' },
                  ],
                },
              },
              {
                field: 'smb_message_echoes',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550001111', phone_number_id: '1001' },
                  message_echoes: [{ from: '15550001111', to: '919800000001', id: 'wamid.E', timestamp: '1772359203', type: 'text', text: { body: 'on it' } }],
                },
              },
            ],
          },
        ],
      },
      at,
    );
    expect(batch.inbound).toEqual([
      {
        phoneNumberId: '1001',
        displayPhoneNumber: '15550001111',
        id: 'wamid.A',
        from: '919800000001',
        profileName: 'Asha',
        at: new Date(1772359200 * 1000),
        type: 'text',
        text: 'hi',
        referral: {
          source_type: 'ad',
          source_id: '42',
          source_url: 'https://fb.me/x',
          headline: 'Sale',
          body: null,
          media_type: null,
          ctwa_clid: 'clid',
          image_url: null,
          video_url: null,
          thumbnail_url: null,
        },
      },
      expect.objectContaining({ id: 'wamid.B', type: 'button', text: 'Yes', referral: null }),
    ]);
    expect(batch.statuses).toEqual([
      {
        phoneNumberId: '1001',
        displayPhoneNumber: '15550001111',
        id: 'wamid.OUT',
        status: 'failed',
        recipient: '919800000001',
        at: new Date(1772359202 * 1000),
        error: { code: 131026, title: 'Message undeliverable', message: null },
        callbackData: null,
      },
      {
        phoneNumberId: '1001',
        displayPhoneNumber: '15550001111',
        id: 'wamid.OUT3',
        status: 'delivered',
        recipient: '919800000002',
        at: new Date(1772359203 * 1000),
        error: null,
        callbackData: 'ws_1|campaign|cmp_1|cmp_1:7',
      },
    ]);
    expect(batch.echoes).toEqual([expect.objectContaining({ id: 'wamid.E', to: '919800000001', action: 'sent', text: 'on it' })]);
  });

  it('skips what it does not know instead of failing', () => {
    expect(parseCloudWebhook({ entry: [{ changes: [{ value: { messages: [{ id: 'x' }], statuses: 'no' } }] }] }, new Date())).toEqual({
      inbound: [],
      statuses: [],
      echoes: [],
    });
    expect(parseCloudWebhook(null, new Date())).toEqual({ inbound: [], statuses: [], echoes: [] });
  });
});

describe('STOP replies', () => {
  it.each(['STOP', 'stop', '  Stop  ', 'STOP.', 'stop!'])('%j opts out', (text) => {
    expect(isOptOutReply(text)).toBe(true);
  });
  it.each(['stop please', 'don’t stop', 'STOPP', 'unsubscribe', '', null])('%j does not', (text) => {
    expect(isOptOutReply(text)).toBe(false);
  });
});
