import type { Db } from 'mongodb';
import { MongoCounterStore } from '../../../src/rateLimit/counterStore';
import { openTestDb, testConfig } from '../../support/env';

/**
 * Request numbers claimed in blocks (unique inserts), shared by every API process: two
 * stores on one database stand for two API processes.
 */
describe('MongoCounterStore', () => {
  let db: Db;
  let drop: () => Promise<void>;
  const windowStart = Date.parse('2026-11-21T12:00:00Z');
  const expires = new Date(windowStart + 120_000);
  const claims = () => db.collection<{ _id: string; expires_at: Date }>('rate_limit_claims');

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });

  afterAll(async () => {
    await drop?.();
  });

  const burst = (store: MongoCounterStore, key: string, n: number) =>
    Promise.all(Array.from({ length: n }, () => store.increment(key, windowStart, expires, 120)));

  it('numbers 150 parallel requests of one process 1…120 exactly once, the rest past the limit, with 15 inserts', async () => {
    const numbers = await burst(new MongoCounterStore(db), 'key_one', 150);
    const admitted = numbers.filter((n) => n <= 120).sort((a, b) => a - b);
    expect(admitted).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(numbers.filter((n) => n > 120)).toHaveLength(30);
    expect(await claims().countDocuments({ _id: { $regex: /^key_one:/ } })).toBe(15);
  });

  it('hands out numbers from memory between claims: one insert per 8 requests of a quiet key', async () => {
    // Each look at the clock is 10 s later: the key never spends a block within CLAIM_AHEAD_WITHIN_MS.
    let now = windowStart;
    const store = new MongoCounterStore(db, 250, 500, () => (now += 10_000));
    const numbers: number[] = [];
    for (let i = 0; i < 8; i++) numbers.push(await store.increment('key_quiet', windowStart, expires, 120));
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await claims().countDocuments({ _id: { $regex: /^key_quiet:/ } })).toBe(1);
    expect(await store.increment('key_quiet', windowStart, expires, 120)).toBe(9);
    expect(await claims().countDocuments({ _id: { $regex: /^key_quiet:/ } })).toBe(2);
  });

  it('claims the next block ahead for a busy key, so its requests do not wait on the insert', async () => {
    // The clock stands still: the six requests come within CLAIM_AHEAD_WITHIN_MS of the claim
    // however slowly a loaded machine runs them.
    const store = new MongoCounterStore(db, 250, 500, () => windowStart);
    const numbers: number[] = [];
    for (let i = 0; i < 6; i++) numbers.push(await store.increment('key_busy', windowStart, expires, 120));
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6]);
    // Two numbers left, spent within 2 s of the claim: block 9…16 is claimed in the background
    // (waited for with a deadline, not a count of short pauses).
    for (const deadline = Date.now() + 30_000; (await claims().countDocuments({ _id: { $regex: /^key_busy:/ } })) < 2 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await claims().find({ _id: { $regex: /^key_busy:/ } }).toArray()).map((c) => c._id).sort()).toEqual([
      `key_busy:${windowStart}:1`,
      `key_busy:${windowStart}:9`,
    ]);
    for (let i = 0; i < 4; i++) numbers.push(await store.increment('key_busy', windowStart, expires, 120));
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('claims ahead never past the ceiling', async () => {
    const store = new MongoCounterStore(db);
    const numbers: number[] = [];
    for (let i = 0; i < 30; i++) numbers.push(await store.increment('key_ceiling', windowStart, expires, 20));
    await new Promise((r) => setTimeout(r, 200));
    expect(numbers.filter((n) => n <= 20)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(numbers.filter((n) => n > 20)).toHaveLength(10);
    expect(await claims().countDocuments({ _id: { $regex: /^key_ceiling:/ } })).toBe(3);
  });

  it('never admits more than 120 across processes, each number once, both busy at once', async () => {
    const [a, b] = [new MongoCounterStore(db), new MongoCounterStore(db)];
    const [fromA, fromB] = await Promise.all([burst(a, 'key_two', 150), burst(b, 'key_two', 150)]);
    const admitted = [...fromA, ...fromB].filter((n) => n <= 120);
    expect(new Set(admitted).size).toBe(admitted.length);
    expect(admitted.length).toBeLessThanOrEqual(120);
    // Both stay busy to the end, so every claimed number is used: none is lost either.
    expect(admitted.length).toBe(120);
  });

  it('leaves numbers held by a quiet process unused, never given twice', async () => {
    const [quiet, busy] = [new MongoCounterStore(db), new MongoCounterStore(db)];
    expect(await quiet.increment('key_three', windowStart, expires, 120)).toBe(1); // holds 1…8
    const fromBusy = (await burst(busy, 'key_three', 150)).filter((n) => n <= 120);
    expect(fromBusy.sort((x, y) => x - y)).toEqual(Array.from({ length: 112 }, (_, i) => i + 9));
    for (let n = 2; n <= 8; n++) expect(await quiet.increment('key_three', windowStart, expires, 120)).toBe(n);
    expect(await quiet.increment('key_three', windowStart, expires, 120)).toBe(121);
  });

  it('sweeps the blocks of ended windows: its own by _id, and at most a batch of those left by others', async () => {
    const sweepDb = db.client.db(`${db.databaseName}_sweep`);
    const coll = sweepDb.collection<{ _id: string; expires_at: Date }>('rate_limit_claims');
    try {
      const store = new MongoCounterStore(sweepDb, 250, 5);
      await burst(store, 'key_own', 40); // 5 blocks of 8
      const gone = Array.from({ length: 8 }, (_, i) => ({ _id: `key_gone:${windowStart}:${i + 1}`, expires_at: expires }));
      await coll.insertMany(gone);
      await store.increment('key_live', windowStart + 60_000, new Date(windowStart + 180_000), 120);

      expect(await store.sweep(new Date(expires.getTime() - 1))).toBe(0);
      const first = await store.sweep(new Date(expires.getTime() + 1));
      expect(first).toBeGreaterThanOrEqual(5);
      expect(first).toBeLessThanOrEqual(10);
      expect(await coll.countDocuments({ _id: { $regex: /^key_own:/ } })).toBe(0);
      await store.sweep(new Date(expires.getTime() + 1));
      await store.sweep(new Date(expires.getTime() + 1));
      expect((await coll.find({}).toArray()).map((c) => c._id)).toEqual([`key_live:${windowStart + 60_000}:1`]);
      // The store starts the ended window afresh if asked again (its memory of it is gone too).
      expect(await store.increment('key_own', windowStart, expires, 120)).toBe(1);
    } finally {
      await sweepDb.dropDatabase();
    }
  });
});
