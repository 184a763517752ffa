import type { Collection, Db } from 'mongodb';
import type { ApiKeyDoc } from '../db/collections';
import { findByIds } from '../db/findByIds';
import { isDuplicateKey } from '../db/duplicateKey';

/**
 * When each key was last used, as the console shows it ("last used 3 minutes ago"). Kept in
 * its own collection, one document per key (`_id` the key id), never on the key itself:
 * FerretDB applies an update by reading the document and writing it back whole, so a
 * last-used write racing a revocation of the same key document could write `revoked_at: null`
 * back over it. A write here can only lose a time.
 */
export interface KeyUseDoc {
  /** The key's `key_id`. */
  _id: string;
  tenant_id: string;
  last_used_at: Date;
}

export function keyUses(db: Db): Collection<KeyUseDoc> {
  return db.collection<KeyUseDoc>('api_key_uses');
}

/** How stale a key's last use may be: each API process writes it at most once in this long per key. */
export const KEY_USE_WRITE_INTERVAL_MS = 60_000;

/** Bounds memory: past this many keys the oldest entries are dropped (their next use is written again). */
const MAX_TRACKED_KEYS = 20_000;

/**
 * Records a key's use at most once a KEY_USE_WRITE_INTERVAL_MS per key in this process, so a
 * busy key costs one write a minute, not one per request. The write is not awaited: the
 * request never waits on it, and a failed write is forgotten, so the key's next use tries
 * again.
 */
export class KeyUseRecorder {
  /** Key id → the time of the last write this process started (ms). */
  private readonly written = new Map<string, number>();
  private readonly uses: Collection<KeyUseDoc>;

  constructor(db: Db) {
    this.uses = keyUses(db);
  }

  seen(key: Pick<ApiKeyDoc, 'key_id' | 'tenant_id'>, at: Date): void {
    const last = this.written.get(key.key_id);
    if (last !== undefined && at.getTime() - last < KEY_USE_WRITE_INTERVAL_MS) return;
    this.written.delete(key.key_id);
    this.written.set(key.key_id, at.getTime());
    if (this.written.size > MAX_TRACKED_KEYS) this.written.delete(this.written.keys().next().value!);
    this.uses.updateOne({ _id: key.key_id }, { $set: { tenant_id: key.tenant_id, last_used_at: at } }, { upsert: true }).catch((err: unknown) => {
      // Two processes inserting the first use at once: the other one's time stands.
      if (isDuplicateKey(err)) return;
      if (this.written.get(key.key_id) === at.getTime()) this.written.delete(key.key_id);
    });
  }
}

/** The last use of each of these keys that has one, by key id (one `_id $in` read). */
export async function lastUses(db: Db, tenantId: string, keyIds: readonly string[]): Promise<Map<string, Date>> {
  const docs = await findByIds(keyUses(db), keyIds);
  return new Map(docs.filter((d) => d.tenant_id === tenantId).map((d) => [d._id, d.last_used_at]));
}
