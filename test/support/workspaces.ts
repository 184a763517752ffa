import type { Db } from 'mongodb';
import { credentialsChanged } from '../../src/auth/credentialCache';
import { KeyStore } from '../../src/auth/keyStore';
import type { KeyEnvironment } from '../../src/auth/apiKeys';
import { collections } from '../../src/db/collections';
import { seedDemoWorkspace } from '../../src/demo/seedDemoWorkspace';
import { SCOPES, type Scope } from '../../src/domain/scopes';
import { uniqueName } from './env';

export interface TestWorkspace {
  workspaceId: string;
  key: string;
  keyId: string;
  agentId: string;
  phoneNumber: string;
  senderId: string;
  /** Another key of the same workspace with the given scopes. */
  addKey(scopes: Scope[], environment?: KeyEnvironment): Promise<{ key: string; keyId: string }>;
}

export interface TestWorkspaceOptions {
  scopes?: Scope[];
  environment?: KeyEnvironment;
  /** Deploy the demo agent to the sender as its chat agent (off: inbound messages then start no agent workflow). */
  chatAgent?: boolean;
}

/** A demo-shaped workspace of its own with a full-scope test key. */
export async function createTestWorkspace(db: Db, options: TestWorkspaceOptions = {}): Promise<TestWorkspace> {
  const workspaceId = uniqueName('ws');
  const seeded = await seedDemoWorkspace(db, { workspaceId, name: workspaceId, environment: 'test', chatAgent: options.chatAgent ?? false });
  const keys = new KeyStore(db);
  let key = seeded.apiKey;
  if (options.scopes || options.environment) {
    key = (await keys.create(workspaceId, options.scopes ?? [...SCOPES], options.environment ?? 'test')).plaintext;
  }
  const all = await keys.list(workspaceId);
  const keyDoc = all[all.length - 1]!;
  return {
    workspaceId,
    key,
    keyId: keyDoc.key_id,
    agentId: seeded.agentId,
    phoneNumber: seeded.phoneNumber,
    senderId: seeded.senderId,
    addKey: async (scopes, environment = 'test') => {
      const issued = await keys.create(workspaceId, scopes, environment);
      return { key: issued.plaintext, keyId: issued.key.key_id };
    },
  };
}

/** As the console suspends: the API processes of this test see it at once (src/auth/credentialCache.ts). */
export async function suspend(db: Db, workspaceId: string, suspended = true): Promise<void> {
  await collections(db).workspaces.updateOne({ _id: workspaceId }, { $set: { suspended } });
  credentialsChanged(workspaceId);
}
