import type { CountryCode } from 'libphonenumber-js';
import type { Db } from 'mongodb';
import { credentialsChanged, type KeyEnvironment } from '../auth';
import { collections, type WorkspaceDoc } from '../db/collections';
import { seedDemoWorkspace } from '../demo';
import { newId } from '../domain/ids';
import { newWorkspace } from './workspaces';

/**
 * The console's workspace actions: create one (plain, or seeded like the demo workspace),
 * change its named keys, change one of its settings groups. A change forgets the workspace's
 * cached standing in this process (src/auth/credentialCache.ts).
 */

export interface WorkspaceInput {
  name: string;
  country: CountryCode;
  timezone?: string;
  demo: boolean;
}

/** The new workspace, and for a demo workspace its full-scope key (shown this once). */
export async function createWorkspace(db: Db, input: WorkspaceInput, environment: KeyEnvironment, now: Date): Promise<{ workspace: WorkspaceDoc; apiKey?: string }> {
  const { workspaces } = collections(db);
  if (input.demo) {
    const workspaceId = newId('ws', now);
    const seeded = await seedDemoWorkspace(db, { workspaceId, name: input.name, environment, now });
    const changes: Record<string, unknown> = {};
    if (input.country !== 'IN') changes.country = input.country;
    if (input.timezone) changes.timezone = input.timezone;
    if (Object.keys(changes).length) await workspaces.updateOne({ _id: workspaceId }, { $set: changes });
    return { workspace: (await workspaces.findOne({ _id: workspaceId }))!, apiKey: seeded.apiKey };
  }
  const workspace = newWorkspace(input, now);
  await workspaces.insertOne(workspace);
  return { workspace };
}

/** Nested objects become dotted paths, so a change names only the keys it changes. */
export function dottedPaths(change: Record<string, unknown>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(change)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) Object.assign(out, dottedPaths(value as Record<string, unknown>, `${prefix}${key}.`));
    else out[`${prefix}${key}`] = value;
  }
  return out;
}

/** Sets the named keys (nested objects change only the keys they name); null when the workspace is gone. */
export async function updateWorkspace(db: Db, workspaceId: string, change: Record<string, unknown>, now: Date): Promise<WorkspaceDoc | null> {
  const updated = await collections(db).workspaces.findOneAndUpdate({ _id: workspaceId }, { $set: { ...dottedPaths(change), updated_at: now } }, { returnDocument: 'after' });
  credentialsChanged(workspaceId);
  return updated;
}

/** The settings groups a workspace keeps for its features, each changed key by key. */
export type SettingsGroup = 'ticket_settings' | 'campaign_settings';

/** Sets the named keys of one settings group (a list replaces the stored list); null when the workspace is gone. */
export async function updateWorkspaceSettings(db: Db, workspaceId: string, group: SettingsGroup, change: Record<string, unknown>, now: Date): Promise<WorkspaceDoc | null> {
  const set = Object.fromEntries(Object.entries(change).map(([key, value]) => [`${group}.${key}`, value]));
  const updated = await collections(db).workspaces.findOneAndUpdate({ _id: workspaceId }, { $set: { ...set, updated_at: now } }, { returnDocument: 'after' });
  credentialsChanged(workspaceId);
  return updated;
}
