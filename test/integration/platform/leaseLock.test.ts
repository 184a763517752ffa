import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { LeaseTimeoutError, withDatabaseLease, withLease } from '../../../src/db/leaseLock';
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

  it('serialises read-modify-write between processes: 30 parallel increments through the database lease alone all land', async () => {
    const counters = db.collection<{ _id: string; n: number }>('counters');
    await counters.insertOne({ _id: 'c', n: 0 });
    await Promise.all(
      Array.from({ length: 30 }, () =>
        withDatabaseLease(
          db,
          'counter:c',
          async () => {
            const doc = await counters.findOne({ _id: 'c' });
            await counters.updateOne({ _id: 'c' }, { $set: { n: doc!.n + 1 } });
          },
          // What is asserted is that none is lost, not how fast 30 take turns: on a loaded
          // machine the last of them waited past the default 5 s (a CI run at load ~10).
          { waitMs: 60_000 },
        ),
      ),
    );
    expect((await counters.findOne({ _id: 'c' }))!.n).toBe(30);
  });

  it('queues holders of one process before the database: 10 parallel increments, one lease insert and no lease read each', async () => {
    const config = testConfig();
    const client = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
    try {
      const own = client.db(db.databaseName);
      const commands: string[] = [];
      client.on('commandStarted', (e: CommandStartedEvent) => {
        if (e.command[e.commandName] === 'leases') commands.push(e.commandName);
      });
      const counters = own.collection<{ _id: string; n: number }>('counters');
      await counters.insertOne({ _id: 'queued', n: 0 });
      await Promise.all(
        Array.from({ length: 10 }, () =>
          withLease(
            own,
            'counter:queued',
            async () => {
              const doc = await counters.findOne({ _id: 'queued' });
              await counters.updateOne({ _id: 'queued' }, { $set: { n: doc!.n + 1 } });
            },
            // The tenth waits for nine turns of four round trips each: past the default 5 s on a
            // loaded machine it would give up its local turn and contend in the database (reads).
            { waitMs: 60_000 },
          ),
        ),
      );
      expect((await counters.findOne({ _id: 'queued' }))!.n).toBe(10);
      expect(commands.filter((c) => c === 'insert')).toHaveLength(10);
      expect(commands.filter((c) => c === 'find')).toHaveLength(0);
      expect(commands.filter((c) => c === 'delete')).toHaveLength(10);
    } finally {
      await client.close();
    }
  });

  it('a holder of the same name in this process that outlives the wait does not block the next for ever: the database lease decides', async () => {
    let release!: () => void;
    const slow = withLease(db, 'slow-local', () => new Promise<string>((resolve) => (release = () => resolve('first'))), { leaseMs: 60_000 });
    // Its database lease taken (a fixed pause was not always long enough on a loaded machine).
    for (const deadline = Date.now() + 30_000; !(await db.collection('leases').findOne({ _id: 'slow-local' as never })); await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > deadline) throw new Error('the first holder never took its lease');
    }
    await expect(withLease(db, 'slow-local', async () => 'second', { waitMs: 200 })).rejects.toBeInstanceOf(LeaseTimeoutError);
    release();
    await expect(slow).resolves.toBe('first');
    await expect(withLease(db, 'slow-local', async () => 'third')).resolves.toBe('third');
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
