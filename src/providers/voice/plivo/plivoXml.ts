import { Response } from 'plivo';
import { callStreamUrl } from '../../../calls/line/streamUrl';
import type { PlivoSettings } from './settings';
import { plivoNumber } from './webhookUrls';

/**
 * The agent answers: the call's audio goes both ways to the media bridge on the call's own
 * stream URL (the element's text: its id and secret in the path, streamUrl.ts), as 8 kHz mu-law
 * (Plivo's default is L16: it is said explicitly), and the stream alone keeps the call up
 * (`keepCallAlive`): when it ends, nothing follows and the call hangs up. `extraHeaders`
 * repeats the call id for the stream's `start` (Plivo allows only letters and digits there, so
 * it carries the id without its `call_` prefix); the bridge refuses a stream whose start and
 * path disagree.
 */
export function streamXml(settings: Pick<PlivoSettings, 'mediaStreamUrl' | 'authToken'>, callId: string): string {
  const response = xmlResponse();
  response.addStream(callStreamUrl(settings.mediaStreamUrl, settings.authToken, callId), {
    bidirectional: true,
    keepCallAlive: true,
    contentType: 'audio/x-mulaw;rate=8000',
    extraHeaders: `callId=${callId.replace(/^call_/, '')}`,
  });
  return response.toXML();
}

/** The agent leaves and the caller is put through to a person on `to`; the team line's leg reports to `callbackUrl`. */
export function dialXml(to: string, callbackUrl: string): string {
  const response = xmlResponse();
  response.addDial({ callbackUrl, callbackMethod: 'POST' }).addNumber(plivoNumber(to));
  return response.toXML();
}

/** A number that is not one of ours: refused unanswered (the caller hears it rejected). */
export function rejectXml(): string {
  const response = xmlResponse();
  response.addHangup({ reason: 'rejected' });
  return response.toXML();
}

/** One of our numbers that cannot take the call now: said, then hung up. */
export function unavailableXml(): string {
  const response = xmlResponse();
  response.addSpeak('Sorry, this number cannot take your call right now. Goodbye.');
  response.addHangup();
  return response.toXML();
}

/** The answer to a machine, and to any request that has nothing to play. */
export function hangupXml(): string {
  const response = xmlResponse();
  response.addHangup();
  return response.toXML();
}

/** The elements of the package's XML builder used here (its own typings declare `Response` as a function and a class at once, without `addStream`). */
interface XmlElement {
  addNumber(body: string): XmlElement;
}
interface XmlResponse {
  addStream(url: string, attributes: Record<string, string | boolean>): XmlElement;
  addDial(attributes: Record<string, string>): XmlElement;
  addSpeak(body: string): XmlElement;
  addHangup(attributes?: Record<string, string>): XmlElement;
  toXML(): string;
}

function xmlResponse(): XmlResponse {
  return new (Response as unknown as new () => XmlResponse)();
}
