import type { Db } from 'mongodb';
import { claimHolding, claimVersion, isAbandoned, writeClaim, type VersionClaimDoc, type VersionedStore } from '../../../src/db/versionedWrite';
import { openTestDb, testConfig } from '../../support/env';

interface NoteDoc {
  _id: string;
  version: number;
  text: string;
}
interface NoteClaim extends VersionClaimDoc {
  note_id: string;
}

/** The versioned write shared by campaigns, dues and tickets, on FerretDB itself. */
describe('versioned write (src/db/versionedWrite.ts)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let store: VersionedStore<NoteDoc, NoteClaim>;
  const at = new Date('2026-03-01T10:00:00Z');
  const claimOf = (id: string, version: number, text: string, createdAt = at): NoteClaim => ({
    _id: `${id}:v${version}`,
    note_id: id,
    version,
    set: { text },
    created_at: createdAt,
  });

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    store = { records: db.collection<NoteDoc>('notes'), claims: db.collection<NoteClaim>('note_versions'), recordOf: (claim) => claim.note_id };
  });
  afterAll(() => drop());

  it('gives a version to exactly one of parallel claimers, and the loser finds the winner', async () => {
    await store.records.insertOne({ _id: 'n1', version: 1, text: 'a' });
    const claims = Array.from({ length: 6 }, (_, i) => claimOf('n1', 2, `writer ${i}`));
    const won = await Promise.all(claims.map((c) => claimVersion(store, c)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = claims[won.indexOf(true)]!;
    expect(await claimHolding(store, 'n1:v2')).toMatchObject({ version: 2, set: { text: winner.set.text } });
    expect(await writeClaim(store, winner)).toEqual({ _id: 'n1', version: 2, text: winner.set.text });
  });

  it('writes a claim twice to the same record, adds extra fields, and refuses a claim out of turn', async () => {
    await store.records.insertOne({ _id: 'n2', version: 1, text: 'a' });
    const claim = claimOf('n2', 2, 'b');
    expect(await claimVersion(store, claim)).toBe(true);
    expect(await writeClaim(store, claim, { extra: 3 })).toEqual({ _id: 'n2', version: 2, text: 'b', extra: 3 });
    // Written already: the record at the claim's version is the answer, unchanged.
    expect(await writeClaim(store, claim)).toEqual({ _id: 'n2', version: 2, text: 'b', extra: 3 });
    // A claim two versions ahead finds the record at neither version.
    expect(await writeClaim(store, claimOf('n2', 4, 'd'))).toBeNull();
    expect(await store.records.findOne({ _id: 'n2' })).toEqual({ _id: 'n2', version: 2, text: 'b', extra: 3 });
  });

  it('lets the next writer finish a claim left unwritten past its lease, and only then', async () => {
    await store.records.insertOne({ _id: 'n3', version: 1, text: 'a' });
    const left = claimOf('n3', 2, 'left by a dead writer', new Date(at.getTime() - 31_000));
    expect(await claimVersion(store, left)).toBe(true);
    const current = (await store.records.findOne({ _id: 'n3' }))!;
    expect(isAbandoned(left, current, at, 30_000)).toBe(true);
    expect(isAbandoned(left, current, at, 60_000)).toBe(false);
    expect(await claimVersion(store, claimOf('n3', 2, 'late'))).toBe(false);
    const finished = await writeClaim(store, (await claimHolding(store, 'n3:v2'))!);
    expect(finished).toEqual({ _id: 'n3', version: 2, text: 'left by a dead writer' });
    // Once written, the record is no longer one behind the claim: nothing is left to finish.
    expect(isAbandoned(left, finished!, at, 30_000)).toBe(false);
  });

  it('reads the record through the store’s own read when the write does not apply', async () => {
    await store.records.insertOne({ _id: 'n4', version: 3, text: 'c' });
    const reads: string[] = [];
    const reading: VersionedStore<NoteDoc, NoteClaim> = { ...store, read: async (claim) => (reads.push(claim._id), store.records.findOne({ _id: claim.note_id })) };
    expect(await writeClaim(reading, claimOf('n4', 2, 'old'))).toEqual({ _id: 'n4', version: 3, text: 'c' });
    expect(reads).toEqual(['n4:v2']);
  });
});
