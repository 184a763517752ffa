import { Double, ObjectId, type Collection, type Db, type Document, type Sort } from 'mongodb';
import { openTestDb, testConfig } from '../../support/env';

/** Ids of every type side by side, as MongoDB allows. */
interface Row extends Document {
  _id: string | number | ObjectId | Double;
}

/**
 * The FerretDB this run built carries scripts/patches/ferretdb-v1.24.2-id-range.patch: a
 * top-level `_id` range of strings (`$gt`, `$gte`, `$lt`, `$lte`) is answered from the `_id_`
 * index, and with a sort on `_id` alone the rows come in the index's order, so a limit stops
 * the read (no temporary sort of every row). Every answer is still MongoDB's: only strings
 * match a string bound, whatever other ids the collection holds.
 */
describe('FerretDB answers string _id ranges from its index, in _id order (scripts/patches)', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let coll: Collection<Row>;
  const oid = new ObjectId();
  const strings = Array.from({ length: 30 }, (_, i) => `call_${String(i).padStart(3, '0')}`);

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    coll = db.collection<Row>('id_range');
    // Inserted out of order, with other types and prefixes around the range.
    const shuffled = strings.map((id, i) => ({ id, key: (i * 7919) % 31 })).sort((a, b) => a.key - b.key);
    await coll.insertMany([
      ...shuffled.map(({ id }, i) => ({ _id: id, tenant_id: i % 3 === 0 ? 'ws_1' : 'ws_2', n: Number(id.slice(5)) })),
      { _id: 'cal', tenant_id: 'ws_1' },
      { _id: 'call`', tenant_id: 'ws_1' },
      { _id: 'cam_001', tenant_id: 'ws_1' },
      { _id: oid, tenant_id: 'ws_1' },
      { _id: 5, tenant_id: 'ws_1' },
      { _id: new Double(2.5), tenant_id: 'ws_1' },
    ]);
  });

  afterAll(async () => {
    await drop?.();
  });

  const explainOf = async (filter: Document, sort: Sort | null) => {
    const cursor = coll.find(filter);
    if (sort) cursor.sort(sort);
    return JSON.stringify(await cursor.limit(5).explain());
  };
  const ids = async (filter: Document, sort: Sort, limit = 0) => (await coll.find(filter).sort(sort).limit(limit).toArray()).map((row) => String(row._id));

  it.each([
    ['two bounds', { _id: { $gt: 'call_', $lt: 'call`' } }],
    ['one bound', { _id: { $lt: 'call_010' } }],
    ['inclusive bounds and other keys', { _id: { $gte: 'call_005', $lte: 'call_020' }, tenant_id: 'ws_1' }],
  ])('explain shows the _id_ index used for a range with %s, with the sort pushed down', async (_name, filter) => {
    const plan = await explainOf(filter, { _id: -1 });
    expect(plan).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(plan).toMatch(/"sortPushdown":true/);
  });

  it.each([
    ['a number bound', { _id: { $gt: 1 } }],
    ['a bound JSON escapes', { _id: { $gt: 'call"' } }],
    ['another operator beside it', { _id: { $gt: 'call_', $ne: 'call_001' } }],
    ['no _id in the filter', { tenant_id: 'ws_1' }],
  ])('leaves %s to the scan and the in-memory sort, as before', async (_name, filter) => {
    const plan = await explainOf(filter, { _id: -1 });
    expect(plan).toMatch(/SCAN /);
    expect(plan).toMatch(/"sortPushdown":false/);
  });

  it('sorts in memory when the sort names more than _id', async () => {
    expect(await explainOf({ _id: { $gt: 'call_' } }, { tenant_id: 1, _id: -1 })).toMatch(/"sortPushdown":false/);
  });

  it('answers a range with only the strings in it, in order both ways, whatever else the collection holds', async () => {
    expect(await ids({ _id: { $gt: 'call_', $lt: 'call`' } }, { _id: -1 })).toEqual([...strings].reverse());
    expect(await ids({ _id: { $gt: 'call_', $lt: 'call`' } }, { _id: 1 })).toEqual(strings);
    expect(await ids({ _id: { $gte: 'cal' } }, { _id: 1 })).toEqual(['cal', ...strings, 'call`', 'cam_001']);
    expect(await ids({ _id: { $lt: 'call_003' } }, { _id: -1 })).toEqual(['call_002', 'call_001', 'call_000', 'cal']);
    expect(await ids({ _id: { $gt: 'call_027', $lte: 'call`' } }, { _id: 1 })).toEqual(['call_028', 'call_029', 'call`']);
    expect(await ids({ _id: { $gt: 'call_029', $lt: 'call`' } }, { _id: 1 })).toEqual([]);
  });

  it('pages newest first with a limit and the rest of the filter applied', async () => {
    const all = (await coll.find({ tenant_id: 'ws_1', _id: { $type: 'string', $gt: 'call_', $lt: 'call`' } }).toArray()).map((r) => String(r._id)).sort().reverse();
    const first = await ids({ tenant_id: 'ws_1', _id: { $gt: 'call_', $lt: 'call`' } }, { _id: -1 }, 4);
    expect(first).toEqual(all.slice(0, 4));
    const second = await ids({ tenant_id: 'ws_1', _id: { $gt: 'call_', $lt: first[3]! } }, { _id: -1 }, 4);
    expect(second).toEqual(all.slice(4, 8));
    expect(await ids({ n: { $gte: 10 }, _id: { $gt: 'call_', $lt: 'call`' } }, { _id: -1 }, 3)).toEqual(['call_029', 'call_028', 'call_027']);
    expect(await coll.countDocuments({ _id: { $gt: 'call_', $lt: 'call`' }, tenant_id: 'ws_2' })).toBe(20);
  });

  it('keeps numbers and ObjectIds out of a string range, as MongoDB compares within a type', async () => {
    expect(await ids({ _id: { $gt: '' } }, { _id: 1 })).toEqual(['cal', ...strings, 'call`', 'cam_001']);
    expect((await coll.find({ _id: { $gt: 1 } }).toArray()).map((r) => Number(r._id)).sort((a, b) => a - b)).toEqual([2.5, 5]);
  });
});
