import { MongoBulkWriteError, MongoClient, type Collection, type CommandStartedEvent, type Db } from 'mongodb';
import { BULK_WRITE_MAX, bulkWriteInChunks } from '../../../src/db/bulkWrite';
import { answeredWithin } from '../../support/deadline';
import { testConfig } from '../../support/env';

interface Row {
  _id: string;
  state: string;
  n?: number;
}

const ids = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `r${from + i}`);
const queuedRows = (count: number): Row[] => ids(count).map((_id) => ({ _id, state: 'queued' }));
const skipAll = (list: string[]) => list.map((_id) => ({ updateOne: { filter: { _id, state: 'queued' }, update: { $set: { state: 'skipped' } } } }));

/**
 * FerretDB 1.24.2 as released kept one of its 100 pooled connections per update statement
 * until the whole command ended: a `bulkWrite` of 100 update statements (or several smaller
 * ones at once) never answered, and nothing else did from then on (issue 24). The build this
 * run uses carries scripts/patches/ferretdb-v1.24.2-statement-connections.patch.
 */
describe('FerretDB bulk writes (scripts/patches, src/db/bulkWrite.ts)', () => {
  let client: MongoClient;
  let db: Db;
  const commands: CommandStartedEvent[] = [];

  beforeAll(async () => {
    const config = testConfig();
    client = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
    client.on('commandStarted', (e) => commands.push(e));
    db = client.db(config.MONGODB_DB);
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
  });

  let coll: Collection<Row>;
  let seq = 0;
  beforeEach(() => {
    coll = db.collection<Row>(`bulk_${seq++}`);
    commands.length = 0;
  });

  describe('the patched server', () => {
    it('answers one bulkWrite of 150 update statements, and reads answer after it', async () => {
      await coll.insertMany(queuedRows(150));
      const res = await answeredWithin('150 update statements', coll.bulkWrite(skipAll(ids(150)), { ordered: false }), 20_000);
      expect([res.matchedCount, res.modifiedCount]).toEqual([150, 150]);
      expect(await answeredWithin('a count after', coll.countDocuments({ state: 'skipped' }), 20_000)).toBe(150);
    });

    it('answers five bulkWrites of 40 update statements sent at once', async () => {
      await coll.insertMany(queuedRows(200));
      const all = await answeredWithin(
        'five commands of 40',
        Promise.all([0, 1, 2, 3, 4].map((k) => coll.bulkWrite(skipAll(ids(40, k * 40)), { ordered: false }))),
        20_000,
      );
      expect(all.map((r) => r.modifiedCount)).toEqual([40, 40, 40, 40, 40]);
      expect(await coll.countDocuments({ state: 'queued' })).toBe(0);
    });

    it('keeps update and findAndModify answers: one match, many, none, an upsert, a conditional miss', async () => {
      await coll.insertMany([
        { _id: 'a', state: 'queued', n: 1 },
        { _id: 'b', state: 'queued', n: 1 },
        { _id: 'c', state: 'sent', n: 1 },
      ]);
      const res = await coll.bulkWrite(
        [
          { updateOne: { filter: { state: 'queued' }, update: { $inc: { n: 1 } } } },
          { updateMany: { filter: { state: 'queued' }, update: { $inc: { n: 10 } } } },
          { updateOne: { filter: { _id: 'missing' }, update: { $set: { state: 'x' } } } },
          { updateOne: { filter: { _id: 'd' }, update: { $set: { state: 'new', n: 0 } }, upsert: true } },
          { updateOne: { filter: { _id: 'c', state: 'queued' }, update: { $set: { state: 'skipped' } } } },
        ],
        { ordered: true },
      );
      // (FerretDB numbers an upsert by its count of upserts, not its statement: `upsertedIds` is not compared.)
      expect([res.matchedCount, res.modifiedCount, res.upsertedCount]).toEqual([3, 3, 1]);
      expect(await coll.find().sort({ _id: 1 }).toArray()).toEqual([
        { _id: 'a', state: 'queued', n: 12 },
        { _id: 'b', state: 'queued', n: 11 },
        { _id: 'c', state: 'sent', n: 1 },
        { _id: 'd', state: 'new', n: 0 },
      ]);
      expect(await coll.findOneAndUpdate({ _id: 'a' }, { $set: { state: 'sent' } }, { returnDocument: 'after' })).toEqual({ _id: 'a', state: 'sent', n: 12 });
      expect(await coll.findOneAndUpdate({ _id: 'b' }, { $set: { state: 'sent' } }, { returnDocument: 'before' })).toEqual({ _id: 'b', state: 'queued', n: 11 });
      expect(await coll.findOneAndUpdate({ _id: 'e' }, { $set: { state: 'new' } }, { upsert: true, returnDocument: 'after' })).toEqual({ _id: 'e', state: 'new' });
      expect(await coll.findOneAndUpdate({ _id: 'zz' }, { $set: { state: 'new' } })).toBeNull();
      expect(await coll.findOneAndDelete({ _id: 'e' })).toEqual({ _id: 'e', state: 'new' });
      expect(await coll.countDocuments()).toBe(4);
    });
  });

  describe('bulkWriteInChunks', () => {
    const updateCommands = () => commands.filter((e) => e.commandName === 'update').map((e) => (e.command.updates as unknown[]).length);

    it(`sends commands of at most ${BULK_WRITE_MAX} statements, one after another`, async () => {
      await coll.insertMany(queuedRows(2 * BULK_WRITE_MAX + 3));
      commands.length = 0;
      await bulkWriteInChunks(coll, skipAll(ids(2 * BULK_WRITE_MAX + 3)), { ordered: false });
      expect(updateCommands()).toEqual([BULK_WRITE_MAX, BULK_WRITE_MAX, 3]);
      expect(await coll.countDocuments({ state: 'skipped' })).toBe(2 * BULK_WRITE_MAX + 3);
    });

    it('sends nothing for no statements', async () => {
      await bulkWriteInChunks(coll, [], { ordered: true });
      expect(commands.filter((e) => e.commandName === 'update' || e.commandName === 'insert')).toEqual([]);
    });

    it('ordered: stops at the first failing statement, the later commands unsent', async () => {
      await coll.insertOne({ _id: 'r0', state: 'taken' });
      const docs = queuedRows(2 * BULK_WRITE_MAX);
      const failure = await bulkWriteInChunks(
        coll,
        docs.map((document) => ({ insertOne: { document } })),
        { ordered: true },
      ).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(MongoBulkWriteError);
      expect((failure as MongoBulkWriteError).code).toBe(11000);
      expect(await coll.countDocuments()).toBe(1);
    });

    it('unordered: writes every other statement, then throws the first failure', async () => {
      await coll.insertOne({ _id: 'r0', state: 'taken' });
      const docs = queuedRows(2 * BULK_WRITE_MAX);
      const failure = await bulkWriteInChunks(
        coll,
        docs.map((document) => ({ insertOne: { document } })),
        { ordered: false },
      ).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(MongoBulkWriteError);
      expect((failure as MongoBulkWriteError).code).toBe(11000);
      expect(await coll.countDocuments()).toBe(2 * BULK_WRITE_MAX);
      expect(await coll.findOne({ _id: 'r0' })).toEqual({ _id: 'r0', state: 'taken' });
    });
  });
});
