import { MongoClient, type CommandStartedEvent } from 'mongodb';
import request from 'supertest';
import { collections } from '../../../src/db/collections';
import { zoneDate } from '../../../src/dues/cycle';
import { backfillDueEntries, dueEntriesCollection, dueKeys, writeDueEntries } from '../../../src/dues/dueEntries';
import { listDues } from '../../../src/dues/dueLists';
import { changeDue } from '../../../src/dues/dueVersions';
import { dueIdFor, duesCollections, isOpen, type DueDoc, type DueStatus } from '../../../src/dues/store';
import { CONSOLE_AUTH } from '../../support/calls';
import { useTestApi } from '../../support/app';
import { bearer } from '../../support/http';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/**
 * The dues lists (public GET dues in every scope and status, the console's list by subscriber
 * and status) read through their keyed entries (src/dues/dueEntries.ts): the same pages, order
 * and cursors as the query on the dues they replace, before and after the backfill, and after
 * status changes, parallel ones included.
 */
describe('dues lists through their entries', () => {
  // The walks send more requests than a key's minute allows; the rate limit is not what is checked here.
  const { api } = useTestApi({ rateLimitStore: { increment: () => Promise.resolve(1) } });

  async function duesWorkspace(): Promise<TestWorkspace & { today: string }> {
    const ws = await createTestWorkspace(api.db);
    await collections(api.db).workspaces.updateOne({ _id: ws.workspaceId }, { $set: { installed_apps: ['dues'] } });
    const doc = (await collections(api.db).workspaces.findOne({ _id: ws.workspaceId }))!;
    return { ...ws, today: zoneDate(new Date(), doc.timezone) };
  }

  const day = (today: string, offset: number): string => new Date(Date.parse(`${today}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

  function due(tenantId: string, subscriberId: string, index: number, dueDate: string, status: DueStatus): DueDoc {
    const at = new Date();
    return {
      _id: dueIdFor(subscriberId, index),
      tenant_id: tenantId,
      subscriber_id: subscriberId,
      subscriber_name: 'Person',
      phone: '+919700000000',
      contact_id: null,
      cycle_index: index,
      period_label: dueDate,
      amount: 700,
      currency: 'INR',
      due_date: dueDate,
      status,
      collection_mode: 'manual_upi',
      payment_link: null,
      payment_link_id: null,
      payment_reference: null,
      paid_at: null,
      paid_amount: null,
      paid_source: null,
      marked_by: null,
      marked_by_name: null,
      reminders_sent: 0,
      last_reminder_at: null,
      next_action_at: null,
      campaign_id: null,
      failure_reason: null,
      version: 1,
      created_at: at,
      updated_at: at,
    };
  }

  /** Dues as they were before the entries existed: three subscribers, dates around today (several on the same day), every status. */
  async function seed(ws: { workspaceId: string; today: string }, tag: string): Promise<string[]> {
    const statuses: DueStatus[] = ['scheduled', 'reminded', 'followup_1', 'followup_2', 'paid', 'declined', 'waived', 'cancelled'];
    const docs: DueDoc[] = [];
    for (let s = 0; s < 3; s++) {
      const subscriberId = `sub_${tag}${String(s).padStart(23, '0')}`;
      for (let i = 0; i < 8; i++) docs.push(due(ws.workspaceId, subscriberId, i, day(ws.today, (i % 5) - 2), statuses[(i + s * 3) % statuses.length]!));
    }
    await duesCollections(api.db).dues.insertMany(docs);
    return [...new Set(docs.map((d) => d.subscriber_id))];
  }

  /** Every due of the workspace in the list's order, filtered as the list filters. */
  async function expected(tenantId: string, keep: (d: DueDoc) => boolean, order: 1 | -1): Promise<string[]> {
    const all = await duesCollections(api.db).dues.find({ tenant_id: tenantId }).toArray();
    return all
      .filter(keep)
      .sort((a, b) => (a.due_date === b.due_date ? (a._id < b._id ? -order : order) : a.due_date < b.due_date ? -order : order))
      .map((d) => d._id);
  }

  async function walk(path: string, auth: Record<string, string>, query: Record<string, string | number>): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await request(api.server)
        .get(path)
        .query({ ...query, ...(cursor ? { cursor } : {}) })
        .set(auth);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((d: { due_id: string }) => d.due_id));
      cursor = res.body.next_cursor;
    } while (cursor);
    return seen;
  }

  async function check(ws: TestWorkspace & { today: string }, subscribers: string[]): Promise<void> {
    const t = ws.workspaceId;
    const pub = (query: Record<string, string | number>) => walk('/api/v1/apps/dues/dues', bearer(ws.key), query);
    const con = (query: Record<string, string | number>) => walk(`/console/v1/workspaces/${t}/apps/dues/dues`, CONSOLE_AUTH, query);
    const open = (d: DueDoc) => isOpen(d.status);
    const cases: [Record<string, string | number>, (d: DueDoc) => boolean, 1 | -1][] = [
      [{}, () => true, -1],
      [{ scope: 'open' }, open, -1],
      [{ scope: 'overdue' }, (d) => open(d) && d.due_date < ws.today, 1],
      [{ scope: 'upcoming' }, (d) => d.status === 'scheduled' && d.due_date >= ws.today, 1],
      [{ scope: 'paid' }, (d) => d.status === 'paid', -1],
      [{ status: 'reminded', scope: 'paid' }, (d) => d.status === 'reminded', -1],
      [{ status: 'cancelled' }, (d) => d.status === 'cancelled', -1],
      [{ status: 'scheduled' }, (d) => d.status === 'scheduled', -1],
    ];
    for (const [query, keep, order] of cases) {
      const want = await expected(t, keep, order);
      expect({ query, seen: await pub({ ...query, limit: 2 }) }).toEqual({ query, seen: want });
      expect({ query, seen: await pub({ ...query, limit: 200 }) }).toEqual({ query, seen: want });
    }
    expect(await con({ limit: 3 })).toEqual(await expected(t, () => true, -1));
    expect(await con({ limit: 2, status: 'paid' })).toEqual(await expected(t, (d) => d.status === 'paid', -1));
    for (const s of subscribers) {
      expect(await con({ limit: 2, subscriber_id: s })).toEqual(await expected(t, (d) => d.subscriber_id === s, -1));
      expect(await con({ limit: 1, subscriber_id: s, status: 'scheduled' })).toEqual(await expected(t, (d) => d.subscriber_id === s && d.status === 'scheduled', -1));
    }
  }

  async function entriesMatchRecords(tenantIds: string[]): Promise<void> {
    const stored = await duesCollections(api.db).dues.find({ tenant_id: { $in: tenantIds } }).toArray();
    const entries = await dueEntriesCollection(api.db).find({}).toArray();
    expect(entries.map((e) => e._id).filter((k) => tenantIds.some((t) => k.startsWith(`${t}|`))).sort()).toEqual(stored.flatMap(dueKeys).sort());
  }

  it('answers the same pages before the backfill, after it, and after status changes (parallel ones too); another workspace sees none', async () => {
    const own = await duesWorkspace();
    const other = await duesWorkspace();
    const ownSubs = await seed(own, 'a');
    const otherSubs = await seed(other, 'b');
    await check(own, ownSubs);
    await check(other, otherSubs);

    await backfillDueEntries(api.db);
    await entriesMatchRecords([own.workspaceId, other.workspaceId]);
    await check(own, ownSubs);
    await check(other, otherSubs);

    // Changes as the chase and the actions write them: a reminder, a payment, a waiver, a decline.
    const { dues } = duesCollections(api.db);
    const openOnes = await dues.find({ tenant_id: own.workspaceId, status: { $in: ['scheduled', 'reminded', 'followup_1', 'followup_2'] } }).toArray();
    const moves: DueStatus[] = ['reminded', 'paid', 'waived', 'declined', 'followup_1', 'cancelled'];
    for (const [i, d] of openOnes.slice(0, moves.length).entries()) {
      expect((await changeDue(api.db, d, { status: moves[i]! }, new Date())).kind).toBe('written');
    }
    // A version that keeps the status moves nothing.
    const kept = (await dues.findOne({ tenant_id: own.workspaceId, status: 'paid' }))!;
    expect((await changeDue(api.db, kept, { reminders_sent: 3 }, new Date())).kind).toBe('written');
    await entriesMatchRecords([own.workspaceId, other.workspaceId]);
    await check(own, ownSubs);

    // Parallel changes of the same version: one wins, and the lists follow the winner.
    const racing = await dues.find({ tenant_id: other.workspaceId, status: { $in: ['scheduled', 'reminded', 'followup_1', 'followup_2'] } }).toArray();
    expect(racing.length).toBeGreaterThan(3);
    const results = await Promise.all(racing.flatMap((d) => (['paid', 'declined', 'waived'] as DueStatus[]).map((status) => changeDue(api.db, d, { status }, new Date()))));
    expect(results.filter((r) => r.kind === 'written')).toHaveLength(racing.length);
    await entriesMatchRecords([own.workspaceId, other.workspaceId]);
    await check(other, otherSubs);
    await check(own, ownSubs);
  });

  it('reads the dues collection by _id only: the entries up to the page (and, overdue, up to today), then the page of dues', async () => {
    const own = await duesWorkspace();
    await seed(own, 'c');
    // Their entries, as a raise writes them (the backfill is done: it ran in the test above, or runs now when this one runs alone).
    await writeDueEntries(api.db, await duesCollections(api.db).dues.find({ tenant_id: own.workspaceId }).toArray());
    await backfillDueEntries(api.db);
    const monitored = await new MongoClient(api.config.MONGODB_URL, { monitorCommands: true }).connect();
    try {
      const started: CommandStartedEvent[] = [];
      monitored.on('commandStarted', (event) => started.push(event));
      const db = monitored.db(api.db.databaseName);
      const plain = await listDues(db, own.workspaceId, { order: -1, limit: 4 });
      expect(plain.map((d) => d._id)).toEqual((await expected(own.workspaceId, () => true, -1)).slice(0, 4));
      const overdue = await listDues(db, own.workspaceId, { open: true, dueBefore: own.today, order: 1, limit: 200 });
      expect(overdue.map((d) => d._id)).toEqual(await expected(own.workspaceId, (d) => isOpen(d.status) && d.due_date < own.today, 1));
      const finds = started.filter((e) => e.commandName === 'find');
      const onDues = finds.filter((e) => e.command.find === 'dues');
      expect(onDues.map((e) => Object.keys(e.command.filter))).toEqual([['_id'], ['_id']]);
      expect(onDues[0]!.command.filter._id.$in).toHaveLength(4);
      const onEntries = finds.filter((e) => e.command.find === 'due_entries');
      expect(onEntries).toHaveLength(2);
      expect(onEntries[0]!.command.limit).toBe(4);
      // The overdue walk stops below today's first key: it reads no open entry of today or later.
      expect(onEntries[1]!.command.filter._id.$lt).toBe(`${own.workspaceId}|dues:open|${own.today}`);
    } finally {
      await monitored.close();
    }
  });
});
