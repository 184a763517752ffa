import type { Db } from 'mongodb';
import { entriesComplete, readThroughEntries } from '../db/keyedEntries';
import { allDuesList, DUE_ENTRIES, dueEntriesCollection, duePosition, duesInStatusList, openDuesList, subscriberDuesList } from './dueEntries';
import { duesCollections, isOpen, OPEN_DUE_STATUSES, type DueDoc, type DueStatus } from './store';

/**
 * The dues lists the public API and the console share (campaigns-tickets-dues §4 GET dues, the
 * console's dues list and subscriber page): dues ordered by (due date, `_id`), filtered by
 * subscriber, status or open, and by due date against a day. Cursors stay with the routes.
 */
export interface DueListQuery {
  subscriberId?: string;
  /** One status; wins over `open`. */
  status?: DueStatus;
  /** Any open status. */
  open?: boolean;
  /** Only dues due before this date (`YYYY-MM-DD`, exclusive). */
  dueBefore?: string;
  /** Only dues due on or after this date. */
  dueFrom?: string;
  /** 1: earliest due date first; -1: latest first. Ties go by `_id` in the same direction. */
  order: 1 | -1;
  /** The (due date, `_id`) of the previous page's last due. */
  after?: [dueDate: string, id: string];
  limit: number;
}

export async function listDues(db: Db, tenantId: string, query: DueListQuery): Promise<DueDoc[]> {
  return (await entriesComplete(db, DUE_ENTRIES)) ? duesThroughEntries(db, tenantId, query) : duesByScan(db, tenantId, query);
}

function wanted(d: DueDoc, tenantId: string, q: DueListQuery): boolean {
  if (d.tenant_id !== tenantId) return false;
  if (q.subscriberId !== undefined && d.subscriber_id !== q.subscriberId) return false;
  if (q.status ? d.status !== q.status : q.open && !isOpen(d.status)) return false;
  if (q.dueBefore !== undefined && !(d.due_date < q.dueBefore)) return false;
  return q.dueFrom === undefined || d.due_date >= q.dueFrom;
}

/**
 * The page read through the dues' keyed entries (src/dues/dueEntries.ts): the narrowest list
 * the filters name (a subscriber's, a status's, the open ones, or all), walked from the
 * cursor or the first date wanted and, for dues before a day, only up to it; each due
 * re-checked on its record (a status key left behind by a move is skipped).
 */
function duesThroughEntries(db: Db, tenantId: string, q: DueListQuery): Promise<DueDoc[]> {
  const prefix =
    q.subscriberId !== undefined
      ? subscriberDuesList(tenantId, q.subscriberId)
      : q.status
        ? duesInStatusList(tenantId, q.status)
        : q.open
          ? openDuesList(tenantId)
          : allDuesList(tenantId);
  const cursor = q.after ? duePosition(q.after[0], q.after[1]) : null;
  // A date alone sorts just below every key of its day (`<date>` < `<date>|<id>`): as an
  // exclusive bound it keeps that day on the `dueFrom` side and leaves it out on the `dueBefore` side.
  return readThroughEntries({
    entries: dueEntriesCollection(db),
    prefix,
    order: q.order,
    from: q.order === 1 ? maxKey(cursor, q.dueFrom ?? null) : minKey(cursor, q.dueBefore ?? null),
    until: q.order === 1 ? (q.dueBefore ?? null) : (q.dueFrom ?? null),
    limit: q.limit,
    records: duesCollections(db).dues,
    keep: (d) => wanted(d, tenantId, q),
  });
}

const maxKey = (a: string | null, b: string | null): string | null => (a === null ? b : b === null || a > b ? a : b);
const minKey = (a: string | null, b: string | null): string | null => (a === null ? b : b === null || a < b ? a : b);

/** The same page by a query on the dues (a scan on FerretDB): until the entries' backfill is done. */
function duesByScan(db: Db, tenantId: string, q: DueListQuery): Promise<DueDoc[]> {
  const and: Record<string, unknown>[] = [{ tenant_id: tenantId }];
  if (q.subscriberId !== undefined) and.push({ subscriber_id: q.subscriberId });
  if (q.status) and.push({ status: q.status });
  else if (q.open) and.push({ status: { $in: [...OPEN_DUE_STATUSES] } });
  if (q.dueBefore !== undefined) and.push({ due_date: { $lt: q.dueBefore } });
  if (q.dueFrom !== undefined) and.push({ due_date: { $gte: q.dueFrom } });
  if (q.after) {
    const [dueDate, id] = q.after;
    const beyond = q.order === 1 ? '$gt' : '$lt';
    and.push({ $or: [{ due_date: { [beyond]: dueDate } }, { due_date: dueDate, _id: { [beyond]: id } }] });
  }
  return duesCollections(db).dues.find({ $and: and }).sort({ due_date: q.order, _id: q.order }).limit(q.limit).toArray();
}
