import type { Db } from 'mongodb';
import { collections, type AgentDoc, type PhoneNumberDoc, type WorkspaceDoc } from '../db/collections';
import { LIMITS } from '../domain/limits';
import { Refusal } from '../domain/refusal';
import { releaseLiveSlot, reserveDailyBudget, takeLiveSlot } from './admission';
import { utcDay } from './callStore';
import { readDestination } from './destination';

/**
 * The guards of POST /calls, in the contract's order (api-core §7): unsupported channel,
 * voice not configured, suspended, wallet empty, channel dormant, destination unusable or
 * too short, self-dial, blocked destination, country not allowed, concurrency, no phone
 * number, unknown from_number, no agent deployed, number of another workspace, agent
 * mismatch, daily budget. The first that fails answers; places taken by earlier guards
 * are given back.
 */

export type CallRefusalReason =
  | 'unsupported_channel'
  | 'voice_not_configured'
  | 'workspace_suspended'
  | 'wallet_empty'
  | 'channel_dormant'
  | 'destination_too_short'
  | 'destination_unusable'
  | 'self_dial'
  | 'destination_blocked'
  | 'country_not_allowed'
  | 'call_concurrency'
  | 'daily_call_budget'
  | 'no_phone_number'
  | 'unknown_from_number'
  | 'no_agent_deployed'
  | 'agent_number_mismatch';

/** Why a call may not be placed; `api/refusals.ts` gives each reason its status. */
export class CallRefusal extends Refusal<CallRefusalReason> {
  override readonly name = 'CallRefusal';
}

export interface CallRequestForGuards {
  to: string;
  from_number: string | null;
  agent_id: string | null;
  /**
   * `exempt`: the daily budget guard is passed over and nothing is reserved (campaign calls of
   * a workspace whose plan exempts them; docs/decisions/README.md). Every other guard holds.
   */
  dailyBudget?: 'count' | 'exempt';
}

export interface AdmittedCall {
  callId: string;
  to: string;
  number: PhoneNumberDoc;
  agent: AgentDoc;
  reservedMinutes: number;
  budgetDay: string;
  /** False when the daily budget was passed over (`dailyBudget: 'exempt'`). */
  budgetReserved: boolean;
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
    throw new CallRefusal('unsupported_channel', 'Voice calls are not available on this deployment.', {
      supported: [...deps.deploymentChannels],
    });
  }
  if (!workspace.capabilities.voice_configured) {
    throw new CallRefusal('voice_not_configured', 'Voice is not configured for this workspace.');
  }
  if (workspace.suspended) {
    throw new CallRefusal('workspace_suspended', 'This workspace is suspended for billing; calls resume when billing is restored.');
  }
  if (walletEmpty(workspace)) {
    throw new CallRefusal('wallet_empty', "The plan's voice minutes are used up and there are no prepaid minutes.");
  }
  if (!workspace.plan.phone_numbers) {
    throw new CallRefusal('channel_dormant', 'The plan no longer includes phone numbers.');
  }

  const destination = readDestination(request.to, workspace.country);
  if (destination.kind === 'too_short') throw new CallRefusal('destination_too_short', 'That destination number is too short.');
  if (destination.kind === 'unusable') throw new CallRefusal('destination_unusable', "That destination number isn't usable.");
  // One read of the workspace's numbers serves the self-dial guard and the caller ID (issue 28).
  const ownNumbers = await c.phoneNumbers.find({ tenant_id: workspace._id }).toArray();
  if (ownNumbers.some((n) => n._id === destination.digits)) {
    throw new CallRefusal('self_dial', 'That destination is one of this workspace’s own numbers.');
  }
  if (destination.blocked) {
    throw new CallRefusal('destination_blocked', 'Calls to that range are blocked.', { range: destination.blocked });
  }
  if (!workspace.calling_country_codes.includes(destination.callingCode)) {
    throw new CallRefusal('country_not_allowed', `Outbound calls to +${destination.callingCode} are not enabled for this workspace.`, {
      allowed_country_codes: [...workspace.calling_country_codes],
    });
  }

  if (!(await takeLiveSlot(db, workspace._id, callId, now))) {
    throw new CallRefusal('call_concurrency', `This workspace already has ${LIMITS.concurrentCallsPerWorkspace} live calls.`, {
      limit: LIMITS.concurrentCallsPerWorkspace,
    });
  }
  try {
    const { number, agent } = await resolveCaller(deps, workspace, request, ownNumbers);
    const reservedMinutes = Math.ceil(agent.max_call_minutes);
    if (request.dailyBudget === 'exempt') {
      return { callId, to: destination.e164, number, agent, reservedMinutes: 0, budgetDay: utcDay(now), budgetReserved: false };
    }
    const budget = await reserveDailyBudget(db, workspace._id, reservedMinutes, now, callId);
    if (!budget.ok) {
      throw new CallRefusal('daily_call_budget', 'The daily outbound call budget is used up; it resets at 00:00 UTC.', {
        calls: budget.usage.calls,
        reserved_minutes: budget.usage.minutes,
        call_limit: LIMITS.callsPerUtcDay,
        minute_limit: LIMITS.reservedMinutesPerUtcDay,
      });
    }
    return { callId, to: destination.e164, number, agent, reservedMinutes, budgetDay: budget.day, budgetReserved: true };
  } catch (err) {
    await releaseLiveSlot(db, workspace._id, callId);
    throw err;
  }
}

