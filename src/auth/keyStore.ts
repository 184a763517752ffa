import type { Db } from 'mongodb';
import { collections, type ApiKeyDoc } from '../db/collections';
import { LIMITS } from '../domain/limits';
import { newId } from '../domain/ids';
import type { Scope } from '../domain/scopes';
import { generateApiKey, type KeyEnvironment } from './apiKeys';
import { credentialsChanged } from './credentialCache';

export interface IssuedKey {
  key: ApiKeyDoc;
  /** Shown once, at creation; only its hash is stored. */
  plaintext: string;
}

/** Creates, rolls and revokes keys; scopes are fixed when a key is created. */
export class KeyStore {
  private readonly keys;

  constructor(db: Db, private readonly now: () => Date = () => new Date()) {
    this.keys = collections(db).apiKeys;
  }

  async create(tenantId: string, scopes: Scope[], environment: KeyEnvironment): Promise<IssuedKey> {
    const created = generateApiKey(environment);
    const key: ApiKeyDoc = {
      _id: created.hash,
      key_id: newId('key', this.now()),
      tenant_id: tenantId,
      environment,
      scopes: [...new Set(scopes)],
      display_prefix: created.displayPrefix,
      created_at: this.now(),
      revoked_at: null,
      expires_at: null,
    };
    await this.keys.insertOne(key);
    return { key, plaintext: created.plaintext };
  }

  list(tenantId: string): Promise<ApiKeyDoc[]> {
    return this.keys.find({ tenant_id: tenantId }).sort({ created_at: 1 }).toArray();
  }

  get(tenantId: string, keyId: string): Promise<ApiKeyDoc | null> {
    return this.keys.findOne({ tenant_id: tenantId, key_id: keyId });
  }

  /**
   * A new key with the same scopes and environment; the old one keeps working for the grace
   * period and is refused as expired after it. Rolling an already rolled or revoked key is
   * refused (null) so one key cannot spawn many live successors.
   */
  async roll(tenantId: string, keyId: string): Promise<IssuedKey | null> {
    const now = this.now();
    const graceEnd = new Date(now.getTime() + LIMITS.rolledKeyGraceHours * 3_600_000);
    const old = await this.keys.findOneAndUpdate(
      { tenant_id: tenantId, key_id: keyId, revoked_at: null, expires_at: null },
      { $set: { expires_at: graceEnd } },
      { returnDocument: 'after' },
    );
    if (!old) return null;
    credentialsChanged(tenantId);
    return this.create(tenantId, old.scopes, old.environment);
  }

  /** Permanent. Revoking twice keeps the first time. */
  async revoke(tenantId: string, keyId: string): Promise<ApiKeyDoc | null> {
    await this.keys.updateOne({ tenant_id: tenantId, key_id: keyId, revoked_at: null }, { $set: { revoked_at: this.now() } });
    credentialsChanged(tenantId);
    return this.get(tenantId, keyId);
  }
}
