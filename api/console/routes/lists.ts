import type { z } from 'zod';
import { cursorSecret } from '../../../src/auth/secrets';
import { LIST_LIMITS } from '../../../src/lists/limits';
import { findList, listLists, readListRows, type UploadedListDoc } from '../../../src/lists/listStore';
import { uploadList } from '../../../src/lists/uploadList';
import { ApiError, found } from '../../errors';
import { formatTimestamp } from '../../format';
import { CursorCodec, page } from '../../pagination';
import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { listListsQuery, listParam, uploadedListDetail, uploadedListPage, uploadedListRecord, uploadListBody, uploadListQuery } from './lists.schema';

const ws = workspaceGroup();

/**
 * Uploaded lists (docs/console.md "Uploaded lists"): an operator's CSV of people, the
 * console-only audience of a campaign (campaigns-tickets-dues §4). Upload, list, read one.
 */

export const LIST_NOT_FOUND = 'Uploaded list not found.';
const list = ws.record('list_id', LIST_NOT_FOUND, listParam);
const CURSOR_LIST = 'console_uploaded_lists';

export function listView(list: UploadedListDoc): z.infer<typeof uploadedListRecord> {
  return {
    list_id: list._id,
    name: list.name,
    file_name: list.file_name,
    columns: list.columns.map((name, i) => ({ name, header: list.headers[i] ?? name })),
    phone_column: list.phone_column,
    variables: list.columns.map((c) => `{{${c}}}`),
    rows: list.row_count,
    bytes: list.bytes,
    created_at: formatTimestamp(list.created_at),
  };
}

export function uploadedListRoutes(deps: ConsoleDeps): RouteDef[] {
  const cursors = new CursorCodec(cursorSecret(deps.config));

  async function detail(list: UploadedListDoc): Promise<z.infer<typeof uploadedListDetail>> {
    // The first chunk holds the first rows (a chunk holds up to LIST_LIMITS.rowsPerChunk).
    const rows = (await readListRows(deps.db, list, 1)).slice(0, LIST_LIMITS.previewRows);
    return {
      ...listView(list),
      preview: rows.map((r) => ({ row: r.line, values: Object.fromEntries(list.columns.map((c, i) => [c, r.cells[i] ?? ''])) })),
    };
  }

  return [
    ws.post('uploadList', 'lists', {
      summary: `Upload a list of people: the body is the CSV file (text/csv, UTF-8, a header row, up to ${LIST_LIMITS.maxRows} rows and ${LIST_LIMITS.maxBytes} bytes); \`name\` in the query. Its columns become \`{{variables}}\`. A file that breaks a rule is refused whole (400 with \`reason\` and the \`row\`).`,
      query: uploadListQuery,
      body: uploadListBody,
      bodyMedia: { type: 'text/csv', maxBytes: LIST_LIMITS.maxBytes },
      response: { status: 201, description: 'The list with its first rows.', schema: uploadedListDetail },
      handler: async (ctx, { query, body, tenantId }) => {
        const uploaded = await uploadList(deps.db, {
          tenantId,
          name: query.name,
          fileName: query.file_name ?? null,
          phoneColumn: query.phone_column ?? null,
          text: body,
          bytes: ctx.state.rawBody?.length ?? Buffer.byteLength(body),
          now: deps.now(),
        });
        if (!uploaded.ok) {
          const { reason, message, row, column } = uploaded.refusal;
          throw new ApiError('invalid_argument', message, { reason, ...(row !== undefined ? { row } : {}), ...(column !== undefined ? { column } : {}) });
        }
        return detail(uploaded.list);
      },
    }),
    ws.get('listUploadedLists', 'lists', {
      summary: 'The workspace’s uploaded lists, newest first.',
      query: listListsQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: uploadedListPage },
      handler: async (ctx, { query: { limit, cursor }, tenantId }) => {
        const afterId = cursor ? String((cursors.decode(cursor, tenantId, CURSOR_LIST) as [unknown])[0]) : null;
        const docs = await listLists(deps.db, tenantId, { afterId, limit });
        return page(docs, limit, listView, (last) => cursors.encode(tenantId, CURSOR_LIST, [last._id]));
      },
    }),
    list.get('getUploadedList', 'lists/{list_id}', {
      summary: `One uploaded list: its columns, the variables they give, the row count and the first ${LIST_LIMITS.previewRows} rows.`,
      response: { status: 200, description: 'The list.', schema: uploadedListDetail },
      handler: async (ctx, { params, tenantId }) => detail(found(await findList(deps.db, tenantId, params.list_id), LIST_NOT_FOUND)),
    }),
  ];
}