/** The workspace's first active number: the caller ID when a call names none. */
export function firstActiveNumber(db: Db, tenantId: string): Promise<PhoneNumberDoc | null> {
  return collections(db).phoneNumbers.find({ tenant_id: tenantId, active: true }).sort({ created_at: 1, _id: 1 }).limit(1).next();
}

/** The active number a call from the network dialled (any formatting: its digits are compared) and its workspace; null when it is not one of ours. */
export async function findDialledNumber(db: Db, dialled: string): Promise<{ number: PhoneNumberDoc; workspace: WorkspaceDoc } | null> {
  const { phoneNumbers, workspaces } = collections(db);
  const number = await phoneNumbers.findOne({ _id: dialled.replace(/\D/g, ''), active: true });
  const workspace = number ? await workspaces.findOne({ _id: number.tenant_id }) : null;
  return number && workspace ? { number, workspace } : null;
}

/** `firstActiveNumber` over numbers already read: the oldest active one, ties by `_id`. */
export function firstActiveOf(numbers: readonly PhoneNumberDoc[]): PhoneNumberDoc | null {
  let first: PhoneNumberDoc | null = null;
  for (const n of numbers) {
    if (!n.active) continue;
    const earlier = first === null || n.created_at.getTime() < first.created_at.getTime() || (n.created_at.getTime() === first.created_at.getTime() && n._id < first._id);
    if (earlier) first = n;
  }
  return first;
}

/** The caller-ID number and the agent deployed to it: the agent that will speak. */
async function resolveCaller(
  { db }: GuardDeps,
  workspace: WorkspaceDoc,
  request: CallRequestForGuards,
  ownNumbers: readonly PhoneNumberDoc[],
): Promise<{ number: PhoneNumberDoc; agent: AgentDoc }> {
  const c = collections(db);
  const first = firstActiveOf(ownNumbers);
  if (!first) {
    throw new CallRefusal('no_phone_number', 'This workspace has no active phone number to call from.');
  }
  let number = first;
  if (request.from_number !== null) {
    const digits = request.from_number.replace(/\D/g, '');
    const found = digits ? (ownNumbers.find((n) => n._id === digits) ?? (await c.phoneNumbers.findOne({ _id: digits }))) : null;
    if (!found || !found.active) {
      throw new CallRefusal('unknown_from_number', "That from_number isn't an active number of this workspace.");
    }
    number = found;
  }
  if (!number.agent_id) {
    throw new CallRefusal('no_agent_deployed', 'No agent is deployed to the caller-ID number.');
  }
  if (number.tenant_id !== workspace._id) {
    throw new CallRefusal('unknown_from_number', "That number isn't in this workspace.");
  }
  if (request.agent_id !== null && request.agent_id !== number.agent_id) {
    throw new CallRefusal('agent_number_mismatch', 'A different agent is deployed to the caller-ID number.', { deployed_agent_id: number.agent_id });
  }
  const agent = await c.agents.findOne({ _id: number.agent_id, tenant_id: number.tenant_id });
  if (!agent) {
    throw new CallRefusal('no_agent_deployed', 'No agent is deployed to the caller-ID number.');
  }
  return { number, agent };
}
