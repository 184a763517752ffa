import type { CallDoc } from './callStore';
import type { CallResult } from './types';
import { eventIdFor, eventTimestamp, type EventInput } from '../events';

/**
 * Data of the call events (api-core §6; field lists in docs/webhooks.md). Timestamps in
 * event data use the envelope's form (second precision, `Z`); null values are dropped by
 * the event store.
 */

/** The reserved metadata keys: a call carrying one is a campaign or follow-up call. */
export const RESERVED_METADATA_KEYS = ['campaign_id', 'campaign_name', 'callback_id'] as const;

export function hasReservedMetadata(metadata: Record<string, unknown>): boolean {
  return RESERVED_METADATA_KEYS.some((key) => key in metadata);
}

function eventTime(value: Date | null): string | null {
  return value ? eventTimestamp(value) : null;
}

function campaignId(call: CallDoc): string | null {
  const id = call.metadata.campaign_id;
  return typeof id === 'string' ? id : null;
}

/** `call.started` or `call.ended` as the publisher takes it: once per call (its dedupe key), at the time given. */
export function callLifecycleEvent(type: 'call.started' | 'call.ended', call: CallDoc, at: Date): EventInput {
  return { tenantId: call.tenant_id, type, dedupeKey: `${type}:${call._id}`, data: callEventData(call), createdAt: at };
}

/** `call.started` and `call.ended`. */
export function callEventData(call: CallDoc): Record<string, unknown> {
  return {
    call_id: call._id,
    direction: call.direction,
    status: call.status,
    to: call.to,
    from_number: `+${call.from_number}`,
    agent_id: call.agent_id,
    deployment_id: call.deployment_id,
    outcome: call.outcome,
    duration_seconds: call.duration_seconds,
    placed_at: eventTime(call.placed_at),
    started_at: eventTime(call.started_at),
    ended_at: eventTime(call.ended_at),
    recording_uri: call.recording_uri,
    campaign_id: campaignId(call),
  };
}

/** `call.outcome`: the reading, with the fields api-core §6 lists. */
export function callOutcomeData(call: CallDoc, result: CallResult, dedupeKey: string): Record<string, unknown> {
  return {
    call_id: call._id,
    direction: call.direction,
    to: call.to,
    deployment_id: call.deployment_id,
    disposition: result.disposition,
    goal_met: result.goal_met,
    success: result.success,
    summary: result.summary,
    sentiment: result.sentiment,
    next_step: result.next_step,
    next_step_reason: result.next_step_reason,
    fields: result.fields,
    captured: result.captured,
    expected: result.expected,
    missing_required: result.missing_required.length > 0 ? result.missing_required : null,
    metadata: hasReservedMetadata(call.metadata) ? null : call.metadata,
    campaign_id: campaignId(call),
    event_id: eventIdFor(call.tenant_id, dedupeKey),
  };
}
