import type { Db } from 'mongodb';
import { addToTotals, readTotals, totalsLog } from '../../../src/db/runningTotals';
import { openTestDb, testConfig } from '../../support/env';

/** Running totals hold under parallel writers where FerretDB's `$inc` does not (each step a unique insert). */
describe('running totals (src/db/runningTotals.ts)', () => {
  let db: Db;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });
  afterAll(async () => drop?.());

  it('counts every one of 24 parallel additions, keeps each key apart, and reads {} before the first', async () => {
    const log = totalsLog(db, 'totals_test');
    expect(await readTotals(log, 'ws_a|2026-11-27')).toEqual({});
    await Promise.all(Array.from({ length: 24 }, (_, i) => addToTotals(log, 'ws_a|2026-11-27', { ended: 1, [`outcome:${i % 2 ? 'busy' : 'no_answer'}`]: 1, seconds: i }, `call_${i}`, new Date())));
    await addToTotals(log, 'ws_b|2026-11-27', { ended: 1 }, 'call_b', new Date());
    expect(await readTotals(log, 'ws_a|2026-11-27')).toEqual({ ended: 24, 'outcome:busy': 12, 'outcome:no_answer': 12, seconds: 276 });
    expect(await readTotals(log, 'ws_b|2026-11-27')).toEqual({ ended: 1 });
    // Each step is its own entry: 24 of them, numbered 1 to 24.
    expect((await log.entries.find({ key: 'ws_a|2026-11-27' }).toArray()).map((e) => e.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
  });
});
