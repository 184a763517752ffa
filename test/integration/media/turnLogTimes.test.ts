import type { Db } from 'mongodb';
import { readLineTurns } from '../../../src/calls/line/lineTurns';
import { TurnLog } from '../../../src/media/turnLog';
import { openTestDb, testConfig } from '../../support/env';

/**
 * The bridge's turn log: turns take their places in the order they begin, and their times
 * come from two clocks (the caller's from the media stream, the agent's from this process's
 * playout). A caller's turn stamped a second after the agent's next turn began (the stream's
 * clock ahead under load, as seen on a Plivo line: times 1, 8, 9, 16, 15) is stored no later
 * than it, so the transcript never runs backwards.
 */
describe('the turn log keeps transcript times in the order people spoke', () => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
  });
  afterAll(async () => drop());

  it('never stores a turn earlier than the one before it', async () => {
    const failures: unknown[] = [];
    const log = new TurnLog(db, { callId: 'call_turnlog_1', tenantId: 'ws_turnlog' }, (err) => failures.push(err));
    const answeredAt = new Date('2026-11-27T10:00:00Z');
    const at = (seconds: number) => new Date(answeredAt.getTime() + seconds * 1000);
    log.begin('agent-1', 'model', at(1));
    log.complete('agent-1', 'model', 'Hello, is someone home tomorrow?', at(3));
    log.begin('caller-1', 'user', at(8));
    log.complete('caller-1', 'user', 'Yes, in the morning.', at(9));
    log.begin('caller-2', 'user', at(16));
    log.begin('agent-2', 'model', at(15));
    log.trail({ kind: 'tool', text: 'Ran book_slot' }, at(14));
    log.complete('caller-2', 'user', 'Thanks.', at(17));
    log.complete('agent-2', 'model', 'Goodbye.', at(18));
    await log.flush();

    const turns = await readLineTurns(db, 'call_turnlog_1', answeredAt, 60);
    expect(failures).toEqual([]);
    expect(turns).toEqual([
      { role: 'model', text: 'Hello, is someone home tomorrow?', at_seconds: 1 },
      { role: 'user', text: 'Yes, in the morning.', at_seconds: 8 },
      { role: 'user', text: 'Thanks.', at_seconds: 16 },
      { role: 'model', text: 'Goodbye.', at_seconds: 16 },
    ]);
  });
});
