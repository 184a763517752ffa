import type { Db } from 'mongodb';
import { claimHolding, claimVersion, isAbandoned, nextVersionClaim, writeClaim, type VersionedStore } from '../db/versionedWrite';
import { movingDueEntries } from './dueEntries';
import { duesCollections, type DueDoc, type DueVersionDoc } from './store';

/**
 * Every change to a due (the chase's moves, a payment, a waiver, a cancellation) takes the
 * due's next version by the versioned write (src/db/versionedWrite.ts): the claim
 * `<due_id>:v<n>` has one winner (a payment racing a reminder, a gateway webhook racing a
 * manual mark), and a writer that died between claim and write is finished by the next one.
 */

/** A claim older than this whose due never reached its version was left by a process that died. */
export const DUE_CLAIM_LEASE_MS = 30_000;

const versionId = (dueId: string, version: number) => `${dueId}:v${version}`;

const versioned = (db: Db): VersionedStore<DueDoc, DueVersionDoc> => {
  const { dues, versions } = duesCollections(db);
  return { records: dues, claims: versions, recordOf: (claim) => claim.due_id };
};

/** Writes a claim over `current`, moving the due's list entries with its status (src/dues/dueEntries.ts). */
const writeDueClaim = (db: Db, current: DueDoc, claim: DueVersionDoc): Promise<DueDoc | null> =>
  movingDueEntries(db, current, { ...current, ...(claim.set as Partial<DueDoc>) }, () => writeClaim(versioned(db), claim));

export type DueChange = { kind: 'written'; due: DueDoc } | { kind: 'lost'; current: DueDoc };

/** Writes `set` as the version after `due.version`, or answers the due as another writer left it. */
export async function changeDue(db: Db, due: DueDoc, set: Partial<DueDoc>, now: Date): Promise<DueChange> {
  const { dues } = duesCollections(db);
  const store = versioned(db);
  const claim: DueVersionDoc = nextVersionClaim(due, versionId, { due_id: due._id }, set, now);
  if (!(await claimVersion(store, claim))) {
    const winner = await claimHolding(store, claim._id);
    const current = (await dues.findOne({ _id: due._id }))!;
    if (winner && isAbandoned(winner, current, now, DUE_CLAIM_LEASE_MS)) {
      return { kind: 'lost', current: (await writeDueClaim(db, current, winner)) ?? current };
    }
    return { kind: 'lost', current };
  }
  const written = await writeDueClaim(db, due, claim);
  if (!written) return { kind: 'lost', current: (await dues.findOne({ _id: due._id }))! };
  return { kind: 'written', due: written };
}

/**
 * Applies `change` to the due as it is now, again and again while other writers win: for the
 * system's own moves (the chase), which must land on whatever version is current. `change`
 * answers null when the due no longer wants it (it was paid meanwhile, say).
 */
export async function changeDueLatest(
  db: Db,
  dueId: string,
  change: (due: DueDoc) => Partial<DueDoc> | null,
  now: () => Date,
): Promise<DueDoc | null> {
  let due = await duesCollections(db).dues.findOne({ _id: dueId });
  for (let round = 0; due && round < 10; round++) {
    const set = change(due);
    if (!set) return null;
    const result = await changeDue(db, due, set, now());
    if (result.kind === 'written') return result.due;
    due = result.current;
  }
  if (!due) return null;
  throw new Error(`due ${dueId} kept changing under ten attempts to write it`);
}
