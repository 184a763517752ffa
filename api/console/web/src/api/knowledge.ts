import { api, unwrap } from './client';
import type { paths } from '../generated/console';

/**
 * Knowledge documents and business tools (docs/agents.md "Knowledge", "Business tools"),
 * typed from the console's OpenAPI document.
 */

type DocumentsPath = paths['/console/v1/workspaces/{workspace_id}/knowledge/documents'];
type ToolsPath = paths['/console/v1/workspaces/{workspace_id}/tools'];
type SearchPath = paths['/console/v1/workspaces/{workspace_id}/knowledge/search'];

export type KnowledgeDocument = DocumentsPath['get']['responses'][200]['content']['application/json']['items'][number];
export type KnowledgeDocuments = DocumentsPath['get']['responses'][200]['content']['application/json'];
export type BusinessTool = ToolsPath['get']['responses'][200]['content']['application/json']['items'][number];
export type BusinessTools = ToolsPath['get']['responses'][200]['content']['application/json'];
export type IssuedTool = ToolsPath['post']['responses'][201]['content']['application/json'];
export type KnowledgeSearch = SearchPath['post']['responses'][200]['content']['application/json'];

/** The media type each file is sent as, by its extension: the server reads the format from it. */
const MEDIA_TYPES: Record<string, string> = { txt: 'text/plain', text: 'text/plain', md: 'text/markdown', markdown: 'text/markdown', pdf: 'application/pdf', csv: 'text/csv' };

export function mediaTypeOf(fileName: string): string | null {
  return MEDIA_TYPES[fileName.split('.').pop()?.toLowerCase() ?? ''] ?? null;
}

export async function loadDocuments(ws: string): Promise<KnowledgeDocuments> {
  return unwrap(api.GET('/console/v1/workspaces/{workspace_id}/knowledge/documents', { params: { path: { workspace_id: ws } } }));
}

/** Sends the file's bytes as they are, named by its media type; a PDF is never decoded as text. */
export async function uploadDocument(ws: string, file: File, name: string, mediaType: string): Promise<KnowledgeDocument> {
  return unwrap(
    api.POST('/console/v1/workspaces/{workspace_id}/knowledge/documents', {
      params: { path: { workspace_id: ws }, query: { name, file_name: file.name } },
      // The schema says bytes; the body is the File, passed through untouched.
      body: file as never,
      bodySerializer: (body: unknown) => body as Blob,
      headers: { 'Content-Type': mediaType },
    }),
  );
}

export async function deleteDocument(ws: string, documentId: string): Promise<void> {
  await unwrap(api.DELETE('/console/v1/workspaces/{workspace_id}/knowledge/documents/{document_id}', { params: { path: { workspace_id: ws, document_id: documentId } } }));
}

export async function searchKnowledge(ws: string, query: string): Promise<KnowledgeSearch> {
  return unwrap(api.POST('/console/v1/workspaces/{workspace_id}/knowledge/search', { params: { path: { workspace_id: ws } }, body: { query } }));
}

export async function loadTools(ws: string): Promise<BusinessTools> {
  return unwrap(api.GET('/console/v1/workspaces/{workspace_id}/tools', { params: { path: { workspace_id: ws } } }));
}

export async function createTool(ws: string, body: { name: string; description: string; url: string; parameters: Record<string, unknown>; timeout_ms: number }): Promise<IssuedTool> {
  return unwrap(api.POST('/console/v1/workspaces/{workspace_id}/tools', { params: { path: { workspace_id: ws } }, body }));
}

export async function deleteTool(ws: string, name: string): Promise<void> {
  await unwrap(api.DELETE('/console/v1/workspaces/{workspace_id}/tools/{tool_name}', { params: { path: { workspace_id: ws, tool_name: name } } }));
}
