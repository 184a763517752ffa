import { answeredByMachine, lineEventFromDial, lineEventFromHangup } from '../../../src/providers/voice/plivo/lineStatus';
import { callIdFromExtraHeaders, plivoFrameReader } from '../../../src/providers/voice/plivo/streamMessages';
import { plivoStreamProtocol } from '../../../src/providers/voice/plivo/streamProtocol';
import { fromPlivoNumber, plivoNumber } from '../../../src/providers/voice/plivo/webhookUrls';
import { loadConfig, ConfigError } from '../../../src/config';

const AT = new Date('2026-11-27T10:00:30.000Z');

describe('Plivo’s hangup reports as line events (docs/voice.md, the Plivo table)', () => {
  it.each([
    [{ CallStatus: 'ringing' }, null],
    [{ CallStatus: 'completed', Duration: '25', HangupCause: 'NORMAL_CLEARING' }, { kind: 'ended', outcome: 'caller_hangup', at: AT.toISOString(), answeredAt: '2026-11-27T10:00:05.000Z' }],
    [{ CallStatus: 'completed' }, { kind: 'ended', outcome: 'caller_hangup', at: AT.toISOString() }],
    [{ CallStatus: 'no-answer', HangupCause: 'NO_ANSWER' }, { kind: 'ended', outcome: 'no_answer', at: AT.toISOString() }],
    [{ CallStatus: 'cancel', HangupCause: 'ORIGINATOR_CANCEL' }, { kind: 'ended', outcome: 'no_answer', at: AT.toISOString() }],
    [{ CallStatus: 'busy', HangupCause: 'USER_BUSY' }, { kind: 'ended', outcome: 'busy', at: AT.toISOString() }],
    [{ CallStatus: 'busy' }, { kind: 'ended', outcome: 'busy', at: AT.toISOString() }],
    [{ CallStatus: 'failed', HangupCause: 'CALL_REJECTED' }, { kind: 'ended', outcome: 'rejected', at: AT.toISOString() }],
    [{ CallStatus: 'failed', HangupCause: 'UNALLOCATED_NUMBER' }, { kind: 'ended', outcome: 'invalid_number', at: AT.toISOString() }],
    [{ CallStatus: 'failed', HangupCause: 'INVALID_NUMBER_FORMAT' }, { kind: 'ended', outcome: 'invalid_number', at: AT.toISOString() }],
    [{ CallStatus: 'failed', HangupCause: 'NORMAL_CIRCUIT_CONGESTION' }, { kind: 'ended', outcome: 'congestion', at: AT.toISOString() }],
    [{ CallStatus: 'failed', HangupCause: 'SUBSCRIBER_ABSENT' }, { kind: 'ended', outcome: 'unreachable', at: AT.toISOString() }],
    [{ CallStatus: 'timeout' }, { kind: 'ended', outcome: 'unreachable', at: AT.toISOString() }],
  ])('%j → %j', (params, event) => {
    expect(lineEventFromHangup(params, AT)).toEqual(event);
  });

  it('reads machine detection and the team line’s answer', () => {
    expect([answeredByMachine({ Machine: 'true' }), answeredByMachine({ Machine: 'false' }), answeredByMachine({})]).toEqual([true, false, false]);
    expect(lineEventFromDial({ DialAction: 'answer', DialBLegStatus: 'answer' }, AT)).toEqual({ kind: 'human_active', at: AT.toISOString() });
    expect(lineEventFromDial({ DialAction: 'hangup', DialBLegStatus: 'hangup' }, AT)).toBeNull();
  });

  it('writes numbers without + and reads them back as E.164', () => {
    expect([plivoNumber('+91 98111 22233'), fromPlivoNumber('919811122233'), fromPlivoNumber('sip:agent@phone.plivo.com')]).toEqual(['919811122233', '+919811122233', 'sip:agent@phone.plivo.com']);
  });
});

