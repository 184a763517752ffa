import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { movingEntries, type EntryDoc } from '../../../src/db/keyedEntries';
import { openTestDb, testConfig } from '../../support/env';

interface Rec {
  _id: string;
  /** The record's sort keys: its entry keys are `<key>|<id>`. */
  keys: string[];
}

/**
 * The rules every list's move follows (src/db/keyedEntries.ts `movingEntries`), seen as the
 * commands FerretDB receives: the next keys before the record's write, the written record's
 * unforeseen keys after it, the stale keys deleted last; nothing when no key changes.
 */
describe('movingEntries moves a record in its lists around its write', () => {
  let client: MongoClient;
  let db: Db;
  let drop: () => Promise<void>;
  const writes: string[] = [];
  const onCommand = (event: CommandStartedEvent) => {
    if (event.commandName === 'insert' && event.command.insert === 'moving_entries') writes.push(`insert ${event.command.documents.map((d: EntryDoc) => d._id).join(',')}`);
    if (event.commandName === 'delete' && event.command.delete === 'moving_entries') writes.push(`delete ${(event.command.deletes[0].q._id?.$in ?? ['?']).join(',')}`);
    if (event.commandName === 'update' && event.command.update === 'moving_records') writes.push('write');
  };
  const entries = () => db.collection<EntryDoc>('moving_entries');
  const records = () => db.collection<Rec>('moving_records');
  const keysOf = (r: Rec) => r.keys.map((k) => `${k}|${r._id}`);
  const stored = async () => (await entries().find({}).toArray()).map((e) => e._id).sort();

  beforeAll(async () => {
    const config = testConfig();
    ({ drop } = await openTestDb(config));
    client = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
    db = client.db(config.MONGODB_DB);
    client.on('commandStarted', onCommand);
  });

  afterAll(async () => {
    await client?.close();
    await drop?.();
  });

  /** A record stored with its entries, as a writer leaves it. */
  async function placed(id: string, keys: string[]): Promise<Rec> {
    const rec = { _id: id, keys };
    await records().insertOne(rec);
    await entries().insertMany(keysOf(rec).map((_id) => ({ _id })));
    writes.length = 0;
    return rec;
  }

  /** Writes `set` over the record and answers it as stored (null: `wrote` false, a lost claim). */
  const writer = (id: string, keys: string[], wrote = true) => async (): Promise<Rec | null> => {
    await records().updateOne({ _id: id }, { $set: { keys } });
    return wrote ? { _id: id, keys } : null;
  };

  beforeEach(async () => {
    await entries().deleteMany({});
    await records().deleteMany({});
  });

  it('inserts every next key before the write and deletes the keys the record left after it', async () => {
    const before = await placed('r1', ['a', 's1']);
    const written = await movingEntries({ entries: entries(), keysOf, before, next: { _id: 'r1', keys: ['b', 's1'] }, write: writer('r1', ['b', 's1']) });
    expect(written).toEqual({ _id: 'r1', keys: ['b', 's1'] });
    expect(writes).toEqual(['insert b|r1,s1|r1', 'write', 'delete a|r1']);
    expect(await stored()).toEqual(['b|r1', 's1|r1']);
  });

  it('inserts the keys the written record has that were not foreseen, after the write, and deletes the foreseen ones it lacks', async () => {
    const before = await placed('r2', ['a', 's1']);
    await movingEntries({ entries: entries(), keysOf, before, next: { _id: 'r2', keys: ['b', 's1'] }, write: writer('r2', ['c', 's2']) });
    expect(writes).toEqual(['insert b|r2,s1|r2', 'write', 'insert c|r2,s2|r2', 'delete a|r2,s1|r2,b|r2']);
    expect(await stored()).toEqual(['c|r2', 's2|r2']);
  });

  it('moves nothing when no key changes, yet still follows a written record that differs', async () => {
    const before = await placed('r3', ['a', 's1']);
    await movingEntries({ entries: entries(), keysOf, before, next: { _id: 'r3', keys: ['a', 's1'] }, write: writer('r3', ['a', 's1']) });
    expect(writes).toEqual(['write']);
    expect(await stored()).toEqual(['a|r3', 's1|r3']);

    writes.length = 0;
    await movingEntries({ entries: entries(), keysOf, before, next: { _id: 'r3', keys: ['a', 's1'] }, write: writer('r3', ['a', 's2']) });
    expect(writes).toEqual(['write', 'insert s2|r3', 'delete s1|r3']);
    expect(await stored()).toEqual(['a|r3', 's2|r3']);
  });

  it('inserts nothing before the write when the caller wrote the new keys already', async () => {
    const before = await placed('r4', ['a', 's1']);
    await entries().insertOne({ _id: 'b|r4' });
    writes.length = 0;
    await movingEntries({ entries: entries(), keysOf, before, next: { _id: 'r4', keys: ['b', 's1'] }, write: writer('r4', ['b', 's1']), alreadyWritten: ['b|r4'] });
    expect(writes).toEqual(['write', 'delete a|r4']);
    expect(await stored()).toEqual(['b|r4', 's1|r4']);
  });

  it('without a known record before, writes the next keys and deletes only those the written record lacks', async () => {
    await placed('r5', ['a']);
    await movingEntries({ entries: entries(), keysOf, before: null, next: { _id: 'r5', keys: ['b'] }, write: writer('r5', ['b']) });
    expect(writes).toEqual(['insert b|r5', 'write']);
    // The key of a record not known before stays, skipped by readers that check the record.
    expect(await stored()).toEqual(['a|r5', 'b|r5']);
  });

  it('deletes nothing when the write wrote nothing (a lost claim): the next keys stay for the winner to settle', async () => {
    const before = await placed('r6', ['a']);
    expect(await movingEntries({ entries: entries(), keysOf, before, next: { _id: 'r6', keys: ['b'] }, write: writer('r6', ['b'], false) })).toBeNull();
    expect(writes).toEqual(['insert b|r6', 'write']);
    expect(await stored()).toEqual(['a|r6', 'b|r6']);
  });
});
