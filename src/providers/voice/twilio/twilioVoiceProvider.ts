import twilio from 'twilio';
import type { Db } from 'mongodb';
import type { TranscriptTurn } from '../../../calls/types';
import { findLineCall, markEndedByUs, recordProviderCallId, type LineCallDoc } from '../../../calls/line/lineCalls';
import { originateLine } from '../../../calls/line/originateLine';
import { readLineTurns } from '../../../calls/line/lineTurns';
import { OriginateRefused, type LineControl, type OriginateRequest, type VoiceProvider } from '../../../calls';
import { createTwilioRestClient } from './restClient';
import type { TwilioSettings } from './settings';
import { transferTwiml } from './twiml';
import { twilioWebhookUrl } from './webhookUrls';

/** The progress Twilio reports to the status callback (the final status is always sent). */
const STATUS_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

/**
 * How long before its line call was stored a call found in Twilio's list may have been
 * created and still be ours: the two clocks (ours, Twilio's) may differ by this much.
 */
const CLOCK_SKEW_MS = 60_000;

/** Twilio's answer when a call being updated is already over (21220: not in progress). */
function callAlreadyOver(err: unknown): boolean {
  return err instanceof twilio.RestException && (err.status === 404 || err.code === 21220);
}

/**
 * Calls on real telephone lines through Twilio Programmable Voice (VOICE_PROVIDER=twilio).
 * Placing a call stores its line call (src/calls/line/lineCalls.ts) before dialling
 * and the CallSid after, so a retried originate never dials twice (docs/voice.md says how a
 * crash between the two is settled). What happens on the line arrives at the status callback
 * (api/providerWebhooks/twilio.ts); the media bridge ends or hands over a call through the
 * same object's LineControl side.
 */
export class TwilioVoiceProvider implements VoiceProvider, LineControl {
  readonly client: twilio.Twilio;

  constructor(
    private readonly db: Db,
    private readonly settings: TwilioSettings,
    client?: twilio.Twilio,
  ) {
    this.client = client ?? createTwilioRestClient(settings);
  }

  async originate(request: OriginateRequest): Promise<{ providerCallId: string }> {
    const placed = await originateLine(this.db, request, { id: 'twilio', name: 'Twilio' });
    if (placed.kind === 'on_the_line') return { providerCallId: placed.providerCallId };
    const stored = placed.line;
    if (stored.provider_call_id) return { providerCallId: stored.provider_call_id };
    if (placed.earlier) {
      // An earlier attempt stored the call and may have dialled before it stopped short of
      // recording the CallSid (its status callbacks record it too, when they came first).
      const dialled = await this.findDialled(stored);
      if (dialled) {
        await this.recordCallSid(request.callId, dialled);
        return { providerCallId: dialled };
      }
    }
    let sid: string;
    try {
      ({ sid } = await this.client.calls.create({
        to: request.to,
        from: `+${request.fromNumber.replace(/\D/g, '')}`,
        url: twilioWebhookUrl(this.settings.publicUrl, 'answer', request.callId),
        method: 'POST',
        statusCallback: twilioWebhookUrl(this.settings.publicUrl, 'status', request.callId),
        statusCallbackEvent: STATUS_EVENTS,
        statusCallbackMethod: 'POST',
        timeout: Math.max(1, Math.ceil(request.ringSeconds)),
        machineDetection: 'Enable',
      }));
    } catch (err) {
      // A request Twilio will never take (a number it cannot call, a From not on the account):
      // the call is refused. Throttling and server errors are retried by the activity.
      if (err instanceof twilio.RestException && err.status >= 400 && err.status < 500 && err.status !== 429) {
        throw new OriginateRefused(`Twilio refused to place the call: ${err.message}`);
      }
      throw err;
    }
    await this.recordCallSid(request.callId, sid);
    return { providerCallId: sid };
  }

  /**
   * The call workflow's own hang-up: it has decided the outcome, so the network's report of
   * this end is not signalled to it (`ended_by_us_at`; docs/voice.md).
   */
  async hangup(callId: string): Promise<void> {
    await this.hangUp(callId, true);
  }

  /** The workflow took the line's end (VoiceProvider.endTaken): the network's report of it is not signalled. */
  async endTaken(callId: string): Promise<void> {
    await markEndedByUs(this.db, callId, new Date());
  }

  /** LineControl: the media bridge has told the workflow why (an `ended` line event) before it calls this. */
  async endCall(callId: string): Promise<void> {
    await this.hangUp(callId, false);
  }

  private async hangUp(callId: string, decided: boolean): Promise<void> {
    const line = await findLineCall(this.db, callId);
    const sid = line ? (line.provider_call_id ?? (await this.findDialled(line))) : null;
    if (!sid) return;
    if (decided) await markEndedByUs(this.db, callId, new Date());
    try {
      await this.client.calls(sid).update({ status: 'completed' });
    } catch (err) {
      if (!callAlreadyOver(err)) throw err;
    }
  }

  async transferCall(callId: string, to: string): Promise<void> {
    const line = await findLineCall(this.db, callId);
    if (!line?.provider_call_id) throw new Error(`call ${callId} has no Twilio call to hand over`);
    await this.client.calls(line.provider_call_id).update({ twiml: transferTwiml(to, twilioWebhookUrl(this.settings.publicUrl, 'transfer', callId)) });
  }

  async transcript(callId: string, connectedSeconds: number, answeredAt: string): Promise<TranscriptTurn[]> {
    return readLineTurns(this.db, callId, new Date(answeredAt), connectedSeconds);
  }

  async recordingUri(callId: string): Promise<string | null> {
    return (await findLineCall(this.db, callId))?.recording_uri ?? null;
  }

  /** Stores the CallSid once; the first writer (this originate, or a status callback) wins with the same value. */
  async recordCallSid(callId: string, sid: string): Promise<void> {
    await recordProviderCallId(this.db, callId, sid);
  }

  /**
   * The call an earlier originate placed and did not record: the newest page of the
   * account's calls from this number to this destination, created by the REST API no
   * earlier than the line call was stored (less the clocks' skew).
   */
  private async findDialled(line: LineCallDoc): Promise<string | null> {
    const calls = await this.client.calls.list({ to: line.request.to, from: `+${line.request.fromNumber.replace(/\D/g, '')}`, limit: 20 });
    const since = line.created_at.getTime() - CLOCK_SKEW_MS;
    const ours = calls
      .filter((call) => call.direction === 'outbound-api' && call.dateCreated && call.dateCreated.getTime() >= since)
      .sort((a, b) => a.dateCreated.getTime() - b.dateCreated.getTime());
    return ours[0]?.sid ?? null;
  }
}
