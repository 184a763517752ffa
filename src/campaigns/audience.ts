import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { readDestination } from '../calls';
import { toE164, contactCollections, readSegmentEntries } from '../contacts';
import { findByIds } from '../db/findByIds';
import { audienceContactIds, type CampaignDoc, type ExclusionReason } from './campaign';
import { findList, readListRows, type UploadedListDoc } from '../lists';
import { CAMPAIGN_LIMITS } from './limits';
import { renderCallText, renderListCallText, renderListVariables, renderVariables, type ContactValues, type ListPerson } from './templateTokens';

/**
 * Who a campaign reaches (campaigns-tickets-dues §4 `audience`), resolved at evaluate and
 * launch. Reading is shaped by FerretDB on SQLite, where only `_id` equality and `_id: {$in}`
 * use an index (with the repository's patch; docs/decisions/campaigns.md "Campaigns"): a short
 * `contact_ids` list is read by `_id: {$in}`; a long one by one scan of the workspace's contacts
 * (each evaluate or launch pays it once); a segment by its first tag's entries (one `_id` range).
 */

export interface AudienceContact extends ContactValues {
  contact_id: string;
}

/** A person of an uploaded list (console-only audience): no contact, their row of the file instead. */
export interface AudienceListRow {
  /** The file's line where the row starts (the header is line 1). */
  row: number;
  name: string | null;
  phone: string | null;
  /** Column name → cell. */
  values: Record<string, string>;
  /** Shared by every row of the list. */
  list: { phoneColumn: string; labels: ListPerson['labels'] };
}

export type AudienceRow = AudienceContact | AudienceListRow;

const isListRow = (row: AudienceRow): row is AudienceListRow => 'row' in row;

export interface ResolvedAudience {
  /** Matched contacts in audience order (request order for ids, contact id for a segment), or a list's rows in file order. */
  rows: AudienceRow[];
  /** Ids that matched no contact of this workspace (unknown and foreign alike, never told apart). */
  unmatched: number;
}

const PROJECTION = { _id: 1, tenant_id: 1, name: 1, email: 1, phone: 1 } as const;

/**
 * Contacts per round trip of a scan. The driver's default answers 101 a round trip (about
 * 500 for 50,000 contacts); 2,000 cost 13 % less FerretDB CPU on the probe
 * (`bench/campaignAudienceProbe.ts`) but ten launches scanning together then answered 503:
 * a round trip of 2,000 outlived the API's 2 s socket budget (`API_DATABASE_TIMEOUT_MS`)
 * while the launched campaigns sent. 500 showed no 503 (docs/decisions/campaigns.md, "Campaigns").
 */
export const SCAN_BATCH = 500;

/** Each distinct id read once by `_id` (`_id: {$in}`); another workspace's contact is as absent as a missing one. */
export async function readContactsById(db: Db, tenantId: string, ids: readonly string[]): Promise<Map<string, AudienceContact>> {
  const docs = await findByIds(contactCollections(db).contacts, ids, { projection: PROJECTION, batchSize: SCAN_BATCH });
  const found = new Map<string, AudienceContact>();
  for (const doc of docs) {
    if (doc.tenant_id === tenantId) found.set(doc._id, { contact_id: doc._id, name: doc.name, email: doc.email, phone: doc.phone });
  }
  return found;
}

/**
 * Up to this many ids are read by `_id`; more by one scan. Measured on the pinned FerretDB
 * (docs/decisions/campaigns.md "Campaigns"): a point read cost about as much as scanning 500
 * contacts, so past a few hundred ids the scan was cheaper. Read by `_id: {$in}` since, 500
 * ids cost 0.07 FerretDB CPU-s (0.29 as point reads), and 50,000 ids in reads of 1,000 cost
 * 9.5 s where the scan of a 50,000-contact workspace cost 7.1 s: the scan stays for long lists.
 */
export const POINT_READ_MAX_IDS = 500;

/** The listed ids among the workspace's contacts, by one scan of them. */
export async function readWorkspaceContacts(db: Db, tenantId: string, ids: readonly string[]): Promise<Map<string, AudienceContact>> {
  const wanted = new Set(ids);
  const found = new Map<string, AudienceContact>();
  const cursor = contactCollections(db).contacts.find({ tenant_id: tenantId }, { projection: PROJECTION, batchSize: SCAN_BATCH });
  for await (const doc of cursor) {
    if (wanted.has(doc._id)) found.set(doc._id, { contact_id: doc._id, name: doc.name, email: doc.email, phone: doc.phone });
  }
  return found;
}

/**
 * The workspace's contacts holding every tag, ordered by contact id: one `_id` range read of
 * the first tag's entries (src/contacts/tagEntries.ts), or, until those are backfilled, one
 * scan of the workspace's contacts.
 */
