import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../db/collections';
import { newId } from '../domain/ids';
import { writeCallEntries } from './callEntries';
import { callCollections, deploymentId, newCallDoc, type CallDoc } from './callStore';
import { readDestination } from './destination';
import { CallRefusal, firstActiveNumber } from './guards';
import { startCallWorkflow, type CallStartDeps } from './startCall';

/**
 * A customer calls one of the workspace's numbers and the agent deployed to it answers at
 * once: the inbound counterpart of placeCall. Inbound calls take no outbound places (live
 * calls, daily budget). Today the console's simulated inbound call comes through here; a
 * real voice provider's inbound webhook does too, through src/calls/line/inboundLine.ts.
 */

export interface AcceptInboundCallDeps extends CallStartDeps {
  db: Db;
  now: () => Date;
  /**
   * Runs once the call's read model is written and before its lifecycle starts: a real line
   * stores what it knows of the call (its line call, with the network's id) here, so the
   * workflow's first step finds it.
   */
  beforeStart?: (call: CallDoc) => Promise<void>;
}

export interface InboundCallRequest {
  /** The caller's number. */
  from: string;
  /** The workspace number dialled (any formatting; its digits are compared); null: its first active number. */
  to_number: string | null;
}

export type InboundCallOutcome = { kind: 'answered'; call: CallDoc } | { kind: 'refused'; refusal: CallRefusal };

export async function acceptInboundCall(deps: AcceptInboundCallDeps, workspace: WorkspaceDoc, request: InboundCallRequest): Promise<InboundCallOutcome> {
  const caller = readDestination(request.from, workspace.country);
  if (caller.kind !== 'ok') return { kind: 'refused', refusal: new CallRefusal('destination_unusable', "That caller number isn't usable.") };
  const { phoneNumbers, agents } = collections(deps.db);
  const number = request.to_number
    ? await phoneNumbers.findOne({ _id: request.to_number.replace(/\D/g, ''), tenant_id: workspace._id, active: true })
    : await firstActiveNumber(deps.db, workspace._id);
  if (!number) {
    return {
      kind: 'refused',
      refusal: new CallRefusal('no_phone_number', 'No active number of this workspace to call.'),
    };
  }
  const agent = number.agent_id ? await agents.findOne({ _id: number.agent_id, tenant_id: workspace._id }) : null;
  if (!agent) {
    return {
      kind: 'refused',
      refusal: new CallRefusal('no_agent_deployed', 'No agent is deployed to that number.'),
    };
  }

  const at = deps.now();
  const call = newCallDoc({
    _id: newId('call', at),
    tenant_id: workspace._id,
    direction: 'inbound',
    status: 'in_progress',
    to: caller.e164,
    from_number: number._id,
    agent_id: agent._id,
    requested_agent_id: null,
    deployment_id: deploymentId(number._id, agent._id),
    ring_seconds: 0,
    max_call_seconds: agent.max_call_minutes * 60,
    recording: number.recording,
    created_at: at,
  });
  await writeCallEntries(deps.db, [call]);
  await callCollections(deps.db).calls.insertOne(call);
  await deps.beforeStart?.(call);
  await startCallWorkflow(deps, call);
  return { kind: 'answered', call };
}
