import twilio from 'twilio';
import type { TwilioSettings } from './settings';
import { callStreamUrl } from '../../../calls/line/streamUrl';

/**
 * The agent answers: the call's audio goes to the media bridge, on the call's own stream URL
 * (its id and secret in the path, streamUrl.ts); the `callId` parameter repeats the id, and the
 * bridge refuses a stream whose parameter and path disagree.
 */
export function streamTwiml(settings: Pick<TwilioSettings, 'mediaStreamUrl' | 'authToken'>, callId: string): string {
  const response = new twilio.twiml.VoiceResponse();
  const stream = response.connect().stream({ url: callStreamUrl(settings.mediaStreamUrl, settings.authToken, callId) });
  stream.parameter({ name: 'callId', value: callId });
  return response.toString();
}

/**
 * The agent leaves and the caller is put through to a person on `to`. The team line's leg
 * reports its answer to `statusCallback` (then the call is `human_active`); when either person
 * hangs up the Dial ends and, with nothing after it, so does the call.
 */
export function transferTwiml(to: string, statusCallback: string): string {
  const response = new twilio.twiml.VoiceResponse();
  response.dial().number({ statusCallback, statusCallbackEvent: ['answered', 'completed'], statusCallbackMethod: 'POST' }, to);
  return response.toString();
}

/** A number that is not one of ours: refused before it is answered (the caller hears it rejected; Twilio does not bill it). */
export function rejectTwiml(): string {
  const response = new twilio.twiml.VoiceResponse();
  response.reject({ reason: 'rejected' });
  return response.toString();
}

/** One of our numbers that cannot take the call now (no agent deployed, workspace suspended, …): said, then hung up. */
export function unavailableTwiml(): string {
  const response = new twilio.twiml.VoiceResponse();
  response.say('Sorry, this number cannot take your call right now. Goodbye.');
  response.hangup();
  return response.toString();
}

/** The answer to a machine (answering-machine detection), and to any request that has nothing to play. */
export function hangupTwiml(): string {
  const response = new twilio.twiml.VoiceResponse();
  response.hangup();
  return response.toString();
}