export async function readSegment(db: Db, tenantId: string, tags: readonly string[]): Promise<AudienceContact[]> {
  if (tags.length === 0) return [];
  return (await readSegmentEntries(db, tenantId, tags)) ?? scanSegment(db, tenantId, tags);
}

/** One scan: the workspace's contacts holding every tag, ordered by contact id. */
export async function scanSegment(db: Db, tenantId: string, tags: readonly string[]): Promise<AudienceContact[]> {
  if (tags.length === 0) return [];
  const docs = await contactCollections(db)
    .contacts.find({ tenant_id: tenantId, tags: { $all: [...tags] } }, { projection: PROJECTION, batchSize: SCAN_BATCH })
    .toArray();
  return docs
    .map((doc) => ({ contact_id: doc._id, name: doc.name, email: doc.email, phone: doc.phone }))
    .sort((a, b) => (a.contact_id < b.contact_id ? -1 : a.contact_id > b.contact_id ? 1 : 0));
}

/** A list's rows as audience rows: the `name` column (when the list has one) is the person's name. */
export function listAudienceRows(list: Pick<UploadedListDoc, 'headers' | 'columns' | 'phone_column'>, rows: readonly { line: number; cells: string[] }[]): AudienceListRow[] {
  const shape = { phoneColumn: list.phone_column, labels: list.columns.map((c, i) => [list.headers[i] ?? c, c] as const) };
  const phoneAt = list.columns.indexOf(list.phone_column);
  const nameAt = list.columns.indexOf('name');
  return rows.map(({ line, cells }) => {
    const values: Record<string, string> = {};
    for (const [i, column] of list.columns.entries()) values[column] = cells[i] ?? '';
    return { row: line, name: nameAt === -1 ? null : cells[nameAt] || null, phone: cells[phoneAt] || null, values, list: shape };
  });
}

export async function resolveAudience(db: Db, campaign: Pick<CampaignDoc, '_id' | 'tenant_id' | 'audience'>): Promise<ResolvedAudience> {
  if (campaign.audience.kind === 'uploaded_list') {
    // A list never changes once stored; one that is not there (not this workspace's) reaches nobody.
    const list = campaign.audience.list_id ? await findList(db, campaign.tenant_id, campaign.audience.list_id) : null;
    return { rows: list ? listAudienceRows(list, await readListRows(db, list)) : [], unmatched: 0 };
  }
  if (campaign.audience.kind === 'segment') {
    return { rows: await readSegment(db, campaign.tenant_id, campaign.audience.tags), unmatched: 0 };
  }
  const ids = await audienceContactIds(db, campaign);
  const found = ids.length <= POINT_READ_MAX_IDS ? await readContactsById(db, campaign.tenant_id, ids) : await readWorkspaceContacts(db, campaign.tenant_id, ids);
  const rows: AudienceContact[] = [];
  let unmatched = 0;
  for (const id of ids) {
    const contact = found.get(id);
    if (contact) rows.push(contact);
    else unmatched += 1;
  }
  return { rows, unmatched };
}

/** One person the campaign would message, with their values in placeholder order. */
export interface Recipient {
  /** Null for a person of an uploaded list, who has `row` instead. */
  contact_id: string | null;
  /** Uploaded lists: the file's line where the person's row starts. */
  row?: number;
  /** E.164. */
  to: string;
  name: string | null;
  variables: string[];
  /** Call campaigns: the purpose and script with this person's details filled in. */
  call?: { purpose: string | null; script: string | null };
}

/** An excluded person: a contact by `contact_id`, an uploaded list's person by `row` (the file's line). */
export interface InvalidRow {
  reason: ExclusionReason;
  contact_id?: string;
  row?: number;
  /** For `missing_variable`: the token with no value, e.g. `contact.email`. */
  field?: string;
}

/** Stored contact numbers are E.164 already (contacts.ts validates them); parse only what is not. */
const E164 = /^\+[1-9]\d{7,14}$/;

function destinationOf(phone: string | null, country: string): string | null {
  if (!phone) return null;
  return E164.test(phone) ? phone : toE164(phone, country);
}

export interface Classified {
  recipients: Recipient[];
  totalRows: number;
  excluded: Partial<Record<ExclusionReason, number>>;
  /** The first 200 excluded rows, in audience order. */
  invalidRows: InvalidRow[];
}

export interface ClassifyOptions {
  /** Template variables (literals and tokens); empty for a call campaign. */
  variables: readonly string[];
  /** E.164 numbers that opted out (permanent). */
  suppressed: ReadonlySet<string>;
  /** The workspace's country, for a stored number that lacks its `+`. */
  country: string;
  /** Call campaigns: the purpose and script to fill per person (templateTokens.ts `renderCallText`). */
  callTexts?: { purpose: string | null; script: string | null };
  /** Call campaigns: calling codes enabled for outbound calls; a number elsewhere is `country_not_allowed`. */
  callingCodes?: readonly string[];
}

