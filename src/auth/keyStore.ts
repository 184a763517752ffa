import type { Db } from 'mongodb';
import { collections, type ApiKeyDoc } from '../db/collections';
import { LIMITS } from '../domain/limits';
import { newId } from '../domain/ids';
import type { Scope } from '../domain/scopes';
import { generateApiKey, type KeyEnvironment } from './apiKeys';
import { credentialsChanged } from './credentialCache';
import { KeyIssueRefusal } from './keyRefusal';
import { lastUses } from './keyUses';

/** What a person asks for when creating a key in the console. */
export interface KeyRequest {
  name: string;
  scopes: Scope[];
  environment: KeyEnvironment;
}

/** A stored key with its last use (null: never used, or not since uses were recorded). */
export type KeyWithUse = ApiKeyDoc & { last_used_at: Date | null };

export interface IssuedKey {
  key: ApiKeyDoc;
  /** Shown once, at creation; only its hash is stored. */
  plaintext: string;
}

/** Creates, rolls and revokes keys; scopes are fixed when a key is created. */
export class KeyStore {
  private readonly keys;

  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.keys = collections(db).apiKeys;
  }

  /**
   * A key the console asked for, refused (KeyIssueRefusal) when it could never be used: no
   * scopes, or another environment than the one this deployment serves (`served`).
   */
  async issue(tenantId: string, request: KeyRequest, served: KeyEnvironment): Promise<IssuedKey> {
    if (request.scopes.length === 0) {
      throw new KeyIssueRefusal('key_scopes_required', 'A key needs at least one scope: with none it could call nothing. Choose what it may do, e.g. calls:write.', {
        loc: ['body', 'scopes'],
      });
    }
    if (request.environment !== served) {
      throw new KeyIssueRefusal(
        'key_environment_not_served',
        `This deployment runs in ${served} mode (API_ENVIRONMENT=${served}) and accepts only ${served} keys, so a ${request.environment} key made here would be refused on every request. Create ${request.environment} keys on a ${request.environment} deployment.`,
        { loc: ['body', 'environment'], environment: request.environment, deployment_environment: served },
      );
    }
    return this.create(tenantId, request.scopes, request.environment, request.name);
  }

  /**
   * Stores a key as given, checking nothing (set-ups, benchmarks, a roll); the console issues
   * through `issue`. `name` is absent only for keys made before keys had names.
   */
  async create(tenantId: string, scopes: Scope[], environment: KeyEnvironment, name?: string): Promise<IssuedKey> {
    const created = generateApiKey(environment);
    const key: ApiKeyDoc = {
      _id: created.hash,
      key_id: newId('key', this.now()),
      tenant_id: tenantId,
      ...(name === undefined ? {} : { name }),
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

  /** The workspace's keys, oldest first, each with its last use. */
  async list(tenantId: string): Promise<KeyWithUse[]> {
    const keys = await this.keys.find({ tenant_id: tenantId }).sort({ created_at: 1 }).toArray();
    const used = await lastUses(this.db, tenantId, keys.map((k) => k.key_id));
    return keys.map((k) => ({ ...k, last_used_at: used.get(k.key_id) ?? null }));
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
    return this.create(tenantId, old.scopes, old.environment, old.name);
  }

  /** Permanent. Revoking twice keeps the first time. */
  async revoke(tenantId: string, keyId: string): Promise<ApiKeyDoc | null> {
    await this.keys.updateOne({ tenant_id: tenantId, key_id: keyId, revoked_at: null }, { $set: { revoked_at: this.now() } });
    credentialsChanged(tenantId);
    return this.get(tenantId, keyId);
  }
}
