import type { Db } from 'mongodb';
import type { AgentTool, AgentToolResult, AgentToolSource, TrailEntry } from '../agents';
import { KNOWLEDGE_LIMITS as L } from './limits';
import { KnowledgeIndexCache, type KnowledgeHit } from './searchIndex';

/**
 * The `search_knowledge` tool (docs/agents.md "Knowledge"): the model asks with its own words,
 * and gets the best passages of the workspace's documents, each named by its document, so the
 * answer can say where it comes from. Its trail row (kind `lookup`) names the documents used:
 * the console shows which document an answer rested on. Offered only to agents of a workspace
 * that has documents, so a model is never shown a tool that can only answer "nothing".
 */

export const SEARCH_KNOWLEDGE_TOOL_NAME = 'search_knowledge';

const DESCRIPTION =
  "Search the business's own documents (policies, FAQs, product and service information) for what the customer asks. " +
  'Answer from the passages returned and say which document the answer comes from; if nothing relevant is found, say you do not know rather than guessing.';

const quoted = (query: string) => `"${query.length > 80 ? `${query.slice(0, 77)}…` : query}"`;

function usedDocuments(hits: readonly KnowledgeHit[]): { document_id: string; name: string }[] {
  const seen = new Map<string, string>();
  for (const hit of hits) if (!seen.has(hit.documentId)) seen.set(hit.documentId, hit.documentName);
  return [...seen].map(([document_id, name]) => ({ document_id, name }));
}

function lookupTrail(query: string, hits: readonly KnowledgeHit[]): TrailEntry {
  const documents = usedDocuments(hits);
  const text =
    documents.length === 0
      ? `Searched the knowledge documents for ${quoted(query)}: nothing matched`
      : `Searched the knowledge documents for ${quoted(query)}: used ${documents.map((d) => `"${d.name}" (${d.document_id})`).join(', ')}`;
  return {
    kind: 'lookup',
    text,
    detail: { tool: SEARCH_KNOWLEDGE_TOOL_NAME, query, documents, passages: hits.map((h) => ({ document_id: h.documentId, passage_id: h.id, score: h.score })) },
  };
}

function queryOf(args: unknown): string | null {
  const query = (args as { query?: unknown } | null)?.query;
  return typeof query === 'string' && query.trim() ? query.trim().slice(0, L.queryMaxChars) : null;
}

export interface KnowledgeToolDeps {
  db: Db;
  /** One per process, shared by every agent it runs; made here when not given. */
  cache?: KnowledgeIndexCache;
}

/** The knowledge tool source for the toolbox (src/agents/toolbox.ts): add `knowledgeToolSource({ db })` to the roots' sources. */
export function knowledgeToolSource(deps: KnowledgeToolDeps): AgentToolSource {
  const cache = deps.cache ?? new KnowledgeIndexCache(deps.db);
  const tool: AgentTool = {
    name: SEARCH_KNOWLEDGE_TOOL_NAME,
    description: DESCRIPTION,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to look for, in a few words (for example "refund period for damaged items").' } },
      required: ['query'],
      additionalProperties: false,
    },
    async run(context, args): Promise<AgentToolResult> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const query = queryOf(args);
      if (query === null) {
        return {
          ok: false,
          output: { error: 'search_knowledge needs a query: the words to look for.' },
          trail: { kind: 'lookup', text: 'Searched the knowledge documents without a query', detail: { tool: SEARCH_KNOWLEDGE_TOOL_NAME } },
          latencyMs: elapsed(),
        };
      }
      try {
        const hits = (await cache.indexFor(context.tenantId)).search(query);
        return {
          ok: true,
          output:
            hits.length === 0
              ? { passages: [], note: 'No document of this business mentions that.' }
              : {
                  passages: hits.map((hit) => ({
                    document_id: hit.documentId,
                    document_name: hit.documentName,
                    section: hit.title,
                    ...(hit.page !== undefined ? { page: hit.page } : {}),
                    text: hit.text,
                  })),
                },
          trail: lookupTrail(query, hits),
          latencyMs: elapsed(),
        };
      } catch (err) {
        return {
          ok: false,
          output: { error: 'The knowledge documents cannot be searched right now.' },
          trail: { kind: 'lookup', text: `Knowledge search for ${quoted(query)} failed: ${err instanceof Error ? err.message : String(err)}`, detail: { tool: SEARCH_KNOWLEDGE_TOOL_NAME, query } },
          latencyMs: elapsed(),
        };
      }
    },
  };
  return async ({ tenantId }) => ((await cache.indexFor(tenantId)).documentCount > 0 ? [tool] : []);
}
