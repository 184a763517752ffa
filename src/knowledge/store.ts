import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { BULK_WRITE_MAX } from '../db/bulkWrite';
import { findByIds } from '../db/findByIds';
import { insertIfAbsent } from '../db/insertIfAbsent';
import type { PlaceDoc } from '../db/numberedPlaces';
import type { Passage } from './passages';
import type { KnowledgeFormat } from './readDocument';

/**
 * Knowledge documents as stored (docs/agents.md "Knowledge"). A document never changes once
 * stored: a new version is a new upload (and the old one deleted). Its passages live apart,
 * in chunk documents keyed `<document_id>:<n>`, so rebuilding a workspace's index reads them
 * by `_id` (the one filter FerretDB answers from an index) and listing documents reads none.
 *
 * Each workspace has a stamp (`_id` the workspace) holding a random token that every upload
 * and delete replaces after its writes: a process that built the index under one token
 * knows, by one point read, whether it may still use it (searchIndex.ts). A random token
 * rather than a counter, because FerretDB applies neither `$inc` nor a conditional update
 * atomically: two writes racing still each leave a token nobody built under.
 */

export interface KnowledgeDocumentDoc {
  /** `kdoc_` + time-ordered id. */
  _id: string;
  tenant_id: string;
  name: string;
  file_name: string | null;
  format: KnowledgeFormat;
  bytes: number;
  passage_count: number;
  chunk_count: number;
  /** The numbered place the document holds (the per-workspace limit), given back on delete. */
  place_id: string;
  created_at: Date;
}

export interface KnowledgeChunkDoc {
  /** `<document_id>:<n>` from 0. */
  _id: string;
  tenant_id: string;
  document_id: string;
  /** The chunk's passages as one JSON text: cheaper for FerretDB than an array of sub-documents. */
  passages: string;
}

interface KnowledgeStampDoc {
  /** The workspace id. */
  _id: string;
  token: string;
  at: Date;
}

export interface KnowledgePlaceDoc extends PlaceDoc {
  document_id: string;
  taken_at: Date;
}

export function knowledgeCollections(db: Db) {
  return {
    documents: db.collection<KnowledgeDocumentDoc>('knowledge_documents'),
    chunks: db.collection<KnowledgeChunkDoc>('knowledge_chunks'),
    stamps: db.collection<KnowledgeStampDoc>('knowledge_stamps'),
    places: db.collection<KnowledgePlaceDoc>('knowledge_document_places'),
  };
}

export const KNOWLEDGE_DOCUMENT_ID_PATTERN = /^kdoc_[0-9a-f]{24}$/;
/** Passages per chunk document: about 120 KB of text at most, well under any document size limit. */
export const PASSAGES_PER_CHUNK = 100;
const chunkId = (documentId: string, n: number): string => `${documentId}:${n}`;

/** Writes the passages' chunks, then the document record, so a listed document has all its passages. */
export async function storeDocument(db: Db, doc: Omit<KnowledgeDocumentDoc, 'chunk_count'>, passages: readonly Passage[]): Promise<KnowledgeDocumentDoc> {
  const { documents, chunks } = knowledgeCollections(db);
  const chunkDocs: KnowledgeChunkDoc[] = [];
  for (let start = 0; start < passages.length; start += PASSAGES_PER_CHUNK) {
    chunkDocs.push({
      _id: chunkId(doc._id, chunkDocs.length),
      tenant_id: doc.tenant_id,
      document_id: doc._id,
      passages: JSON.stringify(passages.slice(start, start + PASSAGES_PER_CHUNK)),
    });
  }
  for (let start = 0; start < chunkDocs.length; start += BULK_WRITE_MAX) {
    await chunks.insertMany(chunkDocs.slice(start, start + BULK_WRITE_MAX), { ordered: true });
  }
  const stored: KnowledgeDocumentDoc = { ...doc, chunk_count: chunkDocs.length };
  await documents.insertOne(stored);
  return stored;
}

/** The chunks a document wrote (or began to write), by `_id`. */
export async function deleteChunks(db: Db, documentId: string, chunkCount: number): Promise<void> {
  const ids = Array.from({ length: chunkCount }, (_, n) => chunkId(documentId, n));
  for (let start = 0; start < ids.length; start += BULK_WRITE_MAX) {
    await knowledgeCollections(db).chunks.deleteMany({ _id: { $in: ids.slice(start, start + BULK_WRITE_MAX) } });
  }
}

/** By `_id` alone; another workspace's document is not found. */
export async function findKnowledgeDocument(db: Db, tenantId: string, documentId: string): Promise<KnowledgeDocumentDoc | null> {
  const doc = await knowledgeCollections(db).documents.findOne({ _id: documentId });
  return doc?.tenant_id === tenantId ? doc : null;
}

/** The workspace's documents, newest first. A workspace has at most a few dozen: one scan. */
export async function listKnowledgeDocuments(db: Db, tenantId: string): Promise<KnowledgeDocumentDoc[]> {
  return knowledgeCollections(db).documents.find({ tenant_id: tenantId }).sort({ _id: -1 }).toArray();
}

/** Every passage of the documents, by document id, read by their chunks' `_id`s. */
export async function readPassages(db: Db, docs: readonly Pick<KnowledgeDocumentDoc, '_id' | 'tenant_id' | 'chunk_count'>[]): Promise<Map<string, Passage[]>> {
  const ids = docs.flatMap((doc) => Array.from({ length: doc.chunk_count }, (_, n) => chunkId(doc._id, n)));
  const found = ids.length === 0 ? [] : await findByIds(knowledgeCollections(db).chunks, ids);
  const byId = new Map(found.map((chunk) => [chunk._id, chunk]));
  const out = new Map<string, Passage[]>();
  for (const doc of docs) {
    const passages: Passage[] = [];
    for (let n = 0; n < doc.chunk_count; n++) {
      const chunk = byId.get(chunkId(doc._id, n));
      if (chunk && chunk.tenant_id === doc.tenant_id) passages.push(...(JSON.parse(chunk.passages) as Passage[]));
    }
    out.set(doc._id, passages);
  }
  return out;
}

/** The workspace's current token; `none` before its first upload. */
export async function readKnowledgeStamp(db: Db, tenantId: string): Promise<string> {
  return (await knowledgeCollections(db).stamps.findOne({ _id: tenantId }))?.token ?? 'none';
}

/** Called after every change to the workspace's documents, once its writes are done. */
export async function touchKnowledgeStamp(db: Db, tenantId: string, at: Date): Promise<void> {
  const { stamps } = knowledgeCollections(db);
  const set = { token: randomUUID(), at };
  const updated = await stamps.updateOne({ _id: tenantId }, { $set: set });
  if (updated.matchedCount > 0) return;
  // The workspace's first upload; one that loses to a parallel first upload updates instead.
  if (!(await insertIfAbsent(stamps, { _id: tenantId, ...set }))) await stamps.updateOne({ _id: tenantId }, { $set: set });
}
