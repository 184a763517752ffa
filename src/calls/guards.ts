import type { Db } from 'mongodb';
import { collections, type AgentDoc, type PhoneNumberDoc, type WorkspaceDoc } from '../db/collections';
import { LIMITS } from '../domain/limits';
import { releaseLiveSlot, reserveDailyBudget, takeLiveSlot } from './admission';
import { readDestination } from './destination';

/**
 * The guards of POST /calls, in the contract's order (api-core §7): unsupported channel,
 * voice not configured, suspended, wallet empty, channel dormant, destination unusable or
 * too short, self-dial, blocked destination, country not allowed, concurrency, no phone
 * number, unknown from_number, no agent deployed, number of another workspace, agent
 * mismatch, daily budget. The first that fails answers; places taken by earlier guards
 * are given back.
 */

export class CallRefusal extends Error {
  constructor(
    readonly code: 'invalid_argument' | 'permission_denied' | 'failed_precondition' | 'rate_limited',
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'CallRefusal';
  }
}

export interface CallRequestForGuards {
  to: string;
  from_number: string | null;
  agent_id: string | null;
}

export interface AdmittedCall {
  callId: string;
  to: string;
  number: PhoneNumberDoc;
  agent: AgentDoc;
  reservedMinutes: number;
  budgetDay: string;
}

export interface GuardDeps {
  db: Db;
  /** Channels this deployment offers (configuration). */
  deploymentChannels: readonly string[];
}

/** Voice minutes: the plan's included minutes used up and no prepaid minutes left. */
export function walletEmpty(workspace: WorkspaceDoc): boolean {
  const plan = workspace.plan;
  return plan.voice_minutes_used >= plan.voice_minutes_included && plan.voice_credits <= 0;
}

export async function admitCall(
  deps: GuardDeps,
  workspace: WorkspaceDoc,
  request: CallRequestForGuards,
  callId: string,
  now: Date,
): Promise<AdmittedCall> {
  const { db } = deps;
  const c = collections(db);
  if (!deps.deploymentChannels.includes('voice')) {
    throw new CallRefusal('failed_precondition', 'Voice calls are not available on this deployment.', {
      reason: 'unsupported_channel',
      supported: [...deps.deploymentChannels],
    });
  }
  if (!workspace.capabilities.voice_configured) {
    throw new CallRefusal('failed_precondition', 'Voice is not configured for this workspace.', { reason: 'voice_not_configured' });
  }
  if (workspace.suspended) {
    throw new CallRefusal('failed_precondition', 'This workspace is suspended for billing; calls resume when billing is restored.', {
      reason: 'workspace_suspended',
    });
  }
  if (walletEmpty(workspace)) {
    throw new CallRefusal('failed_precondition', "The plan's voice minutes are used up and there are no prepaid minutes.", {
      reason: 'wallet_empty',
    });
  }
  if (!workspace.plan.phone_numbers) {
    throw new CallRefusal('failed_precondition', 'The plan no longer includes phone numbers.', { reason: 'channel_dormant' });
  }

  const destination = readDestination(request.to, workspace.country);
  if (destination.kind === 'too_short') throw new CallRefusal('invalid_argument', 'That destination number is too short.');
  if (destination.kind === 'unusable') throw new CallRefusal('invalid_argument', "That destination number isn't usable.");
  if (await c.phoneNumbers.findOne({ _id: destination.digits, tenant_id: workspace._id })) {
    throw new CallRefusal('invalid_argument', 'That destination is one of this workspace’s own numbers.', { reason: 'self_dial' });
  }
  if (destination.blocked) {
    throw new CallRefusal('permission_denied', 'Calls to that range are blocked.', {
      reason: 'destination_blocked',
      range: destination.blocked,
    });
  }
  if (!workspace.calling_country_codes.includes(destination.callingCode)) {
    throw new CallRefusal('permission_denied', `Outbound calls to +${destination.callingCode} are not enabled for this workspace.`, {
      reason: 'country_not_allowed',
      allowed_country_codes: [...workspace.calling_country_codes],
    });
  }

  if (!(await takeLiveSlot(db, workspace._id, callId, now))) {
    throw new CallRefusal('rate_limited', `This workspace already has ${LIMITS.concurrentCallsPerWorkspace} live calls.`, {
      reason: 'call_concurrency',
      limit: LIMITS.concurrentCallsPerWorkspace,
    });
  }
  try {
    const { number, agent } = await resolveCaller(deps, workspace, request);
    const reservedMinutes = Math.ceil(agent.max_call_minutes);
    const budget = await reserveDailyBudget(db, workspace._id, reservedMinutes, now, callId);
    if (!budget.ok) {
      throw new CallRefusal('rate_limited', 'The daily outbound call budget is used up; it resets at 00:00 UTC.', {
        reason: 'daily_call_budget',
        calls: budget.usage.calls,
        reserved_minutes: budget.usage.minutes,
        call_limit: LIMITS.callsPerUtcDay,
        minute_limit: LIMITS.reservedMinutesPerUtcDay,
      });
    }
    return { callId, to: destination.e164, number, agent, reservedMinutes, budgetDay: budget.day };
  } catch (err) {
    await releaseLiveSlot(db, workspace._id, callId);
    throw err;
  }
}

/** The workspace's first active number: the caller ID when a call names none. */
export function firstActiveNumber(db: Db, tenantId: string): Promise<PhoneNumberDoc | null> {
  return collections(db).phoneNumbers.find({ tenant_id: tenantId, active: true }).sort({ created_at: 1, _id: 1 }).limit(1).next();
}

/** The caller-ID number and the agent deployed to it: the agent that will speak. */
async function resolveCaller(
  { db }: GuardDeps,
  workspace: WorkspaceDoc,
  request: CallRequestForGuards,
): Promise<{ number: PhoneNumberDoc; agent: AgentDoc }> {
  const c = collections(db);
  const first = await firstActiveNumber(db, workspace._id);
  if (!first) {
    throw new CallRefusal('failed_precondition', 'This workspace has no active phone number to call from.', { reason: 'no_phone_number' });
  }
  let number = first;
  if (request.from_number !== null) {
    const digits = request.from_number.replace(/\D/g, '');
    const found = digits ? await c.phoneNumbers.findOne({ _id: digits }) : null;
    if (!found || !found.active) {
      throw new CallRefusal('permission_denied', "That from_number isn't an active number of this workspace.", {
        reason: 'unknown_from_number',
      });
    }
    number = found;
  }
  if (!number.agent_id) {
    throw new CallRefusal('failed_precondition', 'No agent is deployed to the caller-ID number.', { reason: 'no_agent_deployed' });
  }
  if (number.tenant_id !== workspace._id) {
    throw new CallRefusal('permission_denied', "That number isn't in this workspace.", { reason: 'unknown_from_number' });
  }
  if (request.agent_id !== null && request.agent_id !== number.agent_id) {
    throw new CallRefusal('failed_precondition', 'A different agent is deployed to the caller-ID number.', {
      reason: 'agent_number_mismatch',
      deployed_agent_id: number.agent_id,
    });
  }
  const agent = await c.agents.findOne({ _id: number.agent_id, tenant_id: number.tenant_id });
  if (!agent) {
    throw new CallRefusal('failed_precondition', 'No agent is deployed to the caller-ID number.', { reason: 'no_agent_deployed' });
  }
  return { number, agent };
}
