import type { Collection, Db } from 'mongodb';
import { BULK_WRITE_MAX } from '../db/bulkWrite';
import { findByIds } from '../db/findByIds';
import { newId } from '../domain/ids';
import { LIST_LIMITS } from './limits';
import type { ParsedList, ParsedRow } from './parseList';

/**
 * Uploaded lists as stored (docs/campaigns.md "Uploaded lists"). A list never changes once
 * stored, so a campaign names it by id and reads the same rows at evaluate and at launch.
 * The rows live apart from the list record, in chunk documents of up to
 * `LIST_LIMITS.rowsPerChunk` rows keyed `<list_id>:<n>`: evaluate reads a list of 50,000 by
 * about 50 `_id`s (the one filter FerretDB answers from an index), and listing the lists
 * never reads a row.
 */

export interface UploadedListDoc {
  /** `lst_` + time-ordered id. */
  _id: string;
  tenant_id: string;
  name: string;
  file_name: string | null;
  /** The header as written, and the normalised names `{{variables}}` use, in the same order. */
  headers: string[];
  columns: string[];
  phone_column: string;
  row_count: number;
  chunk_count: number;
  bytes: number;
  created_at: Date;
}

export interface UploadedListChunkDoc {
  /** `<list_id>:<n>` from 0. */
  _id: string;
  tenant_id: string;
  list_id: string;
  /**
   * The chunk's rows as one JSON text, `[[line, cell, cell, …], …]`: FerretDB 1.x refuses
   * nested arrays, and one string is cheaper for it to store and read than a thousand
   * sub-documents.
   */
  rows: string;
}

export function listCollections(db: Db): { lists: Collection<UploadedListDoc>; chunks: Collection<UploadedListChunkDoc> } {
  return {
    lists: db.collection<UploadedListDoc>('uploaded_lists'),
    chunks: db.collection<UploadedListChunkDoc>('uploaded_list_chunks'),
  };
}

export const LIST_ID_PATTERN = /^lst_[0-9a-f]{24}$/;
export const chunkId = (listId: string, n: number): string => `${listId}:${n}`;

/** Where each chunk ends: `rowsPerChunk` rows, or fewer once its cells pass `chunkMaxBytes`. */
export function chunkRows(rows: readonly ParsedRow[]): ParsedRow[][] {
  const chunks: ParsedRow[][] = [];
  let current: ParsedRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.cells.reduce((n, c) => n + c.length + 8, 16);
    if (current.length > 0 && (current.length >= LIST_LIMITS.rowsPerChunk || bytes + size > LIST_LIMITS.chunkMaxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Stores the list: its chunks first, in `insertMany`s of at most `BULK_WRITE_MAX` documents
 * one after another (FerretDB holds a pooled connection per statement of a command), then the
 * list record, so a list that can be read has all its rows; a failure between leaves only
 * unreachable chunks.
 */
export async function storeList(
  db: Db,
  input: { tenantId: string; name: string; fileName: string | null; bytes: number; parsed: ParsedList; now: Date },
): Promise<UploadedListDoc> {
  const { lists, chunks } = listCollections(db);
  const id = newId('lst', input.now);
  const parts = chunkRows(input.parsed.rows);
  const docs: UploadedListChunkDoc[] = parts.map((rows, n) => ({
    _id: chunkId(id, n),
    tenant_id: input.tenantId,
    list_id: id,
    rows: JSON.stringify(rows.map((r) => [r.line, ...r.cells])),
  }));
  for (let start = 0; start < docs.length; start += BULK_WRITE_MAX) {
    await chunks.insertMany(docs.slice(start, start + BULK_WRITE_MAX), { ordered: true });
  }
  const list: UploadedListDoc = {
    _id: id,
    tenant_id: input.tenantId,
    name: input.name,
    file_name: input.fileName,
    headers: input.parsed.headers,
    columns: input.parsed.columns,
    phone_column: input.parsed.phoneColumn,
    row_count: input.parsed.rows.length,
    chunk_count: docs.length,
    bytes: input.bytes,
    created_at: input.now,
  };
  await lists.insertOne(list);
  return list;
}

/** By `_id` alone; another workspace's list is not found. */
export async function findList(db: Db, tenantId: string, listId: string): Promise<UploadedListDoc | null> {
  const doc = await listCollections(db).lists.findOne({ _id: listId });
  return doc?.tenant_id === tenantId ? doc : null;
}

/** The workspace's lists, newest first, after `afterId` (ids are time-ordered). A workspace has few lists: one scan. */
export async function listLists(db: Db, tenantId: string, options: { afterId: string | null; limit: number }): Promise<UploadedListDoc[]> {
  const filter = options.afterId ? { tenant_id: tenantId, _id: { $lt: options.afterId } } : { tenant_id: tenantId };
  return listCollections(db).lists.find(filter).sort({ _id: -1 }).limit(options.limit).toArray();
}

/** Every row of the list in file order, its chunks read by `_id` (`chunk_count` of them). */
export async function readListRows(db: Db, list: Pick<UploadedListDoc, '_id' | 'tenant_id' | 'chunk_count'>, chunkLimit = list.chunk_count): Promise<ParsedRow[]> {
  const ids = Array.from({ length: Math.min(chunkLimit, list.chunk_count) }, (_, n) => chunkId(list._id, n));
  const docs = ids.length === 0 ? [] : await findByIds(listCollections(db).chunks, ids);
  const byId = new Map(docs.filter((d) => d.tenant_id === list.tenant_id).map((d) => [d._id, d]));
  const rows: ParsedRow[] = [];
  for (const id of ids) {
    const doc = byId.get(id);
    if (!doc) continue;
    for (const [line, ...cells] of JSON.parse(doc.rows) as [number, ...string[]][]) rows.push({ line, cells });
  }
  return rows;
}
