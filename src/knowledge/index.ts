/**
 * The knowledge slice: a workspace's documents, split into passages and searched by its
 * agents (docs/agents.md "Knowledge"). What others use: the agent tool source, the console's
 * actions and reads, the limits.
 */
export { deleteKnowledgeDocument, seedKnowledgeDocument, uploadKnowledgeDocument, type UploadInput } from './knowledgeActions';
export { KNOWLEDGE_LIMITS } from './limits';
export { FORMAT_MEDIA_TYPES, formatOfMediaType, KNOWLEDGE_FORMATS, type KnowledgeFormat } from './readDocument';
export { KnowledgeRefusal, type KnowledgeRefusalReason } from './refusal';
export { KnowledgeIndexCache } from './searchIndex';
export { knowledgeToolSource, SEARCH_KNOWLEDGE_TOOL_NAME, type KnowledgeToolDeps } from './searchKnowledgeTool';
export { findKnowledgeDocument, KNOWLEDGE_DOCUMENT_ID_PATTERN, listKnowledgeDocuments, type KnowledgeDocumentDoc } from './store';
