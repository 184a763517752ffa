import { api, unwrap } from './client';
import type { paths } from '../generated/console';

/**
 * Uploaded lists (docs/console.md "Uploaded lists"): a CSV of people, the console-only
 * audience of a campaign. Typed from the console's OpenAPI document.
 */

type ListsPath = paths['/console/v1/workspaces/{workspace_id}/lists'];
type ListPath = paths['/console/v1/workspaces/{workspace_id}/lists/{list_id}'];

/** A list as the lists page and the campaign form show it: columns, the variables they give, the row count. */
export type UploadedList = ListsPath['get']['responses'][200]['content']['application/json']['items'][number];
/** One list with its first rows. */
export type UploadedListDetail = ListPath['get']['responses'][200]['content']['application/json'];

export async function loadLists(ws: string): Promise<UploadedList[]> {
  return (await unwrap(api.GET('/console/v1/workspaces/{workspace_id}/lists', { params: { path: { workspace_id: ws }, query: { limit: 100 } } }))).items;
}

export async function loadList(ws: string, listId: string): Promise<UploadedListDetail> {
  return unwrap(api.GET('/console/v1/workspaces/{workspace_id}/lists/{list_id}', { params: { path: { workspace_id: ws, list_id: listId } } }));
}

/**
 * Sends the file's bytes as they are (text/csv): the server reads them as UTF-8 and refuses
 * anything else, so the browser must not decode or re-encode them first.
 */
export async function uploadList(ws: string, file: File, options: { name: string; phoneColumn: string }): Promise<UploadedListDetail> {
  const query = { name: options.name, file_name: file.name, ...(options.phoneColumn.trim() ? { phone_column: options.phoneColumn.trim() } : {}) };
  return unwrap(
    api.POST('/console/v1/workspaces/{workspace_id}/lists', {
      params: { path: { workspace_id: ws }, query },
      // The schema says text; the body is the File, passed through untouched.
      body: file as unknown as string,
      bodySerializer: (body: unknown) => body as Blob,
      headers: { 'Content-Type': 'text/csv' },
    }),
  );
}
