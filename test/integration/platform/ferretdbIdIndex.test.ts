import { Double, Long, ObjectId, type Collection, type Db, type Document } from 'mongodb';
import { openTestDb, testConfig } from '../../support/env';

/** Ids of every type side by side, as MongoDB allows. */
interface Row extends Document {
  _id: string | number | ObjectId | Double | Long;
}

/**
 * The FerretDB this run built carries scripts/patches/ferretdb-v1.24.2-id-index.patch: an
 * `_id` equality is answered from the unique `_id_` index, also when the filter has other
 * keys, and every answer is still MongoDB's.
 */
describe('FerretDB answers _id equality from its index (scripts/patches)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let coll: Collection<Row>;
  const oid = new ObjectId();
  const otherOid = new ObjectId();

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    coll = db.collection<Row>('id_index');
    await coll.insertMany([
      { _id: 'doc_a', tenant_id: 'ws_1', status: 'new', n: 0 },
      { _id: 'doc_b', tenant_id: 'ws_2', status: 'new', n: 0 },
      { _id: oid, tenant_id: 'ws_1', status: 'new' },
      { _id: otherOid, tenant_id: 'ws_2', status: 'new' },
      { _id: 1, tenant_id: 'ws_1', kind: 'int' },
      { _id: '1', tenant_id: 'ws_1', kind: 'string' },
      { _id: 2.5, tenant_id: 'ws_2', kind: 'double' },
    ]);
  });

  afterAll(async () => {
    await drop?.();
  });

  const plan = async (filter: Document): Promise<string> => {
    const explained = await coll.find(filter).explain();
    return JSON.stringify(explained.queryPlanner);
  };

  it.each([
    ['a string _id', { _id: 'doc_a' }],
    ['an ObjectId _id', { _id: oid }],
    ['_id with other keys', { _id: 'doc_a', tenant_id: 'ws_1', status: { $in: ['new', 'seen'] } }],
  ])('explain shows the _id_ index used for %s', async (_name, filter) => {
    expect(await plan(filter)).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
  });

  it('scans for what the index cannot answer (numbers, operators), as before', async () => {
    expect(await plan({ _id: 1 })).toMatch(/SCAN /);
    expect(await plan({ _id: { $in: ['doc_a', 'doc_b'] } })).toMatch(/SCAN /);
  });

  it('finds exactly the document for string and ObjectId ids, and nothing for a missing one', async () => {
    expect(await coll.findOne({ _id: 'doc_a' })).toEqual({ _id: 'doc_a', tenant_id: 'ws_1', status: 'new', n: 0 });
    expect(await coll.findOne({ _id: oid })).toEqual({ _id: oid, tenant_id: 'ws_1', status: 'new' });
    expect(await coll.findOne({ _id: 'doc_missing' })).toBeNull();
    expect(await coll.findOne({ _id: new ObjectId() })).toBeNull();
  });

  it('keeps numeric ids apart from strings and equal across number types', async () => {
    expect(await coll.findOne({ _id: 1 })).toMatchObject({ kind: 'int' });
    expect(await coll.findOne({ _id: new Double(1) })).toMatchObject({ kind: 'int' });
    expect(await coll.findOne({ _id: Long.fromNumber(1) })).toMatchObject({ kind: 'int' });
    expect(await coll.findOne({ _id: '1' })).toMatchObject({ kind: 'string' });
    expect(await coll.findOne({ _id: 2.5 })).toMatchObject({ kind: 'double' });
  });

  it('applies the rest of a mixed filter to the document the index found', async () => {
    expect(await coll.findOne({ _id: 'doc_a', tenant_id: 'ws_1' })).toMatchObject({ _id: 'doc_a' });
    expect(await coll.findOne({ _id: 'doc_a', tenant_id: 'ws_2' })).toBeNull();
    expect(await coll.findOne({ _id: oid, tenant_id: 'ws_2' })).toBeNull();
    expect(await coll.findOne({ _id: 'doc_a', $or: [{ status: 'gone' }, { n: 0 }] })).toMatchObject({ _id: 'doc_a' });
    expect(await coll.findOne({ _id: 'doc_a', missing_field: { $exists: true } })).toBeNull();
    expect(await coll.countDocuments({ _id: 'doc_b', tenant_id: 'ws_2' })).toBe(1);
    expect(await coll.countDocuments({ _id: 'doc_b', tenant_id: 'ws_1' })).toBe(0);
    expect(await coll.find({ _id: { $in: ['doc_a', 'doc_b', oid] }, tenant_id: 'ws_1' }).sort({ _id: 1 }).toArray()).toHaveLength(2);
  });

  it('updates and deletes conditionally: only when the other keys still match', async () => {
    const first = await coll.updateOne({ _id: 'doc_b', status: 'new' }, { $set: { status: 'seen' }, $inc: { n: 1 } });
    expect([first.matchedCount, first.modifiedCount]).toEqual([1, 1]);
    const again = await coll.updateOne({ _id: 'doc_b', status: 'new' }, { $set: { status: 'seen' }, $inc: { n: 1 } });
    expect([again.matchedCount, again.modifiedCount]).toEqual([0, 0]);
    expect(await coll.findOne({ _id: 'doc_b' })).toEqual({ _id: 'doc_b', tenant_id: 'ws_2', status: 'seen', n: 1 });

    const swapped = await coll.findOneAndUpdate({ _id: otherOid, status: 'new' }, { $set: { status: 'done' } }, { returnDocument: 'after' });
    expect(swapped).toMatchObject({ _id: otherOid, status: 'done' });
    expect(await coll.findOneAndUpdate({ _id: otherOid, status: 'new' }, { $set: { status: 'again' } })).toBeNull();

    const upserted = await coll.updateOne({ _id: 'doc_c', tenant_id: 'ws_3' }, { $setOnInsert: { status: 'new' } }, { upsert: true });
    expect(upserted.upsertedId).toBe('doc_c');
    expect(await coll.findOne({ _id: 'doc_c' })).toEqual({ _id: 'doc_c', tenant_id: 'ws_3', status: 'new' });

    expect((await coll.deleteOne({ _id: 'doc_c', tenant_id: 'ws_other' })).deletedCount).toBe(0);
    expect((await coll.deleteOne({ _id: 'doc_c', tenant_id: 'ws_3' })).deletedCount).toBe(1);
    expect(await coll.findOne({ _id: 'doc_c' })).toBeNull();
  });

  it('still refuses a duplicate _id of the same type and value, and only that', async () => {
    await expect(coll.insertOne({ _id: 'doc_a' })).rejects.toMatchObject({ code: 11000 });
    await expect(coll.insertOne({ _id: oid })).rejects.toMatchObject({ code: 11000 });
    await expect(coll.insertOne({ _id: 1 })).rejects.toMatchObject({ code: 11000 });
    await coll.insertOne({ _id: 'doc_A', tenant_id: 'ws_1' });
    expect(await coll.findOne({ _id: 'doc_A' })).toEqual({ _id: 'doc_A', tenant_id: 'ws_1' });
    expect(await coll.findOne({ _id: 'doc_a' })).toMatchObject({ status: 'new' });
  });
});
