import { ensureEveryIndex } from '../../../src/main/indexes';
import { openTestDb, testConfig } from '../../support/env';

/**
 * Every process runs ensureEveryIndex at start. The dues collection is the first with two
 * indexes, and FerretDB 1.24 drops the connection on a createIndexes naming several indexes
 * that already exist: the second start must still succeed.
 */
it('ensureEveryIndex runs again on a database that has every index (a second start)', async () => {
  const { db, drop } = await openTestDb(testConfig());
  try {
    await ensureEveryIndex(db);
    await ensureEveryIndex(db);
    const names = (await db.collection('dues').indexes()).map((i) => String(i.name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(names).toEqual(['_id_', 'subscriber', 'tenant_due_date']);
  } finally {
    await drop();
  }
});
