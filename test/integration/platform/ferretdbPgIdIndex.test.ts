import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Double, MongoClient, ObjectId, type Collection, type Document, type Sort } from 'mongodb';
import { startFerretDbOnPostgres } from '../../../src/local/cluster/ferretDbOnPostgres';
import { startPostgres } from '../../../src/local/cluster/postgres';
import { freePort } from '../../../src/local/net';
import type { LocalServer } from '../../../src/local/servers';
import { testServers } from '../../support/env';

/** Ids of every type side by side, as MongoDB allows. */
interface Row extends Document {
  _id: string | number | ObjectId | Double;
}

const PG_BIN_DIR = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/**
 * The FerretDB this run built carries scripts/patches/ferretdb-v1.24.2-pg-id-index.patch: on
 * its PostgreSQL handler (`npm run start:cluster`'s store) a top-level string or ObjectId `_id`
 * equality, a bounded `$in` of them and, when the database's collation is a byte order, a
 * string `_id` range sorted on `_id` are answered from the `_id_` index. The test runs its own
 * PostgreSQL (Debian's, as the cluster) with two FerretDBs: one on a C.UTF-8 database (the
 * cluster's initdb) and one on an ICU database, where string order is not MongoDB's and ranges
 * must keep the scan. Sequential scans are disabled in both, so the plan says whether the index
 * can serve the filter at all, whatever the table's size and statistics.
 */
