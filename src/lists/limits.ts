import { CAMPAIGN_LIMITS } from '../campaigns';

/**
 * Every limit of an uploaded list (docs/campaigns.md "Uploaded lists"; the contract states
 * none: docs/decisions/campaigns.md "Uploaded lists"), in one place: the upload route's body reader,
 * the parser and the store read them here.
 */
export const LIST_LIMITS = {
  /** The file as sent: 50,000 rows of about 200 bytes each. */
  maxBytes: 10 * 1024 * 1024,
  /** Data rows (the header not counted): one campaign's recipient ceiling, as a list feeds one campaign. */
  maxRows: CAMPAIGN_LIMITS.recipientCeiling,
  maxColumns: 50,
  /** A column's name after normalising (`First name` → `first_name`). */
  columnNameMaxChars: 40,
  /** One cell, in characters: more than a template variable or a call's detail needs. */
  cellMaxChars: 1_000,
  nameMaxChars: 140,
  fileNameMaxChars: 200,
  /** Rows held by one stored chunk document, and the bytes that end a chunk sooner. */
  rowsPerChunk: 1_000,
  chunkMaxBytes: 1_000_000,
  /** Rows the list's page shows. */
  previewRows: 20,
  listDefaultLimit: 50,
  listMaxLimit: 100,
} as const;
