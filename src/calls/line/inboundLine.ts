import type { Db } from 'mongodb';
import { acceptInboundCall } from '../acceptInboundCall';
import { findDialledNumber } from '../guards';
import { originateRequestFor } from '../originateRequest';
import type { CallStartDeps } from '../startCall';
import { findLineCallByProviderId, saveLineCall } from './lineCalls';

export interface InboundLineDeps extends CallStartDeps {
  db: Db;
  now: () => Date;
}

/** A call the network puts through to one of our numbers, read from the provider's request. */
export interface InboundLineRequest {
  /** The telephony adapter's name (VOICE_PROVIDER), stored on the line call. */
  provider: string;
  /** The network's id for the call; a repeated request for it answers the call it started. */
  providerCallId: string | null;
  /** The caller's number, as the network gave it. */
  from: string;
  /** The number dialled, as the network gave it. */
  to: string;
}

/**
 * What the adapter answers the network: the call's media stream to the agent, a refusal of a
 * number that is not ours, or "cannot take the call" from one of ours that cannot (no agent
 * deployed, an unusable caller; docs/decisions/README.md).
 */
export type InboundLineDecision = { kind: 'stream'; callId: string } | { kind: 'reject' } | { kind: 'unavailable' };

/**
 * A call to one of the workspaces' numbers on a real line: the agent deployed to the number
 * answers (acceptInboundCall), with the line call stored before the lifecycle starts so its
 * first step finds the network's id. Safe to repeat per provider call id.
 */
export async function acceptInboundLineCall(deps: InboundLineDeps, request: InboundLineRequest): Promise<InboundLineDecision> {
  const known = request.providerCallId ? await findLineCallByProviderId(deps.db, request.providerCallId) : null;
  if (known) return { kind: 'stream', callId: known._id };
  const dialled = await findDialledNumber(deps.db, request.to);
  if (!dialled) return { kind: 'reject' };
  const at = deps.now();
  const accepted = await acceptInboundCall(
    {
      db: deps.db,
      temporal: deps.temporal,
      config: deps.config,
      now: () => at,
      beforeStart: async (call) => {
        await saveLineCall(deps.db, {
          _id: call._id,
          tenant_id: call.tenant_id,
          provider: request.provider,
          provider_call_id: request.providerCallId,
          request: originateRequestFor(call, at.toISOString()),
          recording: call.recording,
          recording_uri: null,
          created_at: at,
        });
      },
    },
    dialled.workspace,
    { from: request.from, to_number: dialled.number._id },
  );
  return accepted.kind === 'refused' ? { kind: 'unavailable' } : { kind: 'stream', callId: accepted.call._id };
}
