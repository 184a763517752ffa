import type { Db } from 'mongodb';
import { LeaseTimeoutError, withLease } from '../../../src/db/leaseLock';
import { openTestDb, testConfig } from '../../support/env';

/** The lease that makes read-modify-write safe on FerretDB, where concurrent updates get lost. */
describe('withLease', () => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });
  afterAll(async () => {
    await drop();
  });

  it('serialises read-modify-write: 30 parallel increments all land', async () => {
    const counters = db.collection<{ _id: string; n: number }>('counters');
    await counters.insertOne({ _id: 'c', n: 0 });
    await Promise.all(
      Array.from({ length: 30 }, () =>
        withLease(db, 'counter:c', async () => {
          const doc = await counters.findOne({ _id: 'c' });
          await counters.updateOne({ _id: 'c' }, { $set: { n: doc!.n + 1 } });
        }),
      ),
    );
    expect((await counters.findOne({ _id: 'c' }))!.n).toBe(30);
  });

  it('releases the lease when the work throws', async () => {
    await expect(withLease(db, 'throws', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(withLease(db, 'throws', async () => 'again')).resolves.toBe('again');
  });

  it('takes over a lease whose holder died once it has expired, and waits for a live one', async () => {
    await db.collection('leases').insertOne({ _id: 'dead' as never, token: 'gone', expires_at: new Date(Date.now() - 1) });
    await expect(withLease(db, 'dead', async () => 'taken')).resolves.toBe('taken');

    await db.collection('leases').insertOne({ _id: 'live' as never, token: 'busy', expires_at: new Date(Date.now() + 60_000) });
    await expect(withLease(db, 'live', async () => 'never', { waitMs: 200 })).rejects.toBeInstanceOf(LeaseTimeoutError);
  });
});
