import type { Collection, Db, Document, Filter } from 'mongodb';
import { duesCollections, type DueDoc, type DueStatus, type SubscriberDoc } from '../../../src/dues/store';
import { recountSubscriber } from '../../../src/dues/totals';
import { openTestDb, testConfig, uniqueName } from '../../support/env';

/**
 * Two recounts of one subscriber's totals racing, the one that read the dues first writing
 * last (issue 24: after a payment and the cycle's next raise, `outstanding_total` showed three
 * dues' worth while two were open). The stale write is held at a gate until the newer
 * recount has finished, so the interleaving is the same every run.
 */
describe("a subscriber's totals under two racing recounts", () => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });
  afterAll(async () => {
    await drop?.();
  });

  const day = (n: number) => `2031-0${n}-01`;
  function due(subscriberId: string, index: number, status: DueStatus, extra: Partial<DueDoc> = {}): DueDoc {
    return { _id: uniqueName(`due${index}`), tenant_id: 'ws_totals', subscriber_id: subscriberId, cycle_index: index, amount: 100, due_date: day(index + 1), status, paid_amount: null, paid_at: null, ...extra } as DueDoc;
  }

  /** A subscriber with dues 0 and 1 open and its totals counted; answers its id. */
  async function subscriber(): Promise<string> {
    const id = uniqueName('sub');
    const doc = { _id: id, tenant_id: 'ws_totals', status: 'active', collected_total: 0, outstanding_total: 0, dues_paid: 0, dues_declined: 0, next_due_date: null, last_paid_at: null, version: 1 };
    await duesCollections(db).subscribers.insertOne(doc as unknown as SubscriberDoc);
    await duesCollections(db).dues.insertMany([due(id, 0, 'scheduled'), due(id, 1, 'scheduled')]);
    await recountSubscriber(db, id, new Date());
    return id;
  }

  /**
   * The database as the stale recount sees it: its first totals write waits at the gate.
   * `dropGuard` also drops that write's condition, as FerretDB does when it read the document
   * before the newer recount wrote it (its conditional updates read, then write).
   */
  function gated(dropGuard: boolean) {
    let reached!: () => void;
    let release!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    const opened = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const wrap = <T extends Document>(collection: Collection<T>): Collection<T> =>
      new Proxy(collection, {
        get(target, prop) {
          if (prop === 'findOneAndUpdate') {
            return async (filter: Filter<T>, update: Document, options: Document) => {
              if (!held) {
                held = true;
                reached();
                await opened;
                if (dropGuard) filter = { _id: filter._id } as Filter<T>;
              }
              return target.findOneAndUpdate(filter, update, options as never);
            };
          }
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    const staleDb = new Proxy(db, {
      get(target, prop) {
        if (prop === 'collection') {
          return (name: string) => (name === 'dues_subscribers' ? wrap(target.collection(name)) : target.collection(name));
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { staleDb, atGate, release };
  }

  it.each([
    ['the newer totals are already there when the stale write comes', false],
    ["the stale write lands after the newer one (FerretDB's condition read before it)", true],
  ])('a raise, a stale recount, a payment and its recount, the stale one finishing last: %s; the totals end as the dues are', async (_, dropGuard) => {
    const id = await subscriber();
    const { dues } = duesCollections(db);
    // The cycle raises due 2: three open. A recount starts and reads them, then stalls before writing.
    await dues.insertOne(due(id, 2, 'scheduled'));
    const { staleDb, atGate, release } = gated(dropGuard);
    const stale = recountSubscriber(staleDb, id, new Date());
    await atGate;
    // Due 0 is paid and recounted: two open, one paid.
    const first = (await dues.findOne({ subscriber_id: id, cycle_index: 0 }))!;
    await dues.updateOne({ _id: first._id }, { $set: { status: 'paid', paid_amount: 100, paid_at: new Date('2031-01-02T00:00:00Z') } });
    expect(await recountSubscriber(db, id, new Date())).toMatchObject({ outstanding_total: 200, collected_total: 100, dues_paid: 1 });
    release();
    await stale;
    expect(await duesCollections(db).subscribers.findOne({ _id: id })).toMatchObject({
      outstanding_total: 200,
      collected_total: 100,
      dues_paid: 1,
      next_due_date: day(2),
    });
  });
  it('a burst of 20 recounts at once: every one answers (none counts again for ever) and the totals are the dues', async () => {
    const id = await subscriber();
    const { dues } = duesCollections(db);
    await dues.insertOne(due(id, 2, 'scheduled'));
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => recountSubscriber(db, id, new Date())));
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 'fulfilled'));
    expect(await duesCollections(db).subscribers.findOne({ _id: id })).toMatchObject({ outstanding_total: 300, dues_paid: 0, next_due_date: day(1) });
  });
});