/** Whether calls may go to the number: its calling code is enabled (the POST /calls guard's reading). */
function callable(e164: string, country: string, codes: readonly string[]): boolean {
  const destination = readDestination(e164, country);
  return destination.kind === 'ok' && codes.includes(destination.callingCode);
}

/**
 * Removes, in this order, a contact listed twice, a contact with no usable number, a
 * second contact on a number already reached, an opted-out number, and a contact a token
 * has no value for; each row is counted under the first reason that applies.
 */
export function classifyAudience(rows: readonly AudienceRow[], options: ClassifyOptions): Classified {
  const recipients: Recipient[] = [];
  const excluded: Partial<Record<ExclusionReason, number>> = {};
  const invalidRows: InvalidRow[] = [];
  const seenContacts = new Set<string>();
  const seenNumbers = new Set<string>();
  const exclude = (row: InvalidRow) => {
    excluded[row.reason] = (excluded[row.reason] ?? 0) + 1;
    if (invalidRows.length < CAMPAIGN_LIMITS.invalidRows) invalidRows.push(row);
  };
  for (const row of rows) {
    // A contact is named by its id; a list's person by their row (a list has no contact listed twice, only numbers).
    const who: Pick<InvalidRow, 'contact_id' | 'row'> = isListRow(row) ? { row: row.row } : { contact_id: row.contact_id };
    if (!isListRow(row)) {
      if (seenContacts.has(row.contact_id)) {
        exclude({ reason: 'duplicate_recipient', ...who });
        continue;
      }
      seenContacts.add(row.contact_id);
    }
    const to = destinationOf(row.phone, options.country);
    if (!to) {
      exclude({ reason: 'invalid_destination', ...who });
      continue;
    }
    if (seenNumbers.has(to)) {
      exclude({ reason: 'duplicate_recipient', ...who });
      continue;
    }
    seenNumbers.add(to);
    if (options.suppressed.has(to)) {
      exclude({ reason: 'suppressed', ...who });
      continue;
    }
    if (options.callingCodes && !callable(to, options.country, options.callingCodes)) {
      exclude({ reason: 'country_not_allowed', ...who });
      continue;
    }
    const filled = isListRow(row) ? fillFromList(row, to, options) : fillFromContact(row, to, options);
    if (!filled.ok) {
      exclude({ reason: 'missing_variable', ...who, field: filled.field });
      continue;
    }
    recipients.push({
      contact_id: isListRow(row) ? null : row.contact_id,
      ...(isListRow(row) ? { row: row.row } : {}),
      to,
      name: row.name,
      variables: filled.variables,
      ...(filled.call ? { call: filled.call } : {}),
    });
  }
  return { recipients, totalRows: rows.length, excluded, invalidRows };
}

type Filled = { ok: true; variables: string[]; call?: Recipient['call'] } | { ok: false; field: string };

type Rendered = { ok: true; text: string } | { ok: false; field: string };

/** A person's template values and, for a call campaign, its purpose and script, each rendered by the person's own kind of renderer. */
function fill(variables: { ok: true; values: string[] } | { ok: false; field: string }, renderText: (text: string) => Rendered, options: ClassifyOptions): Filled {
  if (!variables.ok) return variables;
  if (!options.callTexts) return { ok: true, variables: variables.values };
  const purpose = options.callTexts.purpose === null ? null : renderText(options.callTexts.purpose);
  const script = options.callTexts.script === null ? null : renderText(options.callTexts.script);
  const gap = [purpose, script].find((r) => r !== null && !r.ok);
  if (gap && !gap.ok) return gap;
  return { ok: true, variables: variables.values, call: { purpose: purpose?.ok ? purpose.text : null, script: script?.ok ? script.text : null } };
}

/** A contact's values, with `to` as their phone. */
function fillFromContact(row: AudienceContact, to: string, options: ClassifyOptions): Filled {
  const contact = { ...row, phone: to };
  return fill(renderVariables(options.variables, contact), (text) => renderCallText(text, contact), options);
}

/** A list's row: its cells by column, the phone column's cell as `to`. */
function fillFromList(row: AudienceListRow, to: string, options: ClassifyOptions): Filled {
  const person: ListPerson = { values: { ...row.values, [row.list.phoneColumn]: to }, labels: row.list.labels };
  return fill(renderListVariables(options.variables, person), (text) => renderListCallText(text, person), options);
}

/**
 * The fingerprint of the exact list: sha256 over each recipient's contact id and number in
 * order, so a launch can tell the list it confirmed from one that changed since.
 */
export function recipientChecksum(recipients: readonly Pick<Recipient, 'contact_id' | 'row' | 'to'>[]): string {
  const hash = createHash('sha256');
  for (const r of recipients) hash.update(`${r.contact_id ?? `row:${r.row}`}\u0000${r.to}\n`);
  return `sha256:${hash.digest('hex')}`;
}
