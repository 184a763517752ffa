import type { Collection, Db, IndexDescription } from 'mongodb';
import { insertIfAbsent } from '../../db/insertIfAbsent';
import { sweepOldestFirst } from '../../db/oldestFirst';
import { retentionCutoff, type RetentionOptions } from '../../events';
import type { OriginateRequest } from '../voiceLine';

/**
 * A call on a real telephone line, as the telephony adapter placed (or accepted) it: what the
 * media bridge needs when the provider's media stream for the call opens, in whichever
 * process that happens. Written once per call id, so a retried originate finds the first one.
 */
export interface LineCallDoc {
  /** The call id. */
  _id: string;
  tenant_id: string;
  /**
   * The telephony adapter that carries the call (its name in VOICE_PROVIDER):
   * a plain string, so a new adapter is a folder, not an edit of this type.
   */
  provider: string;
  /** The network's id for the call (a CallSid, a CallUUID); null until the network answers the originate or reports the call. */
  provider_call_id: string | null;
  /**
   * The network's id for the request that placed the call, where the network names the request
   * apart from the call and learns the call's own id later (it rings, answers or ends): the call
   * is cancelled by it until then. Absent: the network gives the call's id at once.
   */
  provider_request_id?: string;
  request: OriginateRequest;
  /** Both sides' audio are kept: the number's deployment has recording on. */
  recording: boolean;
  /** Where the media bridge stored the recording (a storage reference, not a playable link). */
  recording_uri: string | null;
  /**
   * When the call's workflow hung the line up itself (VoiceProvider.hangup): it has decided
   * the outcome, so the network's report of that end is not signalled (it would only race
   * the workflow's last task, and fail the API hang-up that caused it). Absent: not so.
   */
  ended_by_us_at?: Date;
  /** The media bridge took the call's stream (the agent is on the line). */
  media_started_at?: Date;
  /** The media bridge ended the call's stream session, for whatever reason; absent while it runs or if the bridge died. */
  media_ended_at?: Date;
  /**
   * The bridge ended that session because it lost the agent's media (a dropped or broken
   * stream, a failed start, a shutdown), noted with `media_ended_at` before it tells the call
   * `setup_error`: the line's report of the same end must say the same, whichever lands first.
   */
  media_lost?: true;
  created_at: Date;
}

export const LINE_CALL_INDEXES: Record<string, IndexDescription[]> = {
  line_calls: [{ key: { provider_call_id: 1 }, name: 'provider_call_id' }],
};

export function lineCalls(db: Db): Collection<LineCallDoc> {
  return db.collection<LineCallDoc>('line_calls');
}

/** Stores the call unless an earlier attempt did; answers the stored one. */
export async function saveLineCall(db: Db, doc: LineCallDoc): Promise<LineCallDoc> {
  if (await insertIfAbsent(lineCalls(db), doc)) return doc;
  return (await lineCalls(db).findOne({ _id: doc._id }))!;
}

export async function findLineCall(db: Db, callId: string): Promise<LineCallDoc | null> {
  return lineCalls(db).findOne({ _id: callId });
}

export async function findLineCallByProviderId(db: Db, providerCallId: string): Promise<LineCallDoc | null> {
  return lineCalls(db).findOne({ provider_call_id: providerCallId });
}

/** Stores the network's id for the call once; the first writer (the originate, or a report from the line) wins with the same value. */
export async function recordProviderCallId(db: Db, callId: string, providerCallId: string): Promise<void> {
  await lineCalls(db).updateOne({ _id: callId, provider_call_id: null }, { $set: { provider_call_id: providerCallId } });
}

/** Stores the network's id for the placing request (see `provider_request_id`); the first stays. */
export async function recordProviderRequestId(db: Db, callId: string, requestId: string): Promise<void> {
  await lineCalls(db).updateOne({ _id: callId, provider_request_id: { $exists: false } }, { $set: { provider_request_id: requestId } });
}

/** Notes that the call's workflow is ending the call (see `ended_by_us_at`); the first note stays. */
export async function markEndedByUs(db: Db, callId: string, at: Date): Promise<void> {
  await lineCalls(db).updateOne({ _id: callId, ended_by_us_at: { $exists: false } }, { $set: { ended_by_us_at: at } });
}

/** A call's one media stream, taken: `_id` is `<call id>|stream`. */
interface LineStreamClaimDoc {
  _id: string;
  call_id: string;
  at: Date;
}

/**
 * Takes the call's one media stream; false when a stream took it before. A unique insert, the
 * one write FerretDB decides with a single winner under concurrency: two handshakes for one
 * call at once get one stream.
 */
export async function claimLineStream(db: Db, callId: string, at: Date): Promise<boolean> {
  return insertIfAbsent(streamClaims(db), { _id: `${callId}|stream`, call_id: callId, at });
}

function streamClaims(db: Db): Collection<LineStreamClaimDoc> {
  return db.collection<LineStreamClaimDoc>('line_stream_claims');
}

/**
 * The worker's retention pass over stream claims (src/main/worker.ts registers it): a claim
 * older than the events' retention belongs to a call long over (no call lasts that long), and
 * an ended call's stream is refused without it (src/media/streamAdmission.ts), so it goes.
 */
export async function sweepExpiredStreamClaims(options: RetentionOptions): Promise<number> {
  const cutoff = retentionCutoff(options);
  return sweepOldestFirst<LineStreamClaimDoc>(streamClaims(options.db), {
    batchSize: options.batchSize,
    maxBatches: options.maxBatches,
    pauseMs: options.pauseMs,
    signal: options.signal,
    projection: { _id: 1, at: 1 },
    mayGo: (claim) => claim.at < cutoff,
  });
}

/**
 * The media bridge took the call's stream, or ended its session, `lost` when it lost the
 * agent's media (see `media_lost`). The first note of each stays.
 */
export async function markMedia(db: Db, callId: string, what: 'started' | 'ended', at: Date, lost = false): Promise<void> {
  const field = what === 'started' ? 'media_started_at' : 'media_ended_at';
  const set: Partial<LineCallDoc> = what === 'ended' && lost ? { [field]: at, media_lost: true } : { [field]: at };
  await lineCalls(db).updateOne({ _id: callId, [field]: { $exists: false } }, { $set: set });
}

/**
 * Whether the agent was missing from a call the line reports ended: its media session never
 * started (the media process was down, or refused or lost the stream before it began), started
 * and went without the bridge ending it (the process died with the call live), or ended because
 * the bridge lost the stream (`media_lost`). Otherwise false once the bridge notes the session's
 * end (within `graceMs`, polled): the bridge was there and knows how the call ended. Issue 32: a
 * stream that never opened used to answer false, so a call answered while the media process was
 * down read as the person's hang-up. A lost stream's end used to answer false too, so a line's
 * report landing between the bridge's note and its own `setup_error` ended the call as the
 * caller's hang-up.
 */
export async function agentMissedTheLine(db: Db, callId: string, graceMs: number, pollMs = 100): Promise<boolean> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const line = await findLineCall(db, callId);
    if (!line) return false;
    if (line.media_ended_at) return line.media_lost === true;
    if (Date.now() >= deadline) return true;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
