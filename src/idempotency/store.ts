import { createHash } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { insertIfAbsent } from '../db/insertIfAbsent';
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
  /**
   * The request runs. `firstAt` is when the key's record was first claimed: a request that
   * takes a dead one's claim over gets the same, so what the request creates can be named by
   * the record (`recordId`, `firstAt`) and a take-over finds what the dead request created.
   */
  | { kind: 'claimed'; recordId: string; firstAt: Date }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'reuse' }
  /** `holder`: the request whose live lease holds the key, when that is why. */
  | { kind: 'in_progress'; holder?: string };

export interface ClaimScope {
  tenantId: string;
  keyId: string;
  endpoint: string;
  idempotencyKey: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Who took a claim over from `taken_from`: `_id` `<claim id>|after|<taken_from>`. Inserting it
 * is the take-over, so of many requests that found the same lapsed holder (or the same
 * expired record) exactly one wins: FerretDB 1.x makes only unique inserts one-winner, and
 * the conditional update that follows is written by the winner alone.
 */
interface TakeoverDoc {
  _id: string;
  taken_by: string;
  /** The winner holds the claim this long before it is written into the record. */
  lease_until: Date;
  /** That of the record it took over (or the new record, for an expired one): none is ever won twice. */
  expires_at: Date;
}

/** How long a running request's claim holds without a renewal: the wait it tells a retry, and a margin. */
export const IDEMPOTENCY_LEASE_MS = LIMITS.idempotencyLeaseSeconds * 1000;

/** How often a running request renews its claim: a holder is taken over only after missing several in a row. */
export const IDEMPOTENCY_RENEW_MS = IDEMPOTENCY_LEASE_MS / 5;

/** Hops along take-overs whose winners died before writing the record; more is never needed in practice. */
const MAX_TAKEOVER_HOPS = 4;

/**
 * Idempotency-Key claims (api-core §4), one document per workspace, API key, endpoint and
 * key. The first request inserts it: of N requests racing for one key exactly one does. A
 * running request holds its claim by a lease it renews (`renew`); a claim whose holder died
 * is taken over once the lease lapses, and an expired record is replaced, each through a
 * take-over record (`TakeoverDoc`), the one-winner claim on FerretDB (no transactions, no
 * atomic conditional updates).
 */
export class IdempotencyStore {
  private readonly claims: Collection<IdempotencyDoc>;
  private readonly takeovers: Collection<TakeoverDoc>;

  constructor(db: Db) {
    this.claims = db.collection<IdempotencyDoc>('idempotency_keys');
    this.takeovers = db.collection<TakeoverDoc>('idempotency_takeovers');
  }

  static id(scope: ClaimScope): string {
    return sha256(JSON.stringify([scope.tenantId, scope.keyId, scope.endpoint, scope.idempotencyKey]));
  }

  async claim(scope: ClaimScope, rawBody: Buffer, owner: string, now: Date): Promise<ClaimResult> {
    const id = IdempotencyStore.id(scope);
    const bodyHash = sha256(rawBody);
    const leaseUntil = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS);
    const fresh = (): IdempotencyDoc => ({
      _id: id,
      body_hash: bodyHash,
      state: 'in_progress',
      owner,
      lease_until: leaseUntil,
      response: null,
      created_at: now,
      expires_at: new Date(now.getTime() + LIMITS.idempotencyTtlHours * 3_600_000),
    });
    // Two rounds at most: a record released between the insert and the read is inserted again.
    for (let round = 0; round < 2; round++) {
      if (await insertIfAbsent(this.claims, fresh())) return { kind: 'claimed', recordId: id, firstAt: now };
      const existing = await this.claims.findOne({ _id: id });
      if (!existing) continue;
      if (existing.expires_at <= now) {
        // An expired record is a new claim for whoever takes it over.
        const record = fresh();
        if (!(await this.takeOver(id, existing.owner, owner, leaseUntil, record.expires_at, now))) return { kind: 'in_progress' };
        const replaced = await this.claims.replaceOne({ _id: id, owner: existing.owner }, record);
        return replaced.matchedCount > 0 ? { kind: 'claimed', recordId: id, firstAt: now } : { kind: 'in_progress' };
      }
      if (existing.body_hash !== bodyHash) return { kind: 'reuse' };
      if (existing.state === 'completed' && existing.response) return { kind: 'replay', response: existing.response };
      if (existing.lease_until > now) return { kind: 'in_progress', holder: existing.owner };
      // Its holder stopped renewing: it died mid-request (or the request outlived its process).
      if (!(await this.takeOver(id, existing.owner, owner, leaseUntil, existing.expires_at, now))) return { kind: 'in_progress' };
      const taken = await this.claims.updateOne({ _id: id, owner: existing.owner }, { $set: { owner, lease_until: leaseUntil } });
      return taken.matchedCount > 0 ? { kind: 'claimed', recordId: id, firstAt: existing.created_at } : { kind: 'in_progress' };
    }
    return { kind: 'in_progress' };
  }