describe('FerretDB on PostgreSQL answers _id equality, $in and string ranges from its index (scripts/patches)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pg-id-'));
  const user = 'ferret';
  const servers: LocalServer[] = [];
  const clients: MongoClient[] = [];
  let coll: Collection<Row>;
  let icuColl: Collection<Row>;
  const oid = new ObjectId();
  const strings = Array.from({ length: 30 }, (_, i) => `call_${String(i).padStart(3, '0')}`);
  const rows: Row[] = [
    ...strings.map((id, i) => ({ id, key: (i * 7919) % 31 })).sort((a, b) => a.key - b.key).map(({ id }, i) => ({ _id: id, tenant_id: i % 3 === 0 ? 'ws_1' : 'ws_2' })),
    // Around the range in byte order; 'Cal' sorts after 'cal' under a linguistic collation.
    { _id: 'cal', tenant_id: 'ws_1' },
    { _id: 'call`', tenant_id: 'ws_1' },
    { _id: 'cam_001', tenant_id: 'ws_1' },
    { _id: 'Cal', tenant_id: 'ws_1' },
    { _id: oid, tenant_id: 'ws_1' },
    { _id: 5, tenant_id: 'ws_1' },
    { _id: new Double(2.5), tenant_id: 'ws_1' },
  ];

  beforeAll(async () => {
    if (!existsSync(join(PG_BIN_DIR, 'initdb'))) {
      throw new Error(`no PostgreSQL at PG_BIN_DIR=${PG_BIN_DIR}: bash scripts/setup-cluster-tools.sh installs Debian's (as \`npm run start:cluster\` does)`);
    }
    // PostgreSQL runs as the `postgres` user when we are root: it must reach its data directory.
    chmodSync(dir, 0o755);
    const pgPort = await freePort();
    const pg = await startPostgres({ binDir: PG_BIN_DIR, dataDir: join(dir, 'pg'), port: pgPort, user, password: 'pg-id-test', logFile: join(dir, 'postgresql.log') });
    servers.push(pg);
    const psql = (sql: string) => execFileSync(join(PG_BIN_DIR, 'psql'), ['-q', '-h', join(dir, 'pg'), '-p', String(pgPort), '-U', user, '-d', 'postgres', '-c', sql], { stdio: ['ignore', 'ignore', 'pipe'] });
    psql(`CREATE DATABASE icu TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
    for (const db of ['postgres', 'icu']) psql(`ALTER DATABASE ${db} SET enable_seqscan = off`);

    const open = async (database: string) => {
      const port = await freePort();
      const ferret = await startFerretDbOnPostgres({
        binary: join(testServers.toolsDir(), 'bin', 'ferretdb'),
        port,
        postgresUrl: `postgres://${user}:pg-id-test@127.0.0.1:${pgPort}/${database}`,
        stateDir: join(dir, `ferretdb-${database}`),
        logFile: join(dir, `ferretdb-${database}.log`),
      });
      servers.push(ferret);
      const client = await MongoClient.connect(ferret.address);
      clients.push(client);
      const c = client.db('id_index').collection<Row>('rows');
      await c.insertMany(rows);
      return c;
    };
    coll = await open('postgres');
    icuColl = await open('icu');
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    for (const server of servers.reverse()) await server.process.stop(10_000);
    rmSync(dir, { recursive: true, force: true });
  });

  const explainOf = async (c: Collection<Row>, filter: Document, sort: Sort | null = null) => {
    const cursor = c.find(filter);
    if (sort) cursor.sort(sort);
    return JSON.stringify(await cursor.limit(5).explain());
  };
  const ids = async (c: Collection<Row>, filter: Document, sort: Sort, limit = 0) => (await c.find(filter).sort(sort).limit(limit).toArray()).map((row) => String(row._id));
  const INDEX_USED = /"Index Name":"[^"]*__id__[0-9a-f]+_idx"/;

  it.each([
    ['a string equality', { _id: 'call_007' }],
    ['an ObjectId equality', { _id: oid }],
    ['an equality beside other keys', { _id: 'call_007', tenant_id: 'ws_2' }],
    ['an $in of strings and ObjectIds', { _id: { $in: ['call_001', oid, 'nope'] } }],
  ])('explain shows the _id_ index used for %s, on either collation', async (_name, filter) => {
    expect(await explainOf(coll, filter)).toMatch(INDEX_USED);
    expect(await explainOf(icuColl, filter)).toMatch(INDEX_USED);
  });

  it.each([
    ['two bounds', { _id: { $gt: 'call_', $lt: 'call`' } }],
    ['one bound', { _id: { $lt: 'call_010' } }],
    ['inclusive bounds and other keys', { _id: { $gte: 'call_005', $lte: 'call_020' }, tenant_id: 'ws_1' }],
  ])('explain shows the _id_ index used for a range with %s and the sort pushed down, on a byte-order collation only', async (_name, filter) => {
    const plan = await explainOf(coll, filter, { _id: -1 });
    expect(plan).toMatch(INDEX_USED);
    expect(plan).toMatch(/"sortPushdown":true/);
    const icuPlan = await explainOf(icuColl, filter, { _id: -1 });
    expect(icuPlan).toMatch(/"Node Type":"Seq Scan"/);
    expect(icuPlan).toMatch(/"sortPushdown":false/);
  });

  it.each([
    ['a number', { _id: 5 }],
    ['an $in holding a number', { _id: { $in: ['call_001', 5] } }],
    ['another operator beside a range', { _id: { $gt: 'call_', $ne: 'call_001' } }],
    ['no _id in the filter', { tenant_id: 'ws_1' }],
  ])('leaves %s to the scan, as before', async (_name, filter) => {
    expect(await explainOf(coll, filter, { _id: -1 })).toMatch(/"Node Type":"Seq Scan"/);
  });

  it('answers equality and $in as MongoDB', async () => {
    for (const c of [coll, icuColl]) {
      expect(await ids(c, { _id: 'call_007' }, { _id: 1 })).toEqual(['call_007']);
      expect(await ids(c, { _id: 'call_007', tenant_id: 'ws_1' }, { _id: 1 })).toEqual([]);
      expect((await c.find({ _id: oid }).toArray()).map((r) => r.tenant_id)).toEqual(['ws_1']);
      // Stored as the same jsonb string, so found by the index, then told apart by type in memory.
      expect(await c.countDocuments({ _id: oid.toHexString() })).toBe(0);
      expect(await ids(c, { _id: { $in: ['call_001', 'call_029', 'nope'] } }, { _id: 1 })).toEqual(['call_001', 'call_029']);
      expect(await c.countDocuments({ _id: { $in: [oid, 'call_000'] } })).toBe(2);
    }
  });

  it('answers a range with only the strings in it, in byte order both ways, whatever else the collection holds', async () => {
    for (const c of [coll, icuColl]) {
      expect(await ids(c, { _id: { $gt: 'call_', $lt: 'call`' } }, { _id: -1 })).toEqual([...strings].reverse());
      expect(await ids(c, { _id: { $gt: 'call_', $lt: 'call`' } }, { _id: 1 })).toEqual(strings);
      expect(await ids(c, { _id: { $gt: 'call_026' } }, { _id: 1 })).toEqual(['call_027', 'call_028', 'call_029', 'call`', 'cam_001']);
      expect(await ids(c, { _id: { $lt: 'call_002' } }, { _id: -1 })).toEqual(['call_001', 'call_000', 'cal', 'Cal']);
      const ws1 = rows.filter((r) => r.tenant_id === 'ws_1' && strings.includes(String(r._id))).map((r) => String(r._id)).sort().reverse();
      expect(await ids(c, { tenant_id: 'ws_1', _id: { $gt: 'call_', $lt: 'call`' } }, { _id: -1 }, 3)).toEqual(ws1.slice(0, 3));
      expect((await c.find({ _id: { $gt: 1 } }).toArray()).map((r) => Number(r._id)).sort((a, b) => a - b)).toEqual([2.5, 5]);
    }
  });
});
