import type { Db } from 'mongodb';
import { callCollections } from '../callStore';
import { OriginateRefused, type OriginateRequest } from '../voiceLine';
import { findLineCall, saveLineCall, type LineCallDoc } from './lineCalls';

/** What an adapter's originate works on: an inbound call already on the line, or an outbound call's stored line call. */
export type OriginateLine =
  | { kind: 'on_the_line'; providerCallId: string }
  /** `earlier`: a previous attempt stored it, and may have dialled before it stopped. */
  | { kind: 'outbound'; line: LineCallDoc; earlier: boolean };

/**
 * The first step of every provider's originate, the same for each: an inbound call was stored,
 * provider id and all, by the provider's voice webhook before its lifecycle began; an outbound
 * call's line call is stored before anything is dialled (one per call id), so a retried
 * originate finds what an earlier attempt stored, and the media bridge finds the call whichever
 * process its stream reaches. The adapter then only dials in its own protocol.
 */
export async function originateLine(db: Db, request: OriginateRequest, provider: { id: string; name: string }): Promise<OriginateLine> {
  if (request.direction === 'inbound') {
    const line = await findLineCall(db, request.callId);
    if (!line?.provider_call_id) throw new OriginateRefused(`No ${provider.name} call is on the line for this inbound call.`);
    return { kind: 'on_the_line', providerCallId: line.provider_call_id };
  }
  const call = await callCollections(db).calls.findOne({ _id: request.callId }, { projection: { recording: 1 } });
  const planned: LineCallDoc = {
    _id: request.callId,
    tenant_id: request.tenantId,
    provider: provider.id,
    provider_call_id: null,
    request,
    recording: call?.recording ?? false,
    recording_uri: null,
    created_at: new Date(),
  };
  const stored = await saveLineCall(db, planned);
  return { kind: 'outbound', line: stored, earlier: stored !== planned };
}
