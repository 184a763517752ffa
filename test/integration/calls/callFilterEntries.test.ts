import type { CommandStartedEvent, CommandSucceededEvent, Document } from 'mongodb';
import request from 'supertest';
import { backfillCallEntries, callEntriesCollection, callFilterKeys, liveCallsList } from '../../../src/calls/callEntries';
import { listCalls } from '../../../src/calls/callList';
import { callCollections, newCallDoc, type CallDoc } from '../../../src/calls/callStore';
import type { CallOutcome, CallStatus } from '../../../src/calls/types';
import { newId } from '../../../src/domain/ids';
import { returnedDocuments } from '../../../src/observability/databaseOpTally';
import { collections } from '../../../src/db/collections';
import { CONSOLE_AUTH, pollCall, scriptCallee } from '../../support/calls';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { createTestWorkspace } from '../../support/workspaces';

/**
 * The console's campaign, live-status and days filters read through keyed entries
 * (src/calls/callEntries.ts): a campaign's calls, the workspace's live calls and its calls by
 * creation time, each a range of `call_entries` and its calls by id, never a walk of the calls
 * collection. Calls stored before the entries existed are listed the old way until the worker's
 * one backfill walk has written them.
 */
describe('calls by campaign, live status and days through their entries', () => {
  const { api, ws } = useTestApi({ worker: true });
  const base = Date.parse('2026-07-01T00:00:00Z');
  const HOUR = 3_600_000;
  const CAMPAIGN_A = 'cmp_aaaaaaaaaaaaaaaaaaaaaaaa';
  const CAMPAIGN_B = 'cmp_bbbbbbbbbbbbbbbbbbbbbbbb';

  /** Call i: its id made at hour i after `base`; created then, or 3 h later (a campaign's call id is chosen before the attempt that places it). */
  const callOf = (tenantId: string, agentId: string, i: number): CallDoc => {
    const idAt = new Date(base + i * HOUR);
    const status: CallStatus = i % 9 === 0 ? 'ringing' : i % 9 === 4 ? 'in_progress' : i % 7 === 3 ? 'failed' : 'completed';
    const outcome: CallOutcome | null = status === 'ringing' || status === 'in_progress' ? null : status === 'failed' ? 'unreachable' : i % 2 ? 'no_answer' : 'agent_hangup';
    const campaign = i % 3 === 0 ? CAMPAIGN_A : i % 3 === 1 ? CAMPAIGN_B : i === 35 ? 'cmp|not one of ours' : null;
    return {
      ...newCallDoc({
        _id: newId('call', idAt),
        tenant_id: tenantId,
        direction: 'outbound',
        status,
        to: `+9198111${String(i % 7).padStart(5, '0')}`,
        from_number: '918000000000',
        agent_id: agentId,
        requested_agent_id: null,
        deployment_id: 'dep_test',
        ring_seconds: 30,
        max_call_seconds: 600,
        recording: false,
        created_at: new Date(idAt.getTime() + (i % 5 === 0 || i % 5 === 2 ? 3 * HOUR : 0)),
        ...(campaign ? { metadata: { campaign_id: campaign } } : {}),
      }),
      outcome,
      step: 9,
    };
  };
  const getPage = async (workspaceId: string, query: string): Promise<{ ids: string[]; next: string | null }> => {
    const res = await request(api.server).get(`/console/v1/workspaces/${workspaceId}/calls${query}`).set(CONSOLE_AUTH);
    expect({ query, status: res.status }).toEqual({ query, status: 200 });
    return { ids: res.body.items.map((c: { call_id: string }) => c.call_id), next: res.body.next_cursor };
  };
  /** Every page of a filter, as the console walks them. */
  const walk = async (workspaceId: string, query: string, limit: number): Promise<string[][]> => {
    const seen = [await getPage(workspaceId, `${query}&limit=${limit}`)];
    while (seen[seen.length - 1]!.next) seen.push(await getPage(workspaceId, `${query}&limit=${limit}&cursor=${encodeURIComponent(seen[seen.length - 1]!.next!)}`));
    return seen.map((p) => p.ids);
  };
  /** Pages of `limit` of these ids, as a full walk answers them: a full page has a next cursor, so a list of whole pages ends with an empty one. */
  const paged = (ids: string[], limit: number): string[][] => Array.from({ length: Math.floor(ids.length / limit) + 1 }, (_, n) => ids.slice(n * limit, n * limit + limit));

  /** A console request's reads of the calls and their entries: each find's collection, filter keys and operators, and documents returned. */
  const reads = async (path: string): Promise<{ items: number; finds: [string, string[], number][] }> => {
    const started = new Map<number, CommandStartedEvent>();
    const finds: [string, string[], number][] = [];
    const onStart = (e: CommandStartedEvent) => started.set(e.requestId, e);
    const onEnd = (e: CommandSucceededEvent) => {
      const start = started.get(e.requestId);
      const collection = start?.command.find as string | undefined;
      if (start?.commandName !== 'find' || (collection !== 'calls' && collection !== 'call_entries')) return;
      const filter = start.command.filter as Record<string, Document>;
      finds.push([collection, Object.entries(filter).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) ? Object.keys(v).map((op) => `${k}:${op}`) : [k])).sort(), returnedDocuments(e.reply as Document)]);
    };
    api.mongo.on('commandStarted', onStart);
    api.mongo.on('commandSucceeded', onEnd);
    try {
      const res = await request(api.server).get(path).set(CONSOLE_AUTH);
      expect(res.status).toBe(200);
      return { items: res.body.items.length, finds };
    } finally {
      api.mongo.off('commandStarted', onStart);
      api.mongo.off('commandSucceeded', onEnd);
    }
  };

  it('pages a campaign’s, a live status’s and a span’s calls as the scan did before the backfill, and through the entries after, reading only their page', async () => {
    const own = await createTestWorkspace(api.db);
    const other = await createTestWorkspace(api.db);
    // The days below are Asia/Kolkata's: 2026-07-01 runs from 2026-06-30T18:30Z to 2026-07-01T18:30Z.
    expect((await collections(api.db).workspaces.findOne({ _id: own.workspaceId }))?.timezone).toBe('Asia/Kolkata');
    const dayEnd = Date.parse('2026-07-01T18:30:00Z');
    // 36 calls of this workspace written before the entries existed; another workspace's with the same campaigns and statuses.
    const calls = Array.from({ length: 36 }, (_, i) => callOf(own.workspaceId, own.agentId, i));
    const others = Array.from({ length: 12 }, (_, i) => callOf(other.workspaceId, other.agentId, i * 3));
    await callCollections(api.db).calls.insertMany([...calls, ...others]);

    const byId = (keep: (c: CallDoc) => boolean) => calls.filter(keep).map((c) => c._id).sort().reverse();
    const byCreation = (keep: (c: CallDoc) => boolean) =>
      calls
        .filter(keep)
        .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a._id < b._id ? 1 : -1))
        .map((c) => c._id);
    const inDay = (c: CallDoc) => c.created_at.getTime() < dayEnd;
    const sets: [string, (c: CallDoc) => boolean][] = [
      [`?campaign_id=${CAMPAIGN_A}`, (c) => c.metadata.campaign_id === CAMPAIGN_A],
      ['?status=ringing', (c) => c.status === 'ringing'],
      ['?status=in_progress', (c) => c.status === 'in_progress'],
      [`?campaign_id=${CAMPAIGN_A}&status=completed`, (c) => c.metadata.campaign_id === CAMPAIGN_A && c.status === 'completed'],
      [`?campaign_id=${CAMPAIGN_B}&created_from=2026-07-02`, (c) => c.metadata.campaign_id === CAMPAIGN_B && !inDay(c)],
      ['?status=in_progress&created_to=2026-07-01', (c) => c.status === 'in_progress' && inDay(c)],
      ['?status=ringing&outcome=busy', () => false],
    ];
    const spans: [string, (c: CallDoc) => boolean][] = [
      ['?created_from=2026-07-01&created_to=2026-07-01', inDay],
      ['?created_from=2026-07-02', (c) => !inDay(c)],
      ['?created_to=2026-07-01', inDay],
      ['?created_from=2026-06-01&created_to=2026-06-30', () => false],
    ];
    // The fixture holds what the filters must tell apart: calls created 3 h after their id's time, one across the day's end.
    expect(byId(inDay)).not.toEqual(byCreation(inDay));
    expect(calls.some((c) => Date.parse(timeKeyTime(c._id)) < dayEnd && !inDay(c))).toBe(true);
    expect([byId(sets[0]![1]).length, byId(sets[1]![1]).length, byId(sets[2]![1]).length, byId(inDay).length]).toEqual([12, 4, 4, 18]);

    const check = async (spanOrder: 'id' | 'creation') => {
      for (const [query, keep] of sets) expect({ query, pages: await walk(own.workspaceId, query, 3) }).toEqual({ query, pages: paged(byId(keep), 3) });
      // The scan lists a span by id; its entries by creation time, newest first (the order the console shows `created_at` in).
      for (const [query, keep] of spans) {
        expect({ query, pages: await walk(own.workspaceId, query, 4) }).toEqual({ query, pages: paged(spanOrder === 'id' ? byId(keep) : byCreation(keep), 4) });
      }
    };
    await check('id');

    // One walk over the calls writes every family's entries (the number's, the end's, these): one read of these 48 calls.
    const walkedCalls: Document[] = [];
    const onWalk = (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && e.command.find === 'calls') walkedCalls.push(e.command.filter as Document);
    };
    api.mongo.on('commandStarted', onWalk);
    await backfillCallEntries(api.db).finally(() => api.mongo.off('commandStarted', onWalk));
    expect(walkedCalls).toHaveLength(1);
    expect(await callEntriesCollection(api.db).countDocuments({ _id: { $regex: new RegExp(`^${own.workspaceId}\\|(to|outcome|status):`) } })).toBe(36 + 2 * calls.filter((c) => c.outcome !== null).length);
    const written = (await callEntriesCollection(api.db).find({ _id: { $regex: /\|(live|created|campaign:)/ } }).toArray()).map((e) => e._id);
    const ours = written.filter((k) => k.startsWith(`${own.workspaceId}|`) || k.startsWith(`${other.workspaceId}|`));
    expect(ours.sort()).toEqual([...calls, ...others].flatMap(callFilterKeys).sort());
    // A caller's own campaign_id that cannot be a key gets none (the console asks only for campaign ids).
    expect(ours.some((k) => k.includes('not one of ours'))).toBe(false);
    await check('creation');

    // A page reads its entries by `_id` range and its calls by `_id`, no more than it shows plus the walk's entries.
    const path = (query: string) => `/console/v1/workspaces/${own.workspaceId}/calls${query}`;
    expect(await reads(path(`?campaign_id=${CAMPAIGN_A}&limit=5`))).toEqual({
      items: 5,
      finds: [
        ['call_entries', ['_id:$gt', '_id:$lt'], 5],
        ['calls', ['_id:$in'], 5],
      ],
    });
    expect(await reads(path('?created_from=2026-07-01&created_to=2026-07-01&limit=5'))).toEqual({
      items: 5,
      finds: [
        ['call_entries', ['_id:$gt', '_id:$lt'], 5],
        ['calls', ['_id:$in'], 5],
      ],
    });
    // A live status reads the workspace's live calls (8 here: 4 ringing, 4 in progress), whatever their status, in batches of 3 then 6.
    expect(await reads(path('?status=ringing&limit=3'))).toEqual({
      items: 3,
      finds: [
        ['call_entries', ['_id:$gt', '_id:$lt'], 3],
        ['calls', ['_id:$in'], 3],
        ['call_entries', ['_id:$gt', '_id:$lt'], 5],
        ['calls', ['_id:$in'], 5],
      ],
    });

    // A live key left beside an ended call (a backfill that wrote it back as the call ended) is skipped, and removed by the read.
    const ended = calls.find((c) => c.status === 'completed')!;
    const stale = `${liveCallsList(own.workspaceId)}|${ended._id}`;
    await callEntriesCollection(api.db).insertOne({ _id: stale });
    expect(await walk(own.workspaceId, '?status=ringing', 10)).toEqual(paged(byId(sets[1]![1]), 10));
    expect(await callEntriesCollection(api.db).findOne({ _id: stale })).toBeNull();

    // A cursor of before the span's list (the id alone): the call's creation time is read, and the page goes on where it left off.
    const inDayIds = byCreation(inDay);
    const from = await callCollections(api.db).calls.findOne({ _id: inDayIds[3]! });
    const rest = await listCalls(api.db, own.workspaceId, { createdFrom: new Date(dayEnd - 86_400_000), createdBefore: new Date(dayEnd) }, { beforeId: from!._id, limit: 50 });
    expect(rest.map((c) => c._id)).toEqual(inDayIds.slice(4));
  });

  it('lists a placed call as live, in its campaign and its day, and moves it out of the live list when it ends', async () => {
    const campaign = 'cmp_0123456789abcdef01234567';
    await scriptCallee(api, ws, '+919811122288', { answer: false, ring_seconds: 120 });
    const placed = await request(api.server).post('/api/v1/calls').set(bearer(ws.key)).send({ to: '+919811122288', metadata: { campaign_id: campaign } });
    expect({ status: placed.status, body: placed.body }).toMatchObject({ status: 201 });
    const callId: string = placed.body.call_id;
    const stored = (await callCollections(api.db).calls.findOne({ _id: callId }))!;
    const live = `${liveCallsList(ws.workspaceId)}|${callId}`;
    expect((await callEntriesCollection(api.db).find({ _id: { $in: callFilterKeys(stored) } }).toArray()).map((e) => e._id).sort()).toEqual(callFilterKeys(stored).sort());
    expect(callFilterKeys(stored)).toContain(live);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Kolkata' }).format(stored.created_at);

    // While it rings, its live status lists it (read the status, then the list, until both agree: the status may move between).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status: string = (await pollCall(api, ws.key, callId, () => true)).status;
      const listed = (await getPage(ws.workspaceId, `?status=${status}`)).ids.includes(callId);
      if (listed) break;
      if (Date.now() > deadline) throw new Error(`call ${callId} never listed in its live status ${status}`);
      // Under the key's 120 requests a minute.
      await new Promise((r) => setTimeout(r, 600));
    }
    expect((await getPage(ws.workspaceId, `?campaign_id=${campaign}`)).ids).toEqual([callId]);
    expect((await getPage(ws.workspaceId, `?created_from=${today}&created_to=${today}`)).ids).toContain(callId);

    const hangup = await request(api.server).post(`/api/v1/calls/${callId}/hangup`).set(bearer(ws.key)).send({});
    expect(hangup.status).toBe(200);
    const over = await pollCall(api, ws.key, callId, (c) => c.outcome !== null);
    expect(['completed', 'failed']).toContain(over.status);
    expect(await callEntriesCollection(api.db).findOne({ _id: live })).toBeNull();
    for (const status of ['ringing', 'dialing', 'starting', 'in_progress']) expect((await getPage(ws.workspaceId, `?status=${status}`)).ids).not.toContain(callId);
    expect((await getPage(ws.workspaceId, `?status=${over.status}`)).ids).toContain(callId);
    expect((await getPage(ws.workspaceId, `?campaign_id=${campaign}`)).ids).toEqual([callId]);
  });
});

/** The time a call id was made at (`newId`'s 12 hex digits of milliseconds), ISO. */
function timeKeyTime(callId: string): string {
  return new Date(parseInt(callId.slice('call_'.length, 'call_'.length + 12), 16)).toISOString();
}
