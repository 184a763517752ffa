import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { ID_IN_MAX, findByIds } from '../../../src/db/findByIds';
import { openTestDb, testConfig } from '../../support/env';

interface Doc {
  _id: string;
  n: number;
}

describe('findByIds reads listed string ids by _id $in, at most ID_IN_MAX a read', () => {
  /** A client of its own that reports its commands, to count the reads. */
  let client: MongoClient;
  let db: Db;
  let drop: () => Promise<void>;
  const total = ID_IN_MAX + 500;
  const idOf = (n: number) => `doc_${n}`;
  const finds: CommandStartedEvent[] = [];
  const onCommand = (event: CommandStartedEvent) => {
    if (event.commandName === 'find' && event.command.find === 'by_ids') finds.push(event);
  };

  beforeAll(async () => {
    const config = testConfig();
    ({ drop } = await openTestDb(config));
    client = await new MongoClient(config.MONGODB_URL, { monitorCommands: true }).connect();
    db = client.db(config.MONGODB_DB);
    await db.collection<Doc>('by_ids').insertMany(Array.from({ length: total }, (_, n) => ({ _id: idOf(n), n })));
    client.on('commandStarted', onCommand);
  });

  afterAll(async () => {
    await client?.close();
    await drop?.();
  });

  beforeEach(() => {
    finds.length = 0;
  });

  const sortedNs = (docs: Doc[]) => docs.map((doc) => doc.n).sort((a, b) => a - b);

  it('finds every listed id once, repeats and all, leaves out missing ones, in one read per ID_IN_MAX distinct ids', async () => {
    const ids = [...Array.from({ length: total }, (_, n) => idOf(n)), 'doc_missing', idOf(3), idOf(total - 1)];
    const docs = await findByIds(db.collection<Doc>('by_ids'), ids);
    expect(sortedNs(docs)).toEqual(Array.from({ length: total }, (_, n) => n));
    expect(finds.map((event) => (event.command.filter as { _id: { $in: string[] } })._id.$in.length)).toEqual([ID_IN_MAX, total + 1 - ID_IN_MAX]);
  });

  it('answers a short list with one read and passes the options on', async () => {
    const docs = await findByIds(db.collection<Doc>('by_ids'), [idOf(7), idOf(1), 'doc_missing'], { projection: { _id: 1 } });
    expect(docs.map((doc) => doc._id).sort()).toEqual([idOf(1), idOf(7)]);
    expect(docs.every((doc) => !('n' in doc))).toBe(true);
    expect(finds).toHaveLength(1);
  });

  it('reads nothing for an empty list (FerretDB would scan for an empty $in)', async () => {
    expect(await findByIds(db.collection<Doc>('by_ids'), [])).toEqual([]);
    expect(finds).toHaveLength(0);
  });
});
