import type { IncomingMessage } from 'node:http';
import type { Db } from 'mongodb';
import { callCollections } from '../calls/callStore';
import { claimLineStream, findLineCall } from '../calls/line/lineCalls';
import type { StreamProtocol } from '../calls/line/streamProtocol';
import { parseStreamPath } from '../calls/line/streamUrl';

export type RefusalReason = 'path' | 'signature' | 'secret' | 'unknown_call' | 'ended' | 'taken';

export type Admission = { ok: true; callId: string } | { ok: false; status: 403 | 404 | 409; reason: RefusalReason; callId: string | null };

const FINAL_STATUSES = new Set(['completed', 'failed']);

/**
 * Whether a stream handshake may become the stream of the call its path names, decided before
 * the WebSocket is accepted (docs/decisions/calls.md, "How a stream proves its call"): the path
 * is `/media-stream/<call id>/<secret>`; the provider's stream protocol admits the handshake
 * (its signature, the call's secret); the call is one this deployment placed or
 * accepted, has not ended, and has no stream yet. The last is a claim (a unique insert), so two
 * handshakes at once get one stream.
 */
export async function admitStream(db: Db, req: IncomingMessage, protocol: StreamProtocol, now: Date): Promise<Admission> {
  const stream = parseStreamPath((req.url ?? '/').split('?')[0]!);
  if (!stream) return { ok: false, status: 404, reason: 'path', callId: null };
  const { callId } = stream;
  const refused = protocol.admit(req, stream);
  if (refused) return { ok: false, status: 403, reason: refused, callId };
  const line = await findLineCall(db, callId);
  if (!line) return { ok: false, status: 404, reason: 'unknown_call', callId };
  if (line.media_started_at) return { ok: false, status: 409, reason: 'taken', callId };
  const call = await callCollections(db).calls.findOne({ _id: callId, tenant_id: line.tenant_id }, { projection: { status: 1 } });
  if (line.media_ended_at || line.ended_by_us_at || (call && FINAL_STATUSES.has(call.status))) return { ok: false, status: 409, reason: 'ended', callId };
  if (!(await claimLineStream(db, callId, now))) return { ok: false, status: 409, reason: 'taken', callId };
  return { ok: true, callId };
}
