import { z } from 'zod';
import {
  deleteKnowledgeDocument,
  findKnowledgeDocument,
  FORMAT_MEDIA_TYPES,
  formatOfMediaType,
  KNOWLEDGE_FORMATS,
  KNOWLEDGE_LIMITS,
  KnowledgeIndexCache,
  KnowledgeRefusal,
  knowledgeToolSource,
  listKnowledgeDocuments,
  uploadKnowledgeDocument,
  type KnowledgeDocumentDoc,
} from '../../../src/knowledge';
import { ApiError, found } from '../../errors';
import { formatTimestamp } from '../../format';
import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { documentParam, knowledgeDocumentList, knowledgeDocumentRecord, knowledgeSearchAnswer, searchKnowledgeBody, uploadDocumentBody, uploadDocumentQuery } from './knowledge.schema';

const ws = workspaceGroup();

/**
 * Knowledge documents (docs/agents.md "Knowledge"): what a workspace's agents search to answer.
 * Upload (the file as the body: text, Markdown, PDF, or a CSV of FAQs), list, read, delete, and
 * try a search exactly as an agent's `search_knowledge` tool runs it.
 */

export const DOCUMENT_NOT_FOUND = 'Knowledge document not found.';
const document = ws.record('document_id', DOCUMENT_NOT_FOUND, documentParam);
const MEDIA_TYPES = KNOWLEDGE_FORMATS.map((format) => FORMAT_MEDIA_TYPES[format]);

export function knowledgeDocumentView(doc: KnowledgeDocumentDoc): z.infer<typeof knowledgeDocumentRecord> {
  return {
    document_id: doc._id,
    name: doc.name,
    file_name: doc.file_name,
    format: doc.format,
    bytes: doc.bytes,
    passages: doc.passage_count,
    created_at: formatTimestamp(doc.created_at),
  };
}

export function knowledgeRoutes(deps: ConsoleDeps): RouteDef[] {
  // The API process's own index cache, for the console's try-a-search; the agents' processes keep theirs.
  const tool = knowledgeToolSource({ db: deps.db, cache: new KnowledgeIndexCache(deps.db) });
  return [
    ws.post('uploadKnowledgeDocument', 'knowledge/documents', {
      summary: `Upload a knowledge document: the body is the file, its format named by its media type (${MEDIA_TYPES.join(', ')}: a CSV is FAQs with the columns question and answer); \`name\` in the query. Up to ${KNOWLEDGE_LIMITS.maxDocumentBytes} bytes and ${KNOWLEDGE_LIMITS.maxPassagesPerDocument} passages; a workspace keeps up to ${KNOWLEDGE_LIMITS.maxDocumentsPerWorkspace}.`,
      query: uploadDocumentQuery,
      body: uploadDocumentBody,
      bodyMedia: { type: MEDIA_TYPES, maxBytes: KNOWLEDGE_LIMITS.maxDocumentBytes, binary: true },
      response: { status: 201, description: 'The document as stored.', schema: knowledgeDocumentRecord },
      errors: ['conflict'],
      handler: async (ctx, { query, body, tenantId }) => {
        const format = formatOfMediaType(ctx.get('content-type'));
        // The body reader admits only these types; a refusal rather than a crash if that ever changes.
        if (!format) throw new KnowledgeRefusal('unsupported_format', `Send the file as one of ${MEDIA_TYPES.join(', ')}.`);
        const doc = await uploadKnowledgeDocument(deps.db, { tenantId, name: query.name, fileName: query.file_name ?? null, format, bytes: body, now: deps.now() });
        return knowledgeDocumentView(doc);
      },
    }),
    ws.get('listKnowledgeDocuments', 'knowledge/documents', {
      summary: `The workspace's knowledge documents, newest first (at most ${KNOWLEDGE_LIMITS.maxDocumentsPerWorkspace}).`,
      response: { status: 200, description: '`{items, limit}`.', schema: knowledgeDocumentList },
      handler: async (ctx, { tenantId }) => ({
        items: (await listKnowledgeDocuments(deps.db, tenantId)).map(knowledgeDocumentView),
        limit: KNOWLEDGE_LIMITS.maxDocumentsPerWorkspace,
      }),
    }),
    document.get('getKnowledgeDocument', 'knowledge/documents/{document_id}', {
      summary: 'One knowledge document.',
      response: { status: 200, description: 'The document.', schema: knowledgeDocumentRecord },
      handler: async (ctx, { params, tenantId }) => knowledgeDocumentView(found(await findKnowledgeDocument(deps.db, tenantId, params.document_id), DOCUMENT_NOT_FOUND)),
    }),
    document.delete('deleteKnowledgeDocument', 'knowledge/documents/{document_id}', {
      summary: 'Delete a knowledge document and its passages; agents stop finding it at their next search.',
      response: { status: 200, description: '`{document_id, deleted: true}`.', schema: z.object({ document_id: z.string(), deleted: z.literal(true) }) },
      handler: async (ctx, { params, tenantId }) => {
        if (!(await deleteKnowledgeDocument(deps.db, tenantId, params.document_id, deps.now()))) throw new ApiError('not_found', DOCUMENT_NOT_FOUND);
        return { document_id: params.document_id, deleted: true };
      },
    }),
    ws.post('searchKnowledge', 'knowledge/search', {
      summary: "Search the workspace's documents as an agent's `search_knowledge` tool does: the passages it would be given and the trail row it would leave.",
      body: searchKnowledgeBody,
      response: { status: 200, description: 'The tool\u2019s answer.', schema: knowledgeSearchAnswer },
      handler: async (ctx, { body, tenantId }) => {
        const tools = await tool({ tenantId, agentId: 'console', channel: 'whatsapp' });
        if (tools.length === 0) return { ok: true, output: { passages: [], note: 'The workspace has no knowledge documents.' }, trail: { kind: 'lookup', text: 'No knowledge documents to search' } };
        const { ok, output, trail } = await tools[0]!.run({ tenantId, agentId: 'console', channel: 'whatsapp', runKey: 'console-search', now: deps.now() }, { query: body.query });
        return { ok, output, trail };
      },
    }),
  ];
}