  /**
   * Whether `owner` won the take-over of the record as read. A take-over whose winner died
   * before writing the record is itself taken over once its own lease lapses.
   */
  private async takeOver(id: string, holder: string, owner: string, leaseUntil: Date, expiresAt: Date, now: Date): Promise<boolean> {
    let from = holder;
    for (let hop = 0; hop < MAX_TAKEOVER_HOPS; hop++) {
      const marker: TakeoverDoc = { _id: `${id}|after|${from}`, taken_by: owner, lease_until: leaseUntil, expires_at: expiresAt };
      if (await insertIfAbsent(this.takeovers, marker)) return true;
      const winner = await this.takeovers.findOne({ _id: marker._id });
      if (!winner || winner.lease_until > now) return false;
      from = winner.taken_by;
    }
    return false;
  }

  /**
   * Extends the running request's lease; false once another request has taken the claim
   * over (this one stopped renewing for a whole lease). Not to run beside `complete` or
   * `release` of the same owner: FerretDB writes a whole document back, so the later of two
   * concurrent updates could undo the other.
   */
  async renew(scope: ClaimScope, owner: string, now: Date): Promise<boolean> {
    const lease = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS);
    const result = await this.claims.updateOne({ _id: IdempotencyStore.id(scope), owner, state: 'in_progress' }, { $set: { lease_until: lease } });
    return result.matchedCount > 0;
  }

  /** Stores the success to replay for the rest of the key's lifetime. */
  async complete(scope: ClaimScope, owner: string, response: StoredResponse): Promise<void> {
    await this.claims.updateOne({ _id: IdempotencyStore.id(scope), owner }, { $set: { state: 'completed', response } });
  }

  /** A failed request gives its key back, so a retry with it runs fresh; true when it held the key. */
  async release(scope: ClaimScope, owner: string): Promise<boolean> {
    const result = await this.claims.deleteOne({ _id: IdempotencyStore.id(scope), owner, state: 'in_progress' });
    return result.deletedCount > 0;
  }

  /**
   * No TTL indexes on FerretDB: expired claims (24 h after their first request) are deleted
   * by a sweep from the oldest end, a bounded number per pass (src/db/oldestFirst.ts). The
   * delete goes by `_id` alone (any other condition scans on FerretDB), so a claim replaced
   * between the sweep's read and its delete (a key reused the instant it expired) is lost;
   * that request then stores no replay, nothing worse.
   */
  async sweep(now: Date, batch?: { batchSize?: number; maxBatches?: number }): Promise<number> {
    const options = { ...batch, projection: { _id: 1, expires_at: 1 } };
    const claims = await sweepOldestFirst(this.claims, { ...options, mayGo: (claim) => claim.expires_at <= now });
    const takeovers = await sweepOldestFirst(this.takeovers, { ...options, mayGo: (marker) => marker.expires_at <= now });
    return claims + takeovers;
  }
}
