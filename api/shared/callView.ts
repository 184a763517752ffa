import type { CallDoc } from '../../src/calls/callStore';
import { pendingResult } from '../../src/calls/types';
import { formatTimestamp } from '../format';

/** GET /calls/{id}: the read model as api-core §2 shows it (`from_number` digits only, `agent_id` the agent that handled it). */
export function callView(call: CallDoc) {
  return {
    call_id: call._id,
    status: call.status,
    direction: call.direction ?? 'outbound',
    to: call.to,
    from_number: call.from_number,
    agent_id: call.agent_id,
    duration_seconds: call.duration_seconds,
    outcome: call.outcome,
    summary: call.summary,
    recording_uri: call.recording ? call.recording_uri : null,
    started_at: formatTimestamp(call.started_at),
    ended_at: formatTimestamp(call.ended_at),
    capture: call.capture,
    result: { ...call.result, read_at: formatTimestamp(call.result.read_at) },
  };
}

/**
 * The 201 of POST /calls: `ringing`, timing fields null, result pending; `from_number` with
 * `+`; `agent_id` echoing what was sent (null when nothing was).
 */
export function createdCallView(call: CallDoc) {
  return {
    ...callView(call),
    status: 'ringing',
    direction: 'outbound' as const,
    from_number: `+${call.from_number}`,
    agent_id: call.requested_agent_id,
    duration_seconds: null,
    outcome: null,
    summary: null,
    recording_uri: null,
    started_at: null,
    ended_at: null,
    result: pendingResult(),
  };
}
