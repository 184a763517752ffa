import twilio from 'twilio';
import { callStreamUrl, parseStreamPath, secretMatches, streamSecret } from '../../../src/calls/line/streamUrl';
import { twilioSettingsWarnings } from '../../../src/providers/voice/twilio/settings';
import { streamTwiml } from '../../../src/providers/voice/twilio/twiml';

const KEY = 'twilio-auth-token-0123456789';
const CALL = 'call_018c2f5a3b1c9f8e7d6c5b4a';

describe("a call's stream URL", () => {
  it('is the configured stream URL with the call id and its secret in the path, in the TwiML beside the callId parameter', () => {
    const url = callStreamUrl('wss://media.example.com/media-stream', KEY, CALL);
    expect(url).toBe(`wss://media.example.com/media-stream/${CALL}/${streamSecret(KEY, CALL)}`);
    expect(streamSecret(KEY, CALL)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(streamTwiml({ mediaStreamUrl: 'wss://media.example.com/media-stream', authToken: KEY }, CALL)).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${url}"><Parameter name="callId" value="${CALL}"/></Stream></Connect></Response>`,
    );
  });

  it('differs per call and per key, so neither a leaked URL nor its signature opens another call', () => {
    expect(streamSecret(KEY, CALL)).not.toBe(streamSecret(KEY, 'call_018c2f5a3b1c9f8e7d6c5b4b'));
    expect(streamSecret(KEY, CALL)).not.toBe(streamSecret('another-token', CALL));
    const url = callStreamUrl('wss://media.example.com/media-stream', KEY, CALL);
    const other = callStreamUrl('wss://media.example.com/media-stream', KEY, 'call_018c2f5a3b1c9f8e7d6c5b4b');
    expect(twilio.validateRequest(KEY, twilio.getExpectedTwilioSignature(KEY, other, {}), url, {})).toBe(false);
  });

  it('is read back from the request path, and any other path is refused', () => {
    const secret = streamSecret(KEY, CALL);
    expect(parseStreamPath(`/media-stream/${CALL}/${secret}`)).toEqual({ callId: CALL, secret });
    for (const path of ['/media-stream', '/media-stream/', `/media-stream/${CALL}`, `/media-stream/${CALL}/${secret}/x`, `/media-stream/not-a-call/${secret}`, `/media-stream/${CALL}/short`, `/other/${CALL}/${secret}`]) {
      expect(parseStreamPath(path)).toBeNull();
    }
    expect(secretMatches(KEY, CALL, secret)).toBe(true);
    expect(secretMatches(KEY, CALL, 'A'.repeat(43))).toBe(false);
    expect(secretMatches('another-token', CALL, secret)).toBe(false);
  });
});

describe('twilioSettingsWarnings', () => {
  it('names TWILIO_MEDIA_STREAM_URL when a live Twilio line is given a ws:// stream URL', () => {
    expect(twilioSettingsWarnings({ VOICE_PROVIDER: 'twilio', TWILIO_MEDIA_STREAM_URL: 'ws://media.example.com/media-stream' })).toEqual([
      'TWILIO_MEDIA_STREAM_URL is ws://media.example.com/media-stream: Twilio opens only wss:// stream URLs, so answered calls will not reach the agent',
    ]);
  });

  it('says nothing for wss://, or without Twilio', () => {
    expect(twilioSettingsWarnings({ VOICE_PROVIDER: 'twilio', TWILIO_MEDIA_STREAM_URL: 'wss://media.example.com/media-stream' })).toEqual([]);
    expect(twilioSettingsWarnings({ VOICE_PROVIDER: 'simulator', TWILIO_MEDIA_STREAM_URL: 'ws://127.0.0.1:3100/media-stream' })).toEqual([]);
  });
});
