import type { OriginateRequest } from './voiceLine';
import type { CallDoc } from './callStore';
import { OUTBOUND_OPENING } from './opening';

/**
 * What the voice provider is told about a call, read off its read model: the placing activity
 * builds it, and so does a real line's inbound webhook (the media bridge reads it either way).
 */
export function originateRequestFor(call: CallDoc, requestedAt: string): OriginateRequest {
  return {
    callId: call._id,
    tenantId: call.tenant_id,
    direction: call.direction,
    to: call.to,
    fromNumber: call.from_number,
    agentId: call.agent_id,
    ringSeconds: call.ring_seconds,
    opening: OUTBOUND_OPENING,
    purpose: call.purpose,
    script: call.script,
    detailLines: call.detail_lines,
    capture: call.capture,
    requestedAt,
  };
}
