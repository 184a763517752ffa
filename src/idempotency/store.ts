import { createHash } from 'node:crypto';
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { LIMITS } from '../domain/limits';
import { sweepOldestFirst } from '../db/oldestFirst';

export interface StoredResponse {
  status: number;
  /** The JSON body exactly as first sent. */
  body: string;
}

interface IdempotencyDoc {
  _id: string;
  body_hash: string;
  state: 'in_progress' | 'completed';
  /** The request holding the claim; only it may complete or release it. */
  owner: string;
  lease_until: Date;
  response: StoredResponse | null;
  created_at: Date;
  expires_at: Date;
}

export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'reuse' }
  | { kind: 'in_progress' };

export interface ClaimScope {
  tenantId: string;
  keyId: string;
  endpoint: string;
  idempotencyKey: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Idempotency-Key claims (api-core §4), one document per workspace, API key, endpoint and
 * key. Every change is a single-document atomic write conditioned on what was read, so it
 * holds on FerretDB (no transactions) and under concurrency: of N requests racing for one
 * key exactly one inserts the claim.
 */
export class IdempotencyStore {
  private readonly claims: Collection<IdempotencyDoc>;

  constructor(db: Db) {
    this.claims = db.collection<IdempotencyDoc>('idempotency_keys');
  }

  static id(scope: ClaimScope): string {
    return sha256(JSON.stringify([scope.tenantId, scope.keyId, scope.endpoint, scope.idempotencyKey]));
  }

  async claim(scope: ClaimScope, rawBody: Buffer, owner: string, now: Date): Promise<ClaimResult> {
    const id = IdempotencyStore.id(scope);
    const bodyHash = sha256(rawBody);
    const fresh = (): IdempotencyDoc => ({
      _id: id,
      body_hash: bodyHash,
      state: 'in_progress',
      owner,
      lease_until: new Date(now.getTime() + LIMITS.idempotencyLeaseSeconds * 1000),
      response: null,
      created_at: now,
      expires_at: new Date(now.getTime() + LIMITS.idempotencyTtlHours * 3_600_000),
    });
    // Two rounds at most: a claim that expired or whose owner died is replaced, then re-read.
    for (let round = 0; round < 2; round++) {
      try {
        await this.claims.insertOne(fresh());
        return { kind: 'claimed' };
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
      }
      const existing = await this.claims.findOne({ _id: id });
      if (!existing) continue;
      if (existing.expires_at <= now) {
        const replaced = await this.claims.findOneAndReplace({ _id: id, expires_at: existing.expires_at, owner: existing.owner }, fresh());
        if (replaced) return { kind: 'claimed' };
        continue;
      }
      if (existing.body_hash !== bodyHash) return { kind: 'reuse' };
      if (existing.state === 'completed' && existing.response) return { kind: 'replay', response: existing.response };
      if (existing.lease_until > now) return { kind: 'in_progress' };
      const takenOver = await this.claims.findOneAndUpdate(
        { _id: id, state: 'in_progress', owner: existing.owner, lease_until: existing.lease_until },
        { $set: { owner, lease_until: fresh().lease_until } },
      );
      return takenOver ? { kind: 'claimed' } : { kind: 'in_progress' };
    }
    return { kind: 'in_progress' };
  }

  /** Stores the success to replay for the rest of the key's lifetime. */
  async complete(scope: ClaimScope, owner: string, response: StoredResponse): Promise<void> {
    await this.claims.updateOne({ _id: IdempotencyStore.id(scope), owner }, { $set: { state: 'completed', response } });
  }

  /** A failed request gives its key back, so a retry with it runs fresh. */
  async release(scope: ClaimScope, owner: string): Promise<void> {
    await this.claims.deleteOne({ _id: IdempotencyStore.id(scope), owner, state: 'in_progress' });
  }

  /**
   * No TTL indexes on FerretDB: expired claims (24 h after their first request) are deleted
   * by a sweep from the oldest end, a bounded number per pass (src/db/oldestFirst.ts). The
   * delete goes by `_id` alone (any other condition scans on FerretDB), so a claim replaced
   * between the sweep's read and its delete (a key reused the instant it expired) is lost;
   * that request then stores no replay, nothing worse.
   */
  async sweep(now: Date, batch?: { batchSize?: number; maxBatches?: number }): Promise<number> {
    return sweepOldestFirst(this.claims, { ...batch, projection: { _id: 1, expires_at: 1 }, mayGo: (claim) => claim.expires_at <= now });
  }
}
