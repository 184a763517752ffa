import { StreamOrder, VIOLATION_CLOSE_CODE } from '../../../src/calls/line/streamProtocol';
import { parseStreamFrame, toStreamFrame, type StreamMessage } from '../../../src/providers/voice/twilio/streamMessages';

const CALL = 'call_018c2f5a3b1c9f8e7d6c5b4a';
const SID = 'MZ00000000000000000000000000000001';

/** Twilio's documented examples (docs: Media Streams, WebSocket messages), one per kind. */
const TWILIO = {
  connected: { event: 'connected', protocol: 'Call', version: '1.0.0' },
  start: {
    event: 'start',
    sequenceNumber: '1',
    start: {
      accountSid: 'AC00000000000000000000000000000000',
      streamSid: SID,
      callSid: 'CA00000000000000000000000000000000',
      tracks: ['inbound'],
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      customParameters: { callId: CALL },
    },
    streamSid: SID,
  },
  media: { event: 'media', sequenceNumber: '3', media: { track: 'outbound', chunk: '1', timestamp: '5', payload: 'no+JhoaJjpzSHxAKBgYJ' }, streamSid: SID },
  dtmf: { event: 'dtmf', streamSid: SID, sequenceNumber: '5', dtmf: { track: 'inbound_track', digit: '1' } },
  mark: { event: 'mark', sequenceNumber: '4', streamSid: SID, mark: { name: 'my label' } },
  stop: { event: 'stop', sequenceNumber: '5', stop: { accountSid: 'AC00000000000000000000000000000000', callSid: 'CA00000000000000000000000000000000' }, streamSid: SID },
} as const;

const frame = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

describe('parseStreamFrame', () => {
  it.each(Object.entries(TWILIO))('reads Twilio’s %s message', (_kind, message) => {
    expect(parseStreamFrame(frame(message), false)).toEqual({ ok: true, message, text: JSON.stringify(message) });
  });

  it.each([
    ['a binary frame', Buffer.from([1, 2, 3]), true, 'binary'],
    ['null', frame('null'), false, 'invalid_message'],
    ['not JSON', frame('}{not json'), false, 'not_json'],
    ['an array', frame('[]'), false, 'invalid_message'],
    ['an unknown event', frame({ event: 'hello' }), false, 'invalid_message'],
    ['connected without its version', frame({ event: 'connected', protocol: 'Call' }), false, 'invalid_message'],
    ['start without customParameters', frame({ ...TWILIO.start, start: { ...TWILIO.start.start, customParameters: undefined } }), false, 'invalid_message'],
    ['start with a numeric parameter', frame({ ...TWILIO.start, start: { ...TWILIO.start.start, customParameters: { callId: 5 } } }), false, 'invalid_message'],
    ['media with bad base64', frame({ ...TWILIO.media, media: { ...TWILIO.media.media, payload: 'abc' } }), false, 'invalid_message'],
    ['media with a numeric timestamp', frame({ ...TWILIO.media, media: { ...TWILIO.media.media, timestamp: 5 } }), false, 'invalid_message'],
    ['media without a stream id', frame({ ...TWILIO.media, streamSid: undefined }), false, 'invalid_message'],
    ['dtmf with a word for a digit', frame({ ...TWILIO.dtmf, dtmf: { digit: 'one' } }), false, 'invalid_message'],
    ['mark without a name', frame({ ...TWILIO.mark, mark: {} }), false, 'invalid_message'],
    ['stop with a string body', frame({ ...TWILIO.stop, stop: 'now' }), false, 'invalid_message'],
  ] as const)('refuses %s', (_name, data, isBinary, violation) => {
    expect(parseStreamFrame(data, isBinary)).toMatchObject({ ok: false, violation });
  });

  it('closes with the code RFC 6455 gives each kind of violation', () => {
    expect(VIOLATION_CLOSE_CODE).toEqual({ binary: 1003, not_json: 1007, invalid_message: 1007, out_of_order: 1008, call_mismatch: 1008, oversized: 1009 });
  });
});

describe('StreamOrder', () => {
  // Twilio's messages as the bridge orders them: in neutral terms (src/calls/line/streamProtocol.ts).
  const message = (kind: keyof typeof TWILIO, changes: Record<string, unknown> = {}) => toStreamFrame({ ...TWILIO[kind], ...changes } as unknown as StreamMessage);

  it('takes Twilio’s order: connected, start, then media, dtmf and marks until stop', () => {
    const order = new StreamOrder(CALL);
    for (const kind of ['connected', 'start', 'media', 'mark', 'dtmf', 'media', 'stop'] as const) expect(order.admit(message(kind))).toBeNull();
  });

  it('takes a stream that starts without connected', () => {
    expect(new StreamOrder(CALL).admit(message('start'))).toBeNull();
  });

  it.each([
    ['media before start', ['media'], 'out_of_order'],
    ['a second start', ['start', 'start'], 'out_of_order'],
    ['connected after start', ['start', 'connected'], 'out_of_order'],
    ['anything after stop', ['start', 'stop', 'media'], 'out_of_order'],
  ] as const)('refuses %s', (_name, kinds, violation) => {
    const order = new StreamOrder(CALL);
    const results = kinds.map((kind) => order.admit(message(kind)));
    expect(results.slice(0, -1)).toEqual(kinds.slice(0, -1).map(() => null));
    expect(results.at(-1)).toMatchObject({ violation });
  });

  it('refuses a start for another call, and frames of another stream', () => {
    expect(new StreamOrder('call_018c2f5a3b1c9f8e7d6c5b4b').admit(message('start'))).toMatchObject({ violation: 'call_mismatch' });
    const order = new StreamOrder(CALL);
    expect(order.admit(message('start'))).toBeNull();
    expect(order.admit(message('media', { streamSid: 'MZ9' }))).toMatchObject({ violation: 'out_of_order' });
  });
});
