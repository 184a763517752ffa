import { z } from 'zod';
import { LIST_LIMITS as L } from '../../../src/lists/limits';
import { LIST_ID_PATTERN } from '../../../src/lists/listStore';
import { pageQuery, pageOf } from '../../pagination';

/** Request and response shapes of the console's uploaded lists (docs/console.md "Uploaded lists"). */

/** The path parameter of one uploaded list, below its workspace's. */
export const listParam = z.string().regex(LIST_ID_PATTERN);

/** The upload's settings go in the query: the body is the file itself (text/csv). */
export const uploadListQuery = z.object({
  name: z.string().trim().min(1).max(L.nameMaxChars),
  /** The column that holds the numbers, as the header names it (normalised like every column); omitted: `phone`. */
  phone_column: z.string().min(1).max(L.columnNameMaxChars * 2).optional(),
  /** The file's own name, shown beside the list. */
  file_name: z.string().max(L.fileNameMaxChars).optional(),
});

/** The CSV file, already decoded as UTF-8 (api/middleware/textBody.ts). */
export const uploadListBody = z.string();

export const listListsQuery = pageQuery(L.listMaxLimit, L.listDefaultLimit);

export const uploadedListRecord = z.object({
  list_id: z.string(),
  name: z.string(),
  file_name: z.string().nullable(),
  /** Each column's normalised name (what `{{variables}}` use) and its header as written, in the file's order. */
  columns: z.array(z.object({ name: z.string(), header: z.string() })),
  phone_column: z.string(),
  /** The variables a campaign on this list may use: `{{column}}` for each column (`{{all}}` too in a call's purpose and script). */
  variables: z.array(z.string()),
  rows: z.number().int(),
  bytes: z.number().int(),
  created_at: z.string().nullable(),
});

export const uploadedListDetail = uploadedListRecord.extend({
  /** The first rows as stored, by column name; whether each can be reached is for a campaign's evaluate. */
  preview: z.array(z.object({ row: z.number().int(), values: z.record(z.string(), z.string()) })),
});

export const uploadedListPage = pageOf(uploadedListRecord);
