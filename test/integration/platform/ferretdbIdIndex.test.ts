import { Double, Long, ObjectId, type Collection, type Db, type Document } from 'mongodb';
import { openTestDb, testConfig } from '../../support/env';

/** Ids of every type side by side, as MongoDB allows. */
interface Row extends Document {
  _id: string | number | ObjectId | Double | Long;
}

/**
 * The FerretDB this run built carries scripts/patches/ferretdb-v1.24.2-id-index.patch: an
 * `_id` equality or `_id: {$in: [...]}` of strings and ObjectIds is answered from the unique
 * `_id_` index, also when the filter has other keys, and every answer is still MongoDB's.
 */
/** SQLite's query plan for a find, as FerretDB's `explain` reports it. */
async function planOf(coll: Collection<Row>, filter: Document): Promise<string> {
  return JSON.stringify((await coll.find(filter).explain()).queryPlanner);
}

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

  const plan = (filter: Document) => planOf(coll, filter);

  it.each([
    ['a string _id', { _id: 'doc_a' }],
    ['an ObjectId _id', { _id: oid }],
    ['_id with other keys', { _id: 'doc_a', tenant_id: 'ws_1', status: { $in: ['new', 'seen'] } }],
  ])('explain shows the _id_ index used for %s', async (_name, filter) => {
    expect(await plan(filter)).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
  });

  it('scans for what the index cannot answer (numbers, other operators), as before', async () => {
    expect(await plan({ _id: 1 })).toMatch(/SCAN /);
    expect(await plan({ _id: { $ne: 'doc_a' } })).toMatch(/SCAN /);
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

/** The patch's largest `$in` list answered from the index; a longer one scans. */
const maxIdInPushdown = 1000;

describe('FerretDB answers _id $in of strings and ObjectIds from its index (scripts/patches)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let coll: Collection<Row>;
  const oid = new ObjectId();
  const otherOid = new ObjectId();

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    coll = db.collection<Row>('id_in');
    await coll.insertMany([
      { _id: 'doc_a', tenant_id: 'ws_1', status: 'new' },
      { _id: 'doc_b', tenant_id: 'ws_2', status: 'new' },
      { _id: 'doc_c', tenant_id: 'ws_1', status: 'new' },
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

  const plan = (filter: Document) => planOf(coll, filter);
  /** The matching ids, order aside: MongoDB promises no order without a sort. */
  const idsOf = async (filter: Document): Promise<string[]> =>
    (await coll.find(filter).toArray()).map((row) => String(row._id)).sort();
  const manyIds = (n: number) => Array.from({ length: n }, (_, i) => `doc_${i}`);

  it.each([
    ['strings', { _id: { $in: ['doc_a', 'doc_b'] } }],
    ['ObjectIds', { _id: { $in: [oid, otherOid] } }],
    ['strings and ObjectIds together', { _id: { $in: ['doc_a', oid] } }],
    ['one element', { _id: { $in: ['doc_a'] } }],
    ['other keys beside _id', { _id: { $in: ['doc_a', 'doc_b'] }, tenant_id: 'ws_1', status: { $in: ['new', 'seen'] } }],
    [`${maxIdInPushdown} elements`, { _id: { $in: manyIds(maxIdInPushdown) } }],
  ])('explain shows the _id_ index used for $in of %s', async (_name, filter) => {
    expect(await plan(filter)).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
  });

  it.each([
    ['a number', { _id: { $in: ['doc_a', 1] } }],
    ['a regular expression', { _id: { $in: ['doc_a', /^doc_/] } }],
    ['null', { _id: { $in: ['doc_a', null] } }],
    ['another operator beside it', { _id: { $in: ['doc_a', 'doc_b'], $ne: 'doc_b' } }],
    ['an empty list', { _id: { $in: [] } }],
    [`more than ${maxIdInPushdown} elements`, { _id: { $in: manyIds(maxIdInPushdown + 1) } }],
    ['$nin', { _id: { $nin: ['doc_a'] } }],
  ])('scans for $in with %s, as before', async (_name, filter) => {
    expect(await plan(filter)).toMatch(/SCAN /);
  });

  it('finds exactly the listed string and ObjectId ids, skipping missing ones and repeats', async () => {
    expect(await idsOf({ _id: { $in: ['doc_a', 'doc_c'] } })).toEqual(['doc_a', 'doc_c']);
    expect(await idsOf({ _id: { $in: [oid, otherOid, new ObjectId()] } })).toEqual([oid.toHexString(), otherOid.toHexString()].sort());
    expect(await idsOf({ _id: { $in: ['doc_b', oid, 'doc_missing'] } })).toEqual(['doc_b', oid.toHexString()].sort());
    expect(await idsOf({ _id: { $in: ['doc_a', 'doc_a', oid, oid] } })).toEqual(['doc_a', oid.toHexString()].sort());
    expect(await idsOf({ _id: { $in: ['doc_missing', new ObjectId()] } })).toEqual([]);
    expect(await coll.find({ _id: { $in: ['doc_a'] } }).toArray()).toEqual([{ _id: 'doc_a', tenant_id: 'ws_1', status: 'new' }]);
  });

  it('keeps an ObjectId apart from the string of its hex, as MongoDB does', async () => {
    expect(await idsOf({ _id: { $in: [oid.toHexString()] } })).toEqual([]);
    expect(await idsOf({ _id: { $in: [oid.toHexString(), otherOid] } })).toEqual([otherOid.toHexString()]);
  });

  it('answers $in with numbers (scanned) across number types and apart from strings', async () => {
    expect(await idsOf({ _id: { $in: [1] } })).toEqual(['1']);
    expect((await coll.find({ _id: { $in: [new Double(1), Long.fromNumber(1)] } }).toArray()).map((row) => row.kind)).toEqual(['int']);
    expect((await coll.find({ _id: { $in: ['1', 2.5] } }).toArray()).map((row) => String(row.kind)).sort()).toEqual(['double', 'string']);
    expect((await coll.find({ _id: { $in: [1, '1', 'doc_a'] } }).toArray()).map((row) => String(row.kind ?? row._id)).sort()).toEqual(['doc_a', 'int', 'string']);
  });

  it('answers an empty list and a list over the pushdown bound', async () => {
    expect(await idsOf({ _id: { $in: [] } })).toEqual([]);
    expect(await coll.countDocuments({ _id: { $in: [] } })).toBe(0);
    expect(await idsOf({ _id: { $in: [...manyIds(maxIdInPushdown + 1), 'doc_a', oid] } })).toEqual(['doc_a', oid.toHexString()].sort());
  });

  it('applies the rest of a mixed filter to the documents the index found', async () => {
    expect(await idsOf({ _id: { $in: ['doc_a', 'doc_b', oid, otherOid] }, tenant_id: 'ws_1' })).toEqual(['doc_a', oid.toHexString()].sort());
    expect(await idsOf({ _id: { $in: ['doc_a', 'doc_b'] }, tenant_id: 'ws_3' })).toEqual([]);
    expect(await idsOf({ _id: { $in: ['doc_a', 'doc_b', 'doc_c'] }, $or: [{ tenant_id: 'ws_2' }, { _id: 'doc_c' }] })).toEqual(['doc_b', 'doc_c']);
    expect(await coll.countDocuments({ _id: { $in: ['doc_a', 'doc_b', 'doc_c'] }, tenant_id: 'ws_1' })).toBe(2);
    expect(await coll.countDocuments({ _id: { $in: ['doc_a', 'doc_b', 'doc_a'] } })).toBe(2);
    expect(await coll.distinct('tenant_id', { _id: { $in: ['doc_a', 'doc_c', oid] } })).toEqual(['ws_1']);
    expect(await coll.aggregate([{ $match: { _id: { $in: ['doc_a', 'doc_b'] } } }, { $count: 'n' }]).toArray()).toEqual([{ n: 2 }]);
  });

  it('updates and deletes many by $in, only where the other keys still match', async () => {
    const updated = await coll.updateMany({ _id: { $in: ['doc_a', 'doc_b', 'doc_c', 'doc_missing'] }, tenant_id: 'ws_1' }, { $set: { status: 'seen' } });
    expect([updated.matchedCount, updated.modifiedCount]).toEqual([2, 2]);
    expect((await coll.find({ _id: { $in: ['doc_a', 'doc_b', 'doc_c'] } }).toArray()).map((row) => `${String(row._id)}:${String(row.status)}`).sort()).toEqual([
      'doc_a:seen',
      'doc_b:new',
      'doc_c:seen',
    ]);
    const again = await coll.updateMany({ _id: { $in: ['doc_a', 'doc_c'] }, status: 'new' }, { $set: { status: 'again' } });
    expect([again.matchedCount, again.modifiedCount]).toEqual([0, 0]);

    const one = await coll.updateOne({ _id: { $in: [oid, otherOid] }, tenant_id: 'ws_2' }, { $set: { status: 'done' } });
    expect([one.matchedCount, one.modifiedCount]).toEqual([1, 1]);
    expect(await coll.findOne({ _id: otherOid })).toMatchObject({ status: 'done' });
    expect(await coll.findOneAndUpdate({ _id: { $in: ['doc_b'] }, status: 'new' }, { $set: { status: 'taken' } }, { returnDocument: 'after' })).toMatchObject({
      _id: 'doc_b',
      status: 'taken',
    });

    expect((await coll.deleteMany({ _id: { $in: ['doc_a', 'doc_b', oid] }, tenant_id: 'ws_other' })).deletedCount).toBe(0);
    expect((await coll.deleteMany({ _id: { $in: ['doc_a', 'doc_b', 'doc_b', oid, 'doc_missing'] }, tenant_id: 'ws_1' })).deletedCount).toBe(2);
    expect(await idsOf({})).toEqual(['1', '1', '2.5', 'doc_b', 'doc_c', otherOid.toHexString()].sort());
    expect((await coll.deleteOne({ _id: { $in: ['doc_b', 'doc_c'] } })).deletedCount).toBe(1);
    expect(await coll.countDocuments({ _id: { $in: ['doc_b', 'doc_c'] } })).toBe(1);
    expect((await coll.deleteMany({ _id: { $in: [] } })).deletedCount).toBe(0);
    expect(await coll.countDocuments({})).toBe(5);
  });
});
