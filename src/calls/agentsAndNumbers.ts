import type { Db, UpdateFilter } from 'mongodb';
import { collections, type AgentDoc, type PhoneNumberDoc } from '../db/collections';
import { insertIfAbsent } from '../db/insertIfAbsent';
import { tenantReadModelChanged } from '../db/tenantReadCache';
import { newId } from '../domain/ids';
import type { AgentVoice } from './agentVoice';

/**
 * The console's set-up of a workspace's agents and the numbers they answer: one number has
 * one agent. Every change tells this process's read caches (src/db/tenantReadCache.ts), so a
 * call placed next sees it.
 */

/** A voice field set to null goes back to its default. */
export type VoiceChange = { [Field in keyof AgentVoice]?: AgentVoice[Field] | null };

export async function createAgent(
  db: Db,
  tenantId: string,
  input: { name: string; max_call_minutes: number; voice?: Partial<AgentVoice> },
  now: Date,
): Promise<AgentDoc> {
  const { voice, ...rest } = input;
  const agent: AgentDoc = { _id: newId('bot', now), tenant_id: tenantId, ...rest, ...(voice && Object.keys(voice).length > 0 ? { voice } : {}), created_at: now };
  await collections(db).agents.insertOne(agent);
  tenantReadModelChanged(tenantId);
  return agent;
}

/** Changes the named fields (an empty change reads the agent); null when it is not the workspace's. */
export async function updateAgent(
  db: Db,
  tenantId: string,
  agentId: string,
  change: { name?: string; max_call_minutes?: number; voice?: VoiceChange },
): Promise<AgentDoc | null> {
  const { agents } = collections(db);
  const set: Record<string, unknown> = {};
  const unset: Record<string, ''> = {};
  if (change.name !== undefined) set.name = change.name;
  if (change.max_call_minutes !== undefined) set.max_call_minutes = change.max_call_minutes;
  for (const [field, value] of Object.entries(change.voice ?? {})) {
    if (value === null) unset[`voice.${field}`] = '';
    else if (value !== undefined) set[`voice.${field}`] = value;
  }
  const update: UpdateFilter<AgentDoc> = {};
  if (Object.keys(set).length > 0) update.$set = set;
  if (Object.keys(unset).length > 0) update.$unset = unset;
  const filter = { _id: agentId, tenant_id: tenantId };
  const updated = Object.keys(update).length > 0 ? await agents.findOneAndUpdate(filter, update, { returnDocument: 'after' }) : await agents.findOne(filter);
  if (!updated) return null;
  tenantReadModelChanged(tenantId);
  return updated;
}

export async function agentExists(db: Db, tenantId: string, agentId: string): Promise<boolean> {
  return (await findAgent(db, tenantId, agentId)) !== null;
}

/** An agent of the workspace, or null. */
export async function findAgent(db: Db, tenantId: string, agentId: string): Promise<AgentDoc | null> {
  return collections(db).agents.findOne({ _id: agentId, tenant_id: tenantId });
}

/** Registers a number (E.164); null when it is already registered, in any workspace. */
export async function registerNumber(
  db: Db,
  tenantId: string,
  input: { number: string; agent_id: string | null; recording: boolean; team_line: string | null },
  now: Date,
): Promise<PhoneNumberDoc | null> {
  const doc: PhoneNumberDoc = {
    _id: input.number.slice(1),
    tenant_id: tenantId,
    number: input.number,
    agent_id: input.agent_id,
    active: true,
    recording: input.recording,
    team_line: input.team_line,
    created_at: now,
  };
  if (!(await insertIfAbsent(collections(db).phoneNumbers, doc))) return null;
  tenantReadModelChanged(tenantId);
  return doc;
}

/** Deploys an agent (or none), sets the team line or the state; null when the number is not the workspace's. */
export async function updateNumber(
  db: Db,
  tenantId: string,
  digits: string,
  change: Partial<Pick<PhoneNumberDoc, 'agent_id' | 'active' | 'recording' | 'team_line'>>,
): Promise<PhoneNumberDoc | null> {
  const updated = await collections(db).phoneNumbers.findOneAndUpdate({ _id: digits, tenant_id: tenantId }, { $set: change }, { returnDocument: 'after' });
  if (updated) tenantReadModelChanged(tenantId);
  return updated;
}
