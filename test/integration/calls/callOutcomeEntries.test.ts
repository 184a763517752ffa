import { MongoClient, type CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { backfillCallEntries, callEntriesCollection, callEndKeys, endingCall } from '../../../src/calls/callEntries';
import { listCalls } from '../../../src/calls/callList';
import { advanceCall, callCollections, type CallDoc } from '../../../src/calls/callStore';
import type { CallOutcome } from '../../../src/calls/types';
import { writeEntries } from '../../../src/db/keyedEntries';
import { CONSOLE_AUTH, pollCall, scriptCallee } from '../../support/calls';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { storedCall } from '../../support/storedRecords';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The console's outcome filter reads an outcome's calls through their keyed entries
 * (src/calls/callEntries.ts), written when a call ends: the same pages, in the same order and
 * with the same cursors, as the scan it replaces; calls that ended before the entries existed
 * are listed by the scan until the worker's backfill has written theirs.
 */
describe('calls by outcome through their entries', () => {
  const { api, ws } = useTestApi({ worker: true });
  const base = Date.parse('2026-07-01T00:00:00Z');
  const OUTCOMES: (CallOutcome | null)[] = ['no_answer', 'agent_hangup', 'no_answer', 'busy', null, 'unreachable'];

  const callOf = (tenantId: string, agentId: string, i: number, outcome: CallOutcome | null): CallDoc =>
    storedCall(
      { workspaceId: tenantId, agentId },
      new Date(base + i * 60_000),
      `+9198111${String(i % 7).padStart(5, '0')}`,
      outcome === null ? {} : { status: outcome === 'unreachable' ? 'failed' : 'completed', outcome, step: 9 },
    );
  const getPage = async (workspaceId: string, query: string): Promise<{ ids: string[]; next: string | null }> => {
    const res = await request(api.server).get(`/console/v1/workspaces/${workspaceId}/calls${query}`).set(CONSOLE_AUTH);
    expect(res.status).toBe(200);
    return { ids: res.body.items.map((c: { call_id: string }) => c.call_id), next: res.body.next_cursor };
  };
  /** Every page of a filter, as the console walks them. */
  const pages = async (workspaceId: string, query: string, limit: number) => {
    const seen: { ids: string[]; next: string | null }[] = [await getPage(workspaceId, `${query}&limit=${limit}`)];
    while (seen[seen.length - 1]!.next) seen.push(await getPage(workspaceId, `${query}&limit=${limit}&cursor=${encodeURIComponent(seen[seen.length - 1]!.next!)}`));
    return seen;
  };

  it('pages an outcome’s calls exactly as the scan did, before the backfill and through the entries after; an ended call joins its list', async () => {
    const own = await createTestWorkspace(api.db);
    const other = await createTestWorkspace(api.db);
    // Calls that ended (or are live) before the entries existed; some of another workspace, with the same outcomes.
    const old = Array.from({ length: 48 }, (_, i) => callOf(i % 9 === 8 ? other.workspaceId : own.workspaceId, own.agentId, i, OUTCOMES[i % OUTCOMES.length]!));
    await callCollections(api.db).calls.insertMany(old);
    const expected = (keep: (c: CallDoc) => boolean) =>
      old
        .filter((c) => c.tenant_id === own.workspaceId && keep(c))
        .map((c) => c._id)
        .sort()
        .reverse();
    const noAnswer = expected((c) => c.outcome === 'no_answer');
    const unreachableFailed = expected((c) => c.outcome === 'unreachable' && c.status === 'failed');
    expect([noAnswer.length, unreachableFailed.length]).toEqual([13, 6]);

    const queries = ['?outcome=no_answer', '?outcome=unreachable&status=failed', '?status=failed', '?status=completed', '?outcome=busy&status=completed', '?outcome=agent_hangup&to=%2B919811100001'];
    const scanned = new Map<string, Awaited<ReturnType<typeof pages>>>();
    for (const query of queries) scanned.set(query, await pages(own.workspaceId, query, 3));
    expect(scanned.get(queries[0]!)!.flatMap((p) => p.ids)).toEqual(noAnswer);
    expect(scanned.get(queries[1]!)!.flatMap((p) => p.ids)).toEqual(unreachableFailed);
    expect(scanned.get(queries[2]!)!.flatMap((p) => p.ids)).toEqual(unreachableFailed);
    expect(scanned.get(queries[3]!)!.flatMap((p) => p.ids)).toEqual(expected((c) => c.status === 'completed'));
    expect(scanned.get(queries[0]!)!.map((p) => p.ids.length)).toEqual([3, 3, 3, 3, 1]);

    await backfillCallEntries(api.db);
    const entries = (await callEntriesCollection(api.db).find({ _id: { $regex: /\|(outcome|status):/ } }).toArray()).map((e) => e._id);
    expect(entries.filter((k) => k.startsWith(`${own.workspaceId}|`) || k.startsWith(`${other.workspaceId}|`)).sort()).toEqual(old.flatMap(callEndKeys).sort());
    for (const query of queries) expect({ query, pages: await pages(own.workspaceId, query, 3) }).toEqual({ query, pages: scanned.get(query) });
    // A cursor the scan handed out goes on through the entries where it left off.
    const second = await getPage(own.workspaceId, `?outcome=no_answer&limit=3&cursor=${encodeURIComponent(scanned.get(queries[0]!)![0]!.next!)}`);
    expect(second).toEqual(scanned.get(queries[0]!)![1]);

    // A call that ends now writes its entry as it ends and is first in its outcome's list.
    await scriptCallee(api, ws, '+919811122277', { answer: false, ring_seconds: 0, network_outcome: 'busy' });
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '+919811122277' });
    expect(placed.status).toBe(201);
    const callId: string = placed.body.call_id;
    const ended = await pollCall(api, ws.key, callId, (c) => c.outcome !== null);
    expect(ended.outcome).toBe('busy');
    expect(await callEntriesCollection(api.db).find({ _id: { $in: [`${ws.workspaceId}|outcome:busy|${callId}`, `${ws.workspaceId}|status:completed|${callId}`] } }).toArray()).toHaveLength(2);
    expect((await getPage(ws.workspaceId, '?outcome=busy')).ids).toEqual([callId]);
    expect((await getPage(ws.workspaceId, '?status=completed')).ids).toEqual([callId]);
    expect((await getPage(ws.workspaceId, '?outcome=no_answer')).ids).toEqual([]);
  });

  it("reads calls and their entries by _id only: an outcome's (or ended status's) entries by range, then its calls by $in", async () => {
    const own = await createTestWorkspace(api.db);
    const calls = Array.from({ length: 30 }, (_, i) => callOf(own.workspaceId, own.agentId, 200 + i, i % 3 === 0 ? 'no_answer' : 'agent_hangup'));
    // Ended with their entries, as finishCall writes them; the backfill (done, or run here) marks the entries complete.
    await writeEntries(callEntriesCollection(api.db), calls.flatMap(callEndKeys));
    await callCollections(api.db).calls.insertMany(calls);
    await backfillCallEntries(api.db);
    const noAnswer = calls.filter((c) => c.outcome === 'no_answer').map((c) => c._id).reverse();

    const monitored = await new MongoClient(api.config.MONGODB_URL, { monitorCommands: true }).connect();
    try {
      const started: CommandStartedEvent[] = [];
      monitored.on('commandStarted', (event) => started.push(event));
      const db = monitored.db(api.db.databaseName);
      const first = await listCalls(db, own.workspaceId, { outcome: 'no_answer' }, { beforeId: null, limit: 4 });
      const next = await listCalls(db, own.workspaceId, { outcome: 'no_answer' }, { beforeId: first[first.length - 1]!._id, limit: 4 });
      const completed = await listCalls(db, own.workspaceId, { status: 'completed' }, { beforeId: null, limit: 4 });
      expect([first.map((c) => c._id), next.map((c) => c._id), completed.map((c) => c._id)]).toEqual([noAnswer.slice(0, 4), noAnswer.slice(4, 8), calls.map((c) => c._id).reverse().slice(0, 4)]);
      const finds = started.filter((e) => e.commandName === 'find');
      const filters = (collection: string) => finds.filter((e) => e.command.find === collection).map((e) => e.command.filter as Record<string, Record<string, unknown>>);
      expect(filters('calls').map((f) => [Object.keys(f), Object.keys(f._id!), (f._id!.$in as string[] | undefined)?.length ?? null])).toEqual([
        [['_id'], ['$in'], 4],
        [['_id'], ['$in'], 4],
        [['_id'], ['$in'], 4],
      ]);
      expect(filters('call_entries').map((f) => [Object.keys(f), Object.keys(f._id!).sort()])).toEqual([
        [['_id'], ['$gt', '$lt']],
        [['_id'], ['$gt', '$lt']],
        [['_id'], ['$gt', '$lt']],
      ]);
      expect(finds.every((e) => ['calls', 'call_entries', 'entry_backfills'].includes(e.command.find as string))).toBe(true);
    } finally {
      await monitored.close();
    }
  });

  it('moves a call between end lists around the write: an overtaken write leaves only the stored outcome’s entry', async () => {
    const own = await createTestWorkspace(api.db);
    const live = callOf(own.workspaceId, own.agentId, 300, null);
    await callCollections(api.db).calls.insertOne(live);
    const keys = async () => (await callEntriesCollection(api.db).find({ _id: { $regex: new RegExp(`^${own.workspaceId}\\|(outcome|status):`) } }).toArray()).map((e) => e._id);

    // A later step ended it as `busy` first; this step's `no_answer` does not apply.
    await endingCall(api.db, live, { outcome: 'busy', status: 'completed' }, () => advanceCall(api.db, live._id, 7, { status: 'completed', outcome: 'busy' }));
    await endingCall(api.db, live, { outcome: 'no_answer', status: 'completed' }, () => advanceCall(api.db, live._id, 5, { status: 'completed', outcome: 'no_answer' }));
    expect((await keys()).sort()).toEqual([`${own.workspaceId}|outcome:busy|${live._id}`, `${own.workspaceId}|status:completed|${live._id}`]);
    // A retried step that had applied keeps its entry.
    const stored = (await callCollections(api.db).calls.findOne({ _id: live._id }))!;
    await endingCall(api.db, stored, { outcome: 'busy', status: 'completed' }, () => advanceCall(api.db, live._id, 7, { status: 'completed', outcome: 'busy' }));
    expect((await keys()).sort()).toEqual([`${own.workspaceId}|outcome:busy|${live._id}`, `${own.workspaceId}|status:completed|${live._id}`]);
    expect((await listCalls(api.db, own.workspaceId, { outcome: 'no_answer' }, { beforeId: null, limit: 5 })).map((c) => c._id)).toEqual([]);
    expect((await listCalls(api.db, own.workspaceId, { outcome: 'busy' }, { beforeId: null, limit: 5 })).map((c) => c._id)).toEqual([live._id]);
  });
});
