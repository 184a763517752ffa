import { ConfigError, loadConfig } from '../../../src/config';
import { lineEventFromStatus, lineEventFromTransfer, twilioTime } from '../../../src/providers/voice/twilio/lineStatus';

const AT = 'Wed, 25 Nov 2026 19:08:06 +0000';
const ISO = '2026-11-25T19:08:06.000Z';

describe('Twilio status callbacks as line events (the table in docs/voice.md)', () => {
  it.each([
    [{ CallStatus: 'queued' }, null],
    [{ CallStatus: 'initiated' }, null],
    [{ CallStatus: 'ringing' }, null],
    [{ CallStatus: 'in-progress' }, { kind: 'answered', at: ISO }],
    [{ CallStatus: 'in-progress', AnsweredBy: 'human' }, { kind: 'answered', at: ISO }],
    [{ CallStatus: 'in-progress', AnsweredBy: 'unknown' }, { kind: 'answered', at: ISO }],
    [{ CallStatus: 'in-progress', AnsweredBy: 'machine_start' }, { kind: 'ended', outcome: 'no_answer', at: ISO }],
    [{ CallStatus: 'in-progress', AnsweredBy: 'fax' }, { kind: 'ended', outcome: 'no_answer', at: ISO }],
    [{ CallStatus: 'completed', CallDuration: '42' }, { kind: 'ended', outcome: 'caller_hangup', at: ISO, answeredAt: '2026-11-25T19:07:24.000Z' }],
    [{ CallStatus: 'completed', CallDuration: '0' }, { kind: 'ended', outcome: 'caller_hangup', at: ISO, answeredAt: ISO }],
    [{ CallStatus: 'completed' }, { kind: 'ended', outcome: 'caller_hangup', at: ISO }],
    [{ CallStatus: 'completed', CallDuration: 'soon' }, { kind: 'ended', outcome: 'caller_hangup', at: ISO }],
    [{ CallStatus: 'completed', AnsweredBy: 'machine_end_beep' }, { kind: 'ended', outcome: 'no_answer', at: ISO }],
    [{ CallStatus: 'no-answer', SipResponseCode: '487' }, { kind: 'ended', outcome: 'no_answer', at: ISO }],
    [{ CallStatus: 'canceled' }, { kind: 'ended', outcome: 'no_answer', at: ISO }],
    [{ CallStatus: 'busy', SipResponseCode: '486' }, { kind: 'ended', outcome: 'busy', at: ISO }],
    [{ CallStatus: 'busy' }, { kind: 'ended', outcome: 'busy', at: ISO }],
    [{ CallStatus: 'busy', SipResponseCode: '603' }, { kind: 'ended', outcome: 'rejected', at: ISO }],
    [{ CallStatus: 'failed', SipResponseCode: '603' }, { kind: 'ended', outcome: 'rejected', at: ISO }],
    [{ CallStatus: 'failed', SipResponseCode: '404' }, { kind: 'ended', outcome: 'invalid_number', at: ISO }],
    [{ CallStatus: 'failed', SipResponseCode: '484' }, { kind: 'ended', outcome: 'invalid_number', at: ISO }],
    [{ CallStatus: 'failed', SipResponseCode: '604' }, { kind: 'ended', outcome: 'invalid_number', at: ISO }],
    [{ CallStatus: 'failed', SipResponseCode: '600' }, { kind: 'ended', outcome: 'busy', at: ISO }],
    [{ CallStatus: 'failed', SipResponseCode: '503' }, { kind: 'ended', outcome: 'congestion', at: ISO }],
    [{ CallStatus: 'failed', SipResponseCode: '500' }, { kind: 'ended', outcome: 'congestion', at: ISO }],
    [{ CallStatus: 'failed', SipResponseCode: '480' }, { kind: 'ended', outcome: 'unreachable', at: ISO }],
    [{ CallStatus: 'failed' }, { kind: 'ended', outcome: 'unreachable', at: ISO }],
  ])('%j → %j', (params, event) => {
    expect(lineEventFromStatus({ ...params, Timestamp: AT })).toEqual(event);
  });

  it('an event without a readable Timestamp carries no time rather than a wrong one', () => {
    expect(lineEventFromStatus({ CallStatus: 'in-progress' })).toEqual({ kind: 'answered' });
    expect(twilioTime({ Timestamp: 'yesterday-ish' })).toBeUndefined();
  });

  it('the team line answering a hand-over is human_active at its time; its other progress is nothing', () => {
    expect(lineEventFromTransfer({ CallStatus: 'in-progress', Timestamp: AT })).toEqual({ kind: 'human_active', at: ISO });
    expect(lineEventFromTransfer({ CallStatus: 'ringing', Timestamp: AT })).toBeNull();
    expect(lineEventFromTransfer({ CallStatus: 'completed', Timestamp: AT })).toBeNull();
  });
});

describe('VOICE_PROVIDER settings', () => {
  it('the simulator is the default and needs nothing', () => {
    expect(loadConfig({})).toMatchObject({ VOICE_PROVIDER: 'simulator', TWILIO_API_BASE_URL: 'https://api.twilio.com', TWILIO_TIMEOUT_MS: 10_000 });
  });

  it('twilio names each missing setting', () => {
    expect(() => loadConfig({ VOICE_PROVIDER: 'twilio' })).toThrow(ConfigError);
    expect(() => loadConfig({ VOICE_PROVIDER: 'twilio' })).toThrow(
      /TWILIO_ACCOUNT_SID: required when VOICE_PROVIDER is twilio[\s\S]*TWILIO_AUTH_TOKEN: required[\s\S]*TWILIO_PUBLIC_URL: required[\s\S]*TWILIO_MEDIA_STREAM_URL: required/,
    );
  });

  it.each([
    ['TWILIO_ACCOUNT_SID', 'AC123', /TWILIO_ACCOUNT_SID: expected an account SID/],
    ['TWILIO_PUBLIC_URL', 'https://voice.example.com/', /TWILIO_PUBLIC_URL: expected an http:\/\/ or https:\/\/ origin/],
    ['TWILIO_MEDIA_STREAM_URL', 'https://media.example.com', /TWILIO_MEDIA_STREAM_URL: expected a ws:\/\/ or wss:\/\/ URL/],
    ['TWILIO_API_BASE_URL', 'http://127.0.0.1:1234/2010-04-01', /TWILIO_API_BASE_URL: expected an http:\/\/ or https:\/\/ origin without a path/],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('takes a complete Twilio configuration', () => {
    const config = loadConfig({
      VOICE_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: `AC${'a'.repeat(32)}`,
      TWILIO_AUTH_TOKEN: 'token',
      TWILIO_PUBLIC_URL: 'https://voice.example.com',
      TWILIO_MEDIA_STREAM_URL: 'wss://media.example.com/twilio',
    });
    expect(config).toMatchObject({ VOICE_PROVIDER: 'twilio', TWILIO_PUBLIC_URL: 'https://voice.example.com' });
  });
});