describe('Plivo’s stream messages', () => {
  const streamId = '87654321-4321-4321-4321-cba987654321';
  const start = { event: 'start', sequenceNumber: 1, start: { callId: '12345678-1234-1234-1234-123456789abc', streamId, accountId: 'MAXXXXXXXXXXXXXXXXXX', tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } }, extra_headers: 'callId=abc123' };

  it('reads the documented messages into neutral frames, the media clock from the stream’s start', () => {
    let clock = 1_000_000;
    const read = plivoFrameReader(() => clock);
    expect(read(start)).toEqual({ ok: true, frame: { kind: 'start', streamId, callId: 'call_abc123', format: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } });
    clock += 40;
    const media = (stamp: number) => ({ event: 'media', sequenceNumber: 2, streamId, media: { track: 'inbound', timestamp: String(stamp), chunk: 1, payload: 'no+JhoaJjpzSHxAKBgYJ' } });
    expect(read(media(1705312200000))).toEqual({ ok: true, frame: { kind: 'media', streamId, payload: 'no+JhoaJjpzSHxAKBgYJ', streamMs: 40 } });
    expect(read(media(1705312200020))).toMatchObject({ frame: { streamMs: 60 } });
    expect(read({ event: 'playedStream', streamId, name: 'item_1:120:g1:m2' })).toEqual({ ok: true, frame: { kind: 'mark', streamId, name: 'item_1:120:g1:m2' } });
    expect(read({ event: 'played', streamId, name: 'm' })).toMatchObject({ frame: { kind: 'mark' } });
    expect(read({ sequenceNumber: 0, event: 'clearedAudio', streamId })).toEqual({ ok: true, frame: { kind: 'ignored', streamId, event: 'clearedAudio' } });
    expect(read({ event: 'dtmf', streamId, dtmf: { digit: '5' } })).toMatchObject({ frame: { kind: 'ignored', event: 'dtmf' } });
    expect(read({ event: 'stop', streamId })).toMatchObject({ ok: false, violation: 'invalid_message' });
    expect(read({ ...start, start: { ...start.start, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: '8000' } } })).toMatchObject({ ok: false, violation: 'invalid_message' });
  });

  it('takes the call id from the extra headers, in either separator, and nothing else', () => {
    expect([callIdFromExtraHeaders('callId=abc'), callIdFromExtraHeaders('userId=1;callId=abc'), callIdFromExtraHeaders('a=1,callId=abc'), callIdFromExtraHeaders('callId=a_b'), callIdFromExtraHeaders(undefined)]).toEqual([
      'call_abc',
      'call_abc',
      'call_abc',
      null,
      null,
    ]);
  });

  it('writes playAudio in the stream’s format, checkpoint and clearAudio with the stream id; a close with Plivo’s closing handshake ends the stream, a lost connection does not', () => {
    const protocol = plivoStreamProtocol({ authToken: 'token', streamUrl: 'wss://media.example.com/media-stream' });
    expect(JSON.parse(protocol.media(streamId, 'AAAA'))).toEqual({ event: 'playAudio', media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload: 'AAAA' } });
    expect(JSON.parse(protocol.mark(streamId, 'm1'))).toEqual({ event: 'checkpoint', streamId, name: 'm1' });
    expect(JSON.parse(protocol.clear(streamId))).toEqual({ event: 'clearAudio', streamId });
    expect([protocol.closedByProvider(1000), protocol.closedByProvider(1005), protocol.closedByProvider(1006)]).toEqual([true, true, false]);
  });
});

describe('VOICE_PROVIDER=plivo settings', () => {
  it('refuses plivo without its four settings, naming each', () => {
    expect(() => loadConfig({ VOICE_PROVIDER: 'plivo' })).toThrow(ConfigError);
    expect(() => loadConfig({ VOICE_PROVIDER: 'plivo' })).toThrow(
      /PLIVO_AUTH_ID: required when VOICE_PROVIDER is plivo[\s\S]*PLIVO_AUTH_TOKEN: required[\s\S]*PLIVO_PUBLIC_URL: required[\s\S]*PLIVO_MEDIA_STREAM_URL: required/,
    );
  });
});
