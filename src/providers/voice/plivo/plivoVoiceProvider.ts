import type { Db } from 'mongodb';
import type { CallInterface } from 'plivo/dist/resources/call';
import { InvalidRequestError, AuthenticationError, ResourceNotFoundError } from 'plivo/dist/utils/exceptions';
import type { TranscriptTurn } from '../../../calls/types';
import { findLineCall, markEndedByUs, recordProviderRequestId } from '../../../calls/line/lineCalls';
import { originateLine } from '../../../calls/line/originateLine';
import { readLineTurns } from '../../../calls/line/lineTurns';
import { OriginateRefused, type LineControl, type OriginateRequest, type VoiceProvider } from '../../../calls';
import { createPlivoCalls } from './restClient';
import type { PlivoSettings } from './settings';
import { plivoNumber, plivoWebhookUrl } from './webhookUrls';

/** The query parameter naming the team line on a transfer's aleg_url (signed with the rest of the URL). */
export const TRANSFER_TO_PARAM = 'to';

/**
 * Calls on real telephone lines through Plivo's Voice API (VOICE_PROVIDER=plivo). Placing a
 * call stores its line call (src/calls/line/lineCalls.ts) before dialling; Plivo answers a
 * create with the request's id (`request_uuid`) and gives the call's own (`CallUUID`) when it
 * rings (ring_url), answers or ends, where the status webhook records it. Hang-ups go by the
 * CallUUID, or cancel the request while it is the only id known. What happens on the line
 * arrives at api/providerWebhooks/plivo.ts; the media bridge ends or hands over a call through
 * the same object's LineControl side.
 */
export class PlivoVoiceProvider implements VoiceProvider, LineControl {
  readonly calls: CallInterface;

  constructor(
    private readonly db: Db,
    private readonly settings: PlivoSettings,
    calls?: CallInterface,
  ) {
    this.calls = calls ?? createPlivoCalls(settings);
  }

  async originate(request: OriginateRequest): Promise<{ providerCallId: string }> {
    const placed = await originateLine(this.db, request, { id: 'plivo', name: 'Plivo' });
    if (placed.kind === 'on_the_line') return { providerCallId: placed.providerCallId };
    const stored = placed.line;
    // An earlier attempt placed it (and Plivo may have reported the call since).
    const known = stored.provider_call_id ?? stored.provider_request_id;
    if (known) return { providerCallId: known };
    const url = this.settings.publicUrl;
    let requestId: string;
    try {
      const created = await this.calls.create(plivoNumber(request.fromNumber), plivoNumber(request.to), plivoWebhookUrl(url, 'answer', request.callId), {
        answerMethod: 'POST',
        hangupUrl: plivoWebhookUrl(url, 'status', request.callId),
        hangupMethod: 'POST',
        ringUrl: plivoWebhookUrl(url, 'status', request.callId),
        ringMethod: 'POST',
        ringTimeout: Math.max(1, Math.ceil(request.ringSeconds)),
        // Synchronous detection: the answer URL is fetched once it has decided, with `Machine`.
        machineDetection: 'true',
      });
      requestId = Array.isArray(created.requestUuid) ? created.requestUuid[0]! : created.requestUuid;
    } catch (err) {
      // A request Plivo will never take (a number it cannot call, a caller ID not on the account):
      // the call is refused. Throttling and server errors are retried by the activity.
      if (err instanceof InvalidRequestError || err instanceof AuthenticationError || err instanceof ResourceNotFoundError) {
        throw new OriginateRefused(`Plivo refused to place the call: ${(err as Error).message}`);
      }
      throw err;
    }
    await recordProviderRequestId(this.db, request.callId, requestId);
    return { providerCallId: requestId };
  }

  /** The call workflow's own hang-up: the network's report of this end is not signalled to it (`ended_by_us_at`; docs/voice.md). */
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
    if (!line || (!line.provider_call_id && !line.provider_request_id)) return;
    if (decided) await markEndedByUs(this.db, callId, new Date());
    try {
      if (line.provider_call_id) await this.calls.hangup(line.provider_call_id);
      else await this.calls.cancel(line.provider_request_id!);
    } catch (err) {
      // Plivo answers 404 for a call (or request) that is over: safe to repeat.
      if (!(err instanceof ResourceNotFoundError)) throw err;
    }
  }

  async transferCall(callId: string, to: string): Promise<void> {
    const line = await findLineCall(this.db, callId);
    if (!line?.provider_call_id) throw new Error(`call ${callId} has no Plivo call to hand over`);
    const alegUrl = `${plivoWebhookUrl(this.settings.publicUrl, 'transfer', callId)}&${TRANSFER_TO_PARAM}=${encodeURIComponent(to)}`;
    // Only the caller's leg moves (the package's typings ask for the bridged leg's URL too, which a call without one has no use for).
    await this.calls.transfer(line.provider_call_id, { legs: 'aleg', alegUrl, alegMethod: 'POST' } as Parameters<CallInterface['transfer']>[1]);
  }

  async transcript(callId: string, connectedSeconds: number, answeredAt: string): Promise<TranscriptTurn[]> {
    return readLineTurns(this.db, callId, new Date(answeredAt), connectedSeconds);
  }

  async recordingUri(callId: string): Promise<string | null> {
    return (await findLineCall(this.db, callId))?.recording_uri ?? null;
  }
}
