import { z } from 'zod';
import { KNOWLEDGE_DOCUMENT_ID_PATTERN, KNOWLEDGE_FORMATS, KNOWLEDGE_LIMITS as L } from '../../../src/knowledge';
import { itemsOf } from '../views';

/** Request and response shapes of the console's knowledge documents (docs/agents.md "Knowledge"). */

export const documentParam = z.string().regex(KNOWLEDGE_DOCUMENT_ID_PATTERN);

/** The upload's settings go in the query: the body is the file itself, its format named by its media type. */
export const uploadDocumentQuery = z.object({
  name: z.string().trim().min(1).max(L.nameMaxChars),
  /** The file's own name, shown beside the document. */
  file_name: z.string().max(L.fileNameMaxChars).optional(),
});

/** The file's bytes (api/middleware/textBody.ts, `binary`). */
export const uploadDocumentBody = z.custom<Buffer>((value) => Buffer.isBuffer(value), 'expected the file as the body');

export const knowledgeDocumentRecord = z.object({
  document_id: z.string(),
  name: z.string(),
  file_name: z.string().nullable(),
  format: z.enum(KNOWLEDGE_FORMATS),
  bytes: z.number().int(),
  passages: z.number().int(),
  created_at: z.string().nullable(),
});

export const knowledgeDocumentList = itemsOf(knowledgeDocumentRecord).extend({
  /** The workspace's limit, so a page can say how many more fit. */
  limit: z.number().int(),
});

export const searchKnowledgeBody = z.object({ query: z.string().trim().min(1).max(L.queryMaxChars) });

/** What the agents' `search_knowledge` tool answers and records, for an operator trying a question. */
export const knowledgeSearchAnswer = z.object({
  ok: z.boolean(),
  output: z.unknown(),
  trail: z.object({ kind: z.string(), text: z.string(), detail: z.record(z.string(), z.unknown()).optional() }),
});
