import type { Db } from 'mongodb';
import MiniSearch from 'minisearch';
import { KNOWLEDGE_LIMITS as L } from './limits';
import type { Passage } from './passages';
import { listKnowledgeDocuments, readKnowledgeStamp, readPassages, type KnowledgeDocumentDoc } from './store';

/**
 * A workspace's search index: MiniSearch (BM25 ranking, in-process) over its passages, built
 * from the stored passages and kept per process beside the stamp token it was built under
 * (docs/decisions/agents.md "Knowledge search"). Each search reads the stamp by `_id` (one
 * point read); the same token means no document was uploaded or deleted since, anywhere, so
 * the index is used as it is; another token rebuilds it. Nothing to keep in step: the
 * stored passages are the truth and the index is always rebuildable from them.
 */

export interface IndexedPassage {
  /** `<document_id>#<n>`. */
  id: string;
  documentId: string;
  documentName: string;
  title: string | null;
  text: string;
  page?: number;
}

export interface KnowledgeHit extends IndexedPassage {
  score: number;
}

export interface KnowledgeIndex {
  token: string;
  documentCount: number;
  search(query: string, limit?: number): KnowledgeHit[];
}

/** Builds the index of these documents' passages; pure, so ranking is unit-tested without a database. */
export function buildKnowledgeIndex(token: string, docs: readonly Pick<KnowledgeDocumentDoc, '_id' | 'name'>[], passagesByDocument: ReadonlyMap<string, readonly Passage[]>): KnowledgeIndex {
  const engine = new MiniSearch<IndexedPassage>({
    fields: ['title', 'text', 'documentName'],
    extractField: (doc, field) => {
      const value = doc[field as keyof IndexedPassage];
      return typeof value === 'string' ? value : '';
    },
    searchOptions: {
      // A question's words in an FAQ's question or a heading say more than the same words in running text.
      boost: { title: 2, documentName: 1.5 },
      // "refunds" finds "refund"; a typo of one letter in a longer word still finds it.
      prefix: (term) => term.length > 3,
      fuzzy: (term) => (term.length > 4 ? 0.2 : false),
      combineWith: 'OR',
    },
  });
  const byId = new Map<string, IndexedPassage>();
  for (const doc of docs) {
    for (const passage of passagesByDocument.get(doc._id) ?? []) {
      const indexed: IndexedPassage = {
        id: `${doc._id}#${passage.n}`,
        documentId: doc._id,
        documentName: doc.name,
        title: passage.title,
        text: passage.text,
        ...(passage.page !== undefined ? { page: passage.page } : {}),
      };
      byId.set(indexed.id, indexed);
    }
  }
  engine.addAll([...byId.values()]);
  return {
    token,
    documentCount: docs.length,
    search(query, limit = L.searchResults) {
      const trimmed = query.trim().slice(0, L.queryMaxChars);
      if (!trimmed) return [];
      return engine
        .search(trimmed)
        .slice(0, limit)
        .map((hit) => ({ ...byId.get(String(hit.id))!, score: Math.round(hit.score * 1000) / 1000 }));
    },
  };
}

/** Reads the workspace's documents and passages as stored now and indexes them. */
async function loadIndex(db: Db, tenantId: string, token: string): Promise<KnowledgeIndex> {
  const docs = await listKnowledgeDocuments(db, tenantId);
  return buildKnowledgeIndex(token, docs, await readPassages(db, docs));
}

/**
 * The indexes one process keeps (the worker for chat turns, the media process for calls), at
 * most `cachedWorkspaces` of them, the least recently searched dropped first. Parallel
 * searches of a workspace whose index is being built wait for that one build.
 */
export class KnowledgeIndexCache {
  private readonly entries = new Map<string, { token: string; index: Promise<KnowledgeIndex> }>();

  constructor(
    private readonly db: Db,
    private readonly maxWorkspaces: number = L.cachedWorkspaces,
  ) {}

  async indexFor(tenantId: string): Promise<KnowledgeIndex> {
    // Read before the documents, so a change that lands during a build leaves a newer token: the next search rebuilds.
    const token = await readKnowledgeStamp(this.db, tenantId);
    const cached = this.entries.get(tenantId);
    if (cached?.token === token) {
      this.entries.delete(tenantId);
      this.entries.set(tenantId, cached);
      return cached.index;
    }
    const entry = { token, index: loadIndex(this.db, tenantId, token) };
    this.entries.delete(tenantId);
    this.entries.set(tenantId, entry);
    while (this.entries.size > this.maxWorkspaces) this.entries.delete(this.entries.keys().next().value!);
    // A failed build is not kept: the next search tries again.
    entry.index.catch(() => {
      if (this.entries.get(tenantId) === entry) this.entries.delete(tenantId);
    });
    return entry.index;
  }
}
