import type { CommandStartedEvent, Db, Document } from 'mongodb';
import { appendLineTurn, readLineConversation, readLineTurns } from '../../../src/calls/line/lineTurns';
import { connectMongo } from '../../../src/db/mongo';
import { openTestDb, testConfig } from '../../support/env';

/**
 * A real line's turns are read at each call's end (its transcript, its conversation): by their
 * `_id`s, which FerretDB's patched build answers from its index, not by `call_id`, which scanned
 * every call's turns (issue 36). The answer is the call's own turns in the bridge's order.
 */
describe('a call’s line turns, read by _id', () => {
  let db: Db;
  let drop: () => Promise<void>;
  const answeredAt = new Date('2026-01-02T03:04:00.000Z');
  const turn = (callId: string, seq: number, kind?: 'trail') => ({
    call_id: callId,
    tenant_id: 'ws_lineturns',
    seq,
    role: seq % 2 === 0 ? ('user' as const) : ('model' as const),
    text: `${callId} turn ${seq}`,
    at: new Date(answeredAt.getTime() + seq * 1000),
    ...(kind ? { kind, trail: { kind: 'lookup' as const } } : {}),
  });

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    // Twelve turns, so `:10` sorts before `:2` by id; a call whose id extends this one's, and one before it.
    for (const seq of [3, 11, 1, 2, 12, 10, 4, 5, 6, 7, 8, 9]) await appendLineTurn(db, turn('call_lt', seq, seq === 4 ? 'trail' : undefined));
    for (const seq of [1, 2]) await appendLineTurn(db, turn('call_lt2', seq));
    await appendLineTurn(db, turn('call_l', 1));
  });
  afterAll(async () => {
    await drop?.();
  });

  it('answers the call’s own turns in seq order, the transcript without trail rows', async () => {
    const turns = await readLineTurns(db, 'call_lt', answeredAt, 600);
    expect(turns.map((t) => t.text)).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12].map((seq) => `call_lt turn ${seq}`));
    expect(turns[9]).toEqual({ role: 'model', text: 'call_lt turn 11', at_seconds: 11 });
    const conversation = await readLineConversation(db, 'call_lt', answeredAt, 600);
    expect(conversation!.map((t) => `${t.kind} ${t.text}`)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((seq) => `${seq === 4 ? 'trail' : 'turn'} call_lt turn ${seq}`));
    expect((await readLineTurns(db, 'call_l', answeredAt, 600)).map((t) => t.text)).toEqual(['call_l turn 1']);
  });

  it('reads them with a filter FerretDB answers from its _id index, not a scan', async () => {
    const watched = await connectMongo({ MONGODB_URL: testConfig().MONGODB_URL, MONGODB_DB: db.databaseName }, 'test-line-turns', { monitorCommands: true });
    try {
      const filters: Document[] = [];
      watched.client.on('commandStarted', (e: CommandStartedEvent) => {
        if (e.commandName === 'find' && e.command.find === 'line_turns') filters.push(e.command.filter as Document);
      });
      await readLineTurns(watched.db, 'call_lt', answeredAt, 600);
      await readLineConversation(watched.db, 'call_lt', answeredAt, 600);
      expect(filters).toHaveLength(2);
      for (const filter of filters) {
        const plan = JSON.stringify(await db.collection('line_turns').find(filter).explain());
        expect(plan).toMatch(/SEARCH \S+ USING INDEX \S+__id_ /);
        expect(plan).not.toMatch(/SCAN /);
      }
    } finally {
      await watched.client.close();
    }
  });
});
