import type { Collection, Filter, OptionalUnlessRequiredId, UpdateFilter } from 'mongodb';
import { insertIfAbsent } from './insertIfAbsent';

/**
 * The versioned write, one protocol for every record that changes by versions (campaigns,
 * dues, tickets). FerretDB applies a conditional update (`{version: n}`) by reading and then
 * writing, so that filter alone lets several writers through; inserting a unique `_id` is
 * atomic there. So a writer first claims version n + 1 by inserting its claim (one document
 * per version, its `_id` derived from the record and the version), and only the winner writes
 * it. The claim carries the whole top-level fields it writes (`set`, never dotted paths, never
 * `$inc`), so writing it twice gives the same record, and a writer that died between its claim
 * and its write is finished by the next one once the lease has passed.
 */

export interface VersionedDoc {
  _id: string;
  version: number;
}

export interface VersionClaimDoc {
  _id: string;
  version: number;
  /** Whole top-level fields this version writes, so anyone can finish it. */
  set: Record<string, unknown>;
  created_at: Date;
}

export interface VersionedStore<Doc extends VersionedDoc, Claim extends VersionClaimDoc> {
  records: Collection<Doc>;
  claims: Collection<Claim>;
  /** The record a claim is for. */
  recordOf: (claim: Claim) => string;
  /** The record as it is now (a feature's point read, its workspace checked); by `_id` when absent. */
  read?: (claim: Claim) => Promise<Doc | null>;
}

/**
 * The claim of the version after `record`'s: its `_id` from the feature's `claimId`, `set`
 * stamped with `updated_at`, and the feature's own fields (`fields`: which record, who, why).
 */
export function nextVersionClaim<Fields extends object>(
  record: { _id: string; tenant_id: string; version: number },
  claimId: (recordId: string, version: number) => string,
  fields: Fields,
  set: Record<string, unknown>,
  now: Date,
): Omit<VersionClaimDoc, '_id'> & { _id: string; tenant_id: string } & Fields {
  const version = record.version + 1;
  return { _id: claimId(record._id, version), tenant_id: record.tenant_id, ...fields, version, set: { ...set, updated_at: now }, created_at: now };
}

/** Inserts the claim for its version: true for the one writer that wins it. */
export function claimVersion<Claim extends VersionClaimDoc>(store: { claims: Collection<Claim> }, claim: Claim): Promise<boolean> {
  return insertIfAbsent(store.claims, claim as OptionalUnlessRequiredId<Claim>);
}

/** The claim that holds a version (the one a lost claim lost to); null if it is gone. */
export async function claimHolding<Claim extends VersionClaimDoc>(store: { claims: Collection<Claim> }, claimId: string): Promise<Claim | null> {
  return (await store.claims.findOne({ _id: claimId } as Filter<Claim>)) as Claim | null;
}

/**
 * Whether the claim that won was left by a writer that died: held longer than the lease and
 * the record still one version behind it. The next writer then finishes it (`writeClaim`).
 */
export function isAbandoned(winner: VersionClaimDoc, current: VersionedDoc, now: Date, leaseMs: number): boolean {
  return current.version === winner.version - 1 && now.getTime() - winner.created_at.getTime() > leaseMs;
}

/**
 * Writes a claimed version (with `extra`: whole fields known only once the claim's effect
 * ran). `$set` of the version, never `$inc`: writing the same claim twice gives the same
 * record. Answers the record at (or past) the claim's version, or null when it is at neither
 * version (a claim out of turn).
 */
export async function writeClaim<Doc extends VersionedDoc, Claim extends VersionClaimDoc>(
  store: VersionedStore<Doc, Claim>,
  claim: Claim,
  extra: Record<string, unknown> = {},
): Promise<Doc | null> {
  const id = store.recordOf(claim);
  const written = await store.records.findOneAndUpdate(
    { _id: id, version: claim.version - 1 } as Filter<Doc>,
    { $set: { ...claim.set, ...extra, version: claim.version } } as UpdateFilter<Doc>,
    { returnDocument: 'after' },
  );
  if (written) return written as Doc;
  const current = store.read ? await store.read(claim) : ((await store.records.findOne({ _id: id } as Filter<Doc>)) as Doc | null);
  return current && current.version >= claim.version ? current : null;
}
