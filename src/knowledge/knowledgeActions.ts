import type { Db } from 'mongodb';
import { takeNumberedPlace } from '../db/numberedPlaces';
import { newId } from '../domain/ids';
import { KNOWLEDGE_LIMITS as L } from './limits';
import { splitIntoPassages } from './passages';
import { readDocument, type KnowledgeFormat } from './readDocument';
import { KnowledgeRefusal } from './refusal';
import { deleteChunks, findKnowledgeDocument, knowledgeCollections, PASSAGES_PER_CHUNK, readKnowledgeStamp, storeDocument, touchKnowledgeStamp, type KnowledgeDocumentDoc } from './store';

/**
 * The console's knowledge actions (docs/agents.md "Knowledge"): upload a document, delete one.
 * An upload is read, split and checked whole before anything is written, then takes one of
 * the workspace's `maxDocumentsPerWorkspace` places (a unique insert, so parallel uploads
 * cannot pass the limit), writes its passages and record, and moves the workspace's stamp so
 * every process's search index notices.
 */

const PLACE_KIND = 'kdoc';
/** A place older than this whose document does not exist was taken by an upload that died before writing it. */
const ABANDONED_PLACE_MS = 60_000;

function takePlace(db: Db, tenantId: string, documentId: string): Promise<boolean> {
  return takeNumberedPlace(knowledgeCollections(db).places, tenantId, PLACE_KIND, L.maxDocumentsPerWorkspace, (_id) => ({
    _id,
    tenant_id: tenantId,
    document_id: documentId,
    // The wall clock, which the abandonment check compares against (an upload's `now` is the caller's).
    taken_at: new Date(),
  }));
}

/** Gives back places whose upload died between taking the place and writing the document. */
async function freeAbandonedPlaces(db: Db, tenantId: string): Promise<void> {
  const { places, documents } = knowledgeCollections(db);
  const held = await places.find({ tenant_id: tenantId }).toArray();
  const stored = new Set((await documents.find({ tenant_id: tenantId }).project<{ _id: string }>({ _id: 1 }).toArray()).map((d) => d._id));
  const abandoned = held.filter((p) => !stored.has(p.document_id) && Date.now() - p.taken_at.getTime() > ABANDONED_PLACE_MS);
  if (abandoned.length > 0) await places.deleteMany({ _id: { $in: abandoned.map((p) => p._id) } });
}

export interface UploadInput {
  tenantId: string;
  name: string;
  fileName: string | null;
  format: KnowledgeFormat;
  bytes: Uint8Array;
  now: Date;
}

/** Stores the document, or throws a KnowledgeRefusal saying why not. */
export async function uploadKnowledgeDocument(db: Db, input: UploadInput): Promise<KnowledgeDocumentDoc> {
  return upload(db, input, newId('kdoc', input.now));
}

/**
 * A document a seed gives a workspace (the demo's FAQ), under an id the seed derives: stored
 * once, while the workspace's documents were never changed (no stamp yet). A workspace whose
 * documents were ever uploaded or deleted keeps what it has, so an operator who deleted the
 * seeded document does not get it back at the next start. Answers the document, or null when
 * it was not stored.
 */
export async function seedKnowledgeDocument(db: Db, input: UploadInput & { documentId: string }): Promise<KnowledgeDocumentDoc | null> {
  const existing = await findKnowledgeDocument(db, input.tenantId, input.documentId);
  if (existing) return existing;
  if ((await readKnowledgeStamp(db, input.tenantId)) !== 'none') return null;
  // What an earlier seed that died half-way left under this id (its document record is written last).
  await deleteChunks(db, input.documentId, Math.ceil(L.maxPassagesPerDocument / PASSAGES_PER_CHUNK));
  await knowledgeCollections(db).places.deleteMany({ tenant_id: input.tenantId, document_id: input.documentId });
  return upload(db, input, input.documentId);
}

async function upload(db: Db, input: UploadInput, id: string): Promise<KnowledgeDocumentDoc> {
  if (input.bytes.length > L.maxDocumentBytes) {
    throw new KnowledgeRefusal('document_too_large', `A document may have at most ${L.maxDocumentBytes} bytes.`, { limit: L.maxDocumentBytes });
  }
  const passages = splitIntoPassages(await readDocument(input.format, input.bytes));
  let placed = await takePlace(db, input.tenantId, id);
  if (!placed) {
    await freeAbandonedPlaces(db, input.tenantId);
    placed = await takePlace(db, input.tenantId, id);
  }
  if (!placed) {
    throw new KnowledgeRefusal('document_limit_reached', `A workspace can keep at most ${L.maxDocumentsPerWorkspace} knowledge documents; delete one first.`, {
      limit: L.maxDocumentsPerWorkspace,
    });
  }
  const { places } = knowledgeCollections(db);
  const place = await places.findOne({ tenant_id: input.tenantId, document_id: id });
  try {
    const stored = await storeDocument(
      db,
      {
        _id: id,
        tenant_id: input.tenantId,
        name: input.name,
        file_name: input.fileName,
        format: input.format,
        bytes: input.bytes.length,
        passage_count: passages.length,
        place_id: place?._id ?? '',
        created_at: input.now,
      },
      passages,
    );
    await touchKnowledgeStamp(db, input.tenantId, input.now);
    return stored;
  } catch (err) {
    await deleteChunks(db, id, Math.ceil(passages.length / PASSAGES_PER_CHUNK));
    await places.deleteMany({ tenant_id: input.tenantId, document_id: id });
    throw err;
  }
}

/** Deletes the document, its passages and its place; false when it is not the workspace's. */
export async function deleteKnowledgeDocument(db: Db, tenantId: string, documentId: string, now: Date): Promise<boolean> {
  const doc = await findKnowledgeDocument(db, tenantId, documentId);
  if (!doc) return false;
  const { documents, places } = knowledgeCollections(db);
  // The record first: from then on no index build reads the document, whatever is left of it.
  const deleted = await documents.deleteOne({ _id: doc._id });
  if (deleted.deletedCount === 0) return false;
  await touchKnowledgeStamp(db, tenantId, now);
  await deleteChunks(db, doc._id, doc.chunk_count);
  if (doc.place_id) await places.deleteOne({ _id: doc.place_id });
  else await places.deleteMany({ tenant_id: tenantId, document_id: doc._id });
  return true;
}
